// The attempt page's file reader on a real directory tree: only regular files under its roots,
// symlinks resolved before the check, and only the tail of a long log.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogReader } from '../../src/status/log-reader.ts';
import { removeDir, tempDir } from '../support/git.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const tree = () => {
  const root = tempDir('blitz-logs-');
  dirs.push(root);
  const workspace = join(root, 'workspace');
  mkdirSync(join(workspace, '.attempts', 'a1'), { recursive: true });
  writeFileSync(join(workspace, '.attempts', 'a1', 'worker.log'), 'line one\nline two\n');
  writeFileSync(join(root, 'secret.env'), 'TOKEN=do-not-read');
  symlinkSync(join(root, 'secret.env'), join(workspace, '.attempts', 'a1', 'sneaky.log'));
  return { root, workspace };
};

describe('status log reader', () => {
  it('reads a log under the workspace', async () => {
    const { workspace } = tree();
    const read = createLogReader({ roots: [workspace] });
    expect(await read(join(workspace, '.attempts', 'a1', 'worker.log'))).toEqual({
      text: 'line one\nline two\n',
      truncated: false,
    });
  });

  it('refuses files outside the roots, by .. or by a symlink, relative paths, directories and missing files', async () => {
    const { root, workspace } = tree();
    const read = createLogReader({ roots: [workspace] });
    expect(await read(join(root, 'secret.env'))).toBeUndefined();
    expect(await read(join(workspace, '..', 'secret.env'))).toBeUndefined();
    expect(await read(join(workspace, '.attempts', 'a1', 'sneaky.log'))).toBeUndefined();
    expect(await read('secret.env')).toBeUndefined();
    expect(await read(join(workspace, '.attempts'))).toBeUndefined();
    expect(await read(join(workspace, 'missing.log'))).toBeUndefined();
  });

  it('returns only the tail of a log longer than the limit, and says so', async () => {
    const { workspace } = tree();
    const read = createLogReader({ roots: [workspace], maxBytes: 9 });
    expect(await read(join(workspace, '.attempts', 'a1', 'worker.log'))).toEqual({
      text: 'line two\n',
      truncated: true,
    });
  });
});
