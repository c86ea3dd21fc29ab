import { describe, expect, it } from 'vitest';
import { formatIssueRef, hasPermission, sameIssue } from './types.ts';

describe('forge domain helpers', () => {
  it('ranks permissions so that write satisfies read but read does not satisfy write', () => {
    expect(hasPermission('write', 'read')).toBe(true);
    expect(hasPermission('admin', 'write')).toBe(true);
    expect(hasPermission('read', 'write')).toBe(false);
    expect(hasPermission('none', 'read')).toBe(false);
  });

  it('prints a ref short inside its own repo and long across repos', () => {
    const repo = { owner: 'acme', name: 'app' };
    expect(formatIssueRef({ repo, number: 9 }, repo)).toBe('#9');
    expect(formatIssueRef({ repo, number: 9 }, { owner: 'acme', name: 'lib' })).toBe('acme/app#9');
  });

  it('compares repos case-insensitively, as both forges do', () => {
    expect(
      sameIssue(
        { repo: { owner: 'Acme', name: 'App' }, number: 1 },
        { repo: { owner: 'acme', name: 'app' }, number: 1 },
      ),
    ).toBe(true);
    expect(
      sameIssue(
        { repo: { owner: 'acme', name: 'app' }, number: 1 },
        { repo: { owner: 'acme', name: 'app' }, number: 2 },
      ),
    ).toBe(false);
  });
});
