import { describe, expect, it } from 'vitest';
import { compareKeys } from './graph.ts';
import { parseIssueRef } from './types.ts';

describe('parseIssueRef', () => {
  it('reads #n in the default repo and owner/repo#n anywhere', () => {
    expect(parseIssueRef('#12', 'acme/app')).toBe('acme/app#12');
    expect(parseIssueRef(' other/lib#3 ', 'acme/app')).toBe('other/lib#3');
  });
  it('refuses anything else: tried a bare number, #0, a URL, text around the ref', () => {
    for (const bad of ['12', '#0', '#-1', 'https://x/y#1', 'see #4', 'a/b/c#1', '#1e3'])
      expect(parseIssueRef(bad, 'acme/app')).toBeUndefined();
  });
});

describe('compareKeys', () => {
  it('orders by repo, then by number as a number', () => {
    const keys = ['b/x#1', 'a/b#10', 'a/bc#1', 'a/b#2', 'a/b#1'];
    expect([...keys].sort(compareKeys)).toEqual(['a/b#1', 'a/b#2', 'a/b#10', 'a/bc#1', 'b/x#1']);
  });
});
