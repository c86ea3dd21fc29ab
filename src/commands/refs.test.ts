import { describe, expect, it } from 'vitest';
import { parseRef, refKey } from './refs.ts';

describe('parseRef', () => {
  it.each<[string, object]>([
    ['#9', { ref: { number: 9 }, kind: 'either' }],
    ['#0009', { ref: { number: 9 }, kind: 'either' }],
    ['skuld#3', { ref: { repo: 'skuld', number: 3 }, kind: 'either' }],
    ['acme/web.app#12', { ref: { owner: 'acme', repo: 'web.app', number: 12 }, kind: 'either' }],
    [
      'https://github.com/acme/web/issues/4',
      { ref: { owner: 'acme', repo: 'web', number: 4, host: 'github.com' }, kind: 'issue' },
    ],
    ['https://github.com/acme/web/pull/4/files', { ok: false }],
    [
      'https://github.com/acme/web/pull/4',
      { ref: { owner: 'acme', repo: 'web', number: 4, host: 'github.com' }, kind: 'pull' },
    ],
    [
      'http://10.0.0.5:3000/acme/web/pulls/4',
      { ref: { owner: 'acme', repo: 'web', number: 4, host: '10.0.0.5:3000' }, kind: 'pull' },
    ],
    [
      'https://git.example.org/gitea/acme/web/issues/5/',
      { ref: { owner: 'acme', repo: 'web', number: 5, host: 'git.example.org' }, kind: 'issue' },
    ],
  ])('%j', (token, expected) => {
    expect(parseRef(token)).toMatchObject(expected);
  });

  it.each([
    '#',
    '#-1',
    '#1.5',
    'a/b/c#1',
    '../x#1',
    'o/..#1',
    'https://x.org/a/b/issues/abc',
    'https://x.org/issues/3',
  ])('%j is a malformed ref with a reason', (token) => {
    const r = parseRef(token);
    expect(r.ok).toBe(false);
    expect('error' in r && r.error.length > 0).toBe(true);
  });

  it.each(['M1', 'label', 'Milestone'])('%j is not a ref at all', (token) => {
    expect(parseRef(token)).toEqual({ ok: false, notARef: true });
  });

  it('keys refs case-insensitively', () => {
    const a = parseRef('Acme/Web#3');
    const b = parseRef('acme/web#3');
    if (!a.ok || !b.ok) throw new Error('refs expected');
    expect(refKey(a.ref)).toBe(refKey(b.ref));
  });
});
