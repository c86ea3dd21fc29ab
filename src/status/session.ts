// Status-page credentials: the operator's STATUS_TOKEN checked in constant time, and a login cookie
// that carries an expiry and an HMAC keyed by the token (never the token itself), so a leaked cookie
// expires and changing STATUS_TOKEN logs everyone out.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const sessionCookieName = 'blitz_status';
/** A login lasts this long; then the form asks again. */
export const sessionSeconds = 12 * 60 * 60;

const digest = (key: string, text: string): Buffer => createHmac('sha256', key).update(text).digest();

/** Constant-time: both sides are hashed to the same length first, so length leaks nothing either. */
export const tokenMatches = (expected: string, given: string): boolean =>
  timingSafeEqual(digest('status-token', expected), digest('status-token', given));

const mac = (token: string, expires: number): string =>
  digest(token, `status-session:${expires}`).toString('base64url');

/** The cookie value for a login made at `now`. */
export const issueSession = (token: string, now: Date): string => {
  const expires = Math.floor(now.getTime() / 1000) + sessionSeconds;
  return `${expires}.${mac(token, expires)}`;
};

/** True for a cookie this token issued that has not expired. */
export const sessionValid = (token: string, cookie: string | undefined, now: Date): boolean => {
  if (!cookie) return false;
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(cookie);
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires * 1000 <= now.getTime()) return false;
  const given = Buffer.from(match[2]!, 'base64url');
  const wanted = Buffer.from(mac(token, expires), 'base64url');
  return given.length === wanted.length && timingSafeEqual(given, wanted);
};

/** Only a same-site path may be a post-login destination (no `//host`, no scheme). */
export const safeNext = (next: string | undefined): string =>
  next && /^\/(?![/\\])[^\s]*$/.test(next) ? next : '/';
