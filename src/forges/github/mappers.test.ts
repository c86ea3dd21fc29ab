import { describe, expect, it } from 'vitest';
import { boundDiff } from '../types.ts';
import { parseClosingRefs, toPermission } from './mappers.ts';

const app = { owner: 'acme', name: 'app' };

describe('parseClosingRefs', () => {
  it('reads Fixes/Closes/Resolves in every tense, same-repo and cross-repo', () => {
    expect(parseClosingRefs(app, 'Fixes #1, closed #2\nRESOLVES acme/lib#3; resolved: #4')).toEqual([
      { repo: app, number: 1 },
      { repo: app, number: 2 },
      { repo: { owner: 'acme', name: 'lib' }, number: 3 },
      { repo: app, number: 4 },
    ]);
  });

  it('ignores a bare mention and words that merely contain a keyword', () => {
    expect(parseClosingRefs(app, 'see #5; prefixes #6; unfixed #7')).toEqual([]);
  });
});

describe('toPermission', () => {
  it('folds maintain into write and triage into read, and falls back to permission for custom roles', () => {
    expect(toPermission('maintain', 'write')).toBe('write');
    expect(toPermission('triage', 'read')).toBe('read');
    expect(toPermission('admin', 'admin')).toBe('admin');
    expect(toPermission('release-manager', 'write')).toBe('write');
    expect(toPermission(undefined, 'none')).toBe('none');
    expect(toPermission('weird', 'weird')).toBe('none');
  });
});

describe('boundDiff', () => {
  it('keeps a diff under the limit whole', () => {
    expect(boundDiff('abc', 3)).toEqual({ diff: 'abc', truncated: false, totalBytes: 3 });
  });

  it('cuts at the byte limit without splitting a multi-byte character, and says so', () => {
    const cut = boundDiff('aéé', 4); // a(1) é(2) é(2) = 5 bytes; byte 4 is inside the second é
    expect(cut).toEqual({ diff: 'aé', truncated: true, totalBytes: 5 });
  });
});
