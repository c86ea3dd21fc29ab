import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/git.ts';
import { checkRepoSegment, insideWorkspace, repoDirFor } from './workspace.ts';

describe('workspace paths', () => {
  it('resolves paths under the workspace', () => {
    const ws = tempDir('blitz-ws-');
    expect(repoDirFor(ws, 'acme', 'app')).toBe(join(ws, 'acme', 'app'));
  });

  it('refuses `..`, absolute paths and the workspace root itself', () => {
    const ws = tempDir('blitz-ws-');
    expect(() => insideWorkspace(ws, '..', 'etc')).toThrow(/outside the workspace/);
    expect(() => insideWorkspace(ws, '/etc/passwd')).toThrow(/outside the workspace/);
    expect(() => insideWorkspace(ws, 'a', '..', '..', 'b')).toThrow(/outside the workspace/);
    expect(() => insideWorkspace(ws, '.')).toThrow(/outside the workspace/);
  });

  it('refuses a path that leads out through a symlink', () => {
    const ws = tempDir('blitz-ws-');
    const outside = tempDir('blitz-outside-');
    symlinkSync(outside, join(ws, 'link'));
    expect(() => insideWorkspace(ws, 'link', 'x')).toThrow(/via a link/);
    mkdirSync(join(ws, 'real'));
    expect(insideWorkspace(ws, 'real', 'x')).toBe(join(ws, 'real', 'x'));
  });

  it('refuses owner and repo names that could climb or hide', () => {
    for (const bad of ['..', '.git', '-rf', 'a/b', 'x.lock', ''])
      expect(() => checkRepoSegment(bad, 'owner')).toThrow(/Unsafe owner/);
    expect(checkRepoSegment('my.repo-1', 'repository')).toBe('my.repo-1');
  });
});
