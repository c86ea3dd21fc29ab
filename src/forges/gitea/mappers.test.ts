import { describe, expect, it } from 'vitest';
import { nextLink } from './client.ts';
import { mergeStateOf, toPermission } from './mappers.ts';
import { GiteaPull } from './schema.ts';

const pull = (over: Record<string, unknown>) =>
  GiteaPull.parse({
    number: 1,
    title: 't',
    state: 'open',
    merged: false,
    mergeable: true,
    head: { ref: 'f', sha: 'h' },
    base: { ref: 'main', sha: 'b' },
    merge_base: 'b',
    html_url: 'u',
    ...over,
  });

describe('gitea mappers', () => {
  it('normalises permission words, failing closed on anything unknown', () => {
    expect(['owner', 'admin', 'write', 'read', 'none', 'weird'].map(toPermission)).toEqual([
      'admin',
      'admin',
      'write',
      'read',
      'none',
      'none',
    ]);
  });

  it('derives the merge state from mergeable and the merge base', () => {
    expect(mergeStateOf(pull({}))).toBe('clean');
    expect(mergeStateOf(pull({ merge_base: 'older' }))).toBe('behind');
    expect(mergeStateOf(pull({ mergeable: false, merge_base: 'older' }))).toBe('dirty');
    expect(mergeStateOf(pull({ merged: true, state: 'closed' }))).toBe('unknown');
  });

  it('accepts the nulls real Gitea sends for absent objects', () => {
    expect(pull({ body: null, user: null, merge_commit_sha: null }).body).toBeNull();
  });

  it('finds the next page in a Link header', () => {
    const link =
      '<http://g/api/v1/x?page=3&limit=50>; rel="next",<http://g/api/v1/x?page=9&limit=50>; rel="last"';
    expect(nextLink(link)).toBe('http://g/api/v1/x?page=3&limit=50');
    expect(nextLink('<http://g/x?page=1>; rel="first"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });
});
