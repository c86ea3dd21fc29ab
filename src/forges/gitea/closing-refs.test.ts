import { describe, expect, it } from 'vitest';
import { closingRefs } from './closing-refs.ts';

const app = { owner: 'acme', name: 'app' };

describe('closingRefs', () => {
  it('reads every Gitea closing keyword, in any case, with same-repo and cross-repo refs', () => {
    const refs = closingRefs(
      ['Fixes #1\ncloses #2, #3\nRESOLVED acme/lib#4\nfixed: #5', 'Close #6 and resolve #7'],
      app,
    );
    expect(refs.map((r) => `${r.repo.owner}/${r.repo.name}#${r.number}`)).toEqual([
      'acme/app#1',
      'acme/app#2',
      'acme/app#3',
      'acme/lib#4',
      'acme/app#5',
      'acme/app#6',
      'acme/app#7',
    ]);
  });

  it('ignores mentions without a keyword, keywords inside words, and code', () => {
    const text = 'See #1. prefixes #2. `fixes #3`\n```\ncloses #4\n```\nrefs #5';
    expect(closingRefs([text], app)).toEqual([]);
  });

  it('lists an issue once even when the body and a commit both close it', () => {
    expect(closingRefs(['Fixes #9', 'fixes #9', 'fixes ACME/app#9'], app)).toEqual([
      { repo: app, number: 9 },
    ]);
  });
});
