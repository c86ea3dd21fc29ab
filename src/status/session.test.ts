import { describe, expect, it } from 'vitest';
import { issueSession, safeNext, sessionSeconds, sessionValid, tokenMatches } from './session.ts';

const now = new Date('2026-11-29T08:00:00Z');

describe('status session', () => {
  it('accepts only the exact token', () => {
    expect(tokenMatches('s3cret-token', 's3cret-token')).toBe(true);
    expect(tokenMatches('s3cret-token', 's3cret-tokeN')).toBe(false);
    expect(tokenMatches('s3cret-token', '')).toBe(false);
    expect(tokenMatches('s3cret-token', 's3cret-token-and-more')).toBe(false);
  });

  it('issues a cookie that does not contain the token and is valid until it expires', () => {
    const cookie = issueSession('s3cret-token', now);
    expect(cookie).not.toContain('s3cret');
    expect(sessionValid('s3cret-token', cookie, now)).toBe(true);
    const later = new Date(now.getTime() + sessionSeconds * 1000 + 1);
    expect(sessionValid('s3cret-token', cookie, later)).toBe(false);
  });

  it('refuses a cookie from another token, a forged expiry and junk', () => {
    const cookie = issueSession('s3cret-token', now);
    expect(sessionValid('rotated-token', cookie, now)).toBe(false);
    const [, sig] = cookie.split('.');
    const forged = `${Math.floor(now.getTime() / 1000) + 10 * sessionSeconds}.${sig}`;
    expect(sessionValid('s3cret-token', forged, now)).toBe(false);
    for (const junk of [undefined, '', 'x', '1.2', `${cookie}x`, 's3cret-token'])
      expect(sessionValid('s3cret-token', junk, now)).toBe(false);
  });

  it('sends a login only to a path on this site', () => {
    expect(safeNext('/runs/r1')).toBe('/runs/r1');
    expect(safeNext('//evil.example/x')).toBe('/');
    expect(safeNext('/\\evil.example')).toBe('/');
    expect(safeNext('https://evil.example')).toBe('/');
    expect(safeNext(undefined)).toBe('/');
  });
});
