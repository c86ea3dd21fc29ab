// Guards the status pages: a valid `Authorization: Bearer <STATUS_TOKEN>` or login cookie passes;
// anything else is refused before a run is read (a browser asking for HTML is sent to the login
// form, everything else gets 401: plain text for the pages, the API's JSON `Error` for /api/v1).
// Also sets the headers every status response carries.
import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { sessionCookieName, sessionValid, tokenMatches } from './session.ts';

/** CSP for the live pages: only our own scripts (Mermaid and the page script), no inline script. */
export const pageCsp =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

export const securityHeaders = (): MiddlewareHandler =>
  async function securityHeaders(c, next) {
    await next();
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
    if (!c.res.headers.get('cache-control')) c.header('cache-control', 'no-store');
    if (!c.res.headers.get('content-security-policy')) c.header('content-security-policy', pageCsp);
  };

const bearerOf = (header: string | undefined): string | undefined => {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
};

const refusedWords = 'a valid STATUS_TOKEN is required (Bearer header or /login)';

export const statusAccess = (opts: {
  token: string;
  now: () => Date;
  /** `json`: the API's refusal, `{error: 'unauthorized', message}`, and never a redirect. */
  refusal?: 'page' | 'json';
}): MiddlewareHandler =>
  async function statusAccess(c, next) {
    const header = c.req.header('authorization');
    const bearer = bearerOf(header);
    if (bearer !== undefined && tokenMatches(opts.token, bearer)) return next();
    if (header === undefined && sessionValid(opts.token, getCookie(c, sessionCookieName), opts.now()))
      return next();
    const api = opts.refusal === 'json';
    const wantsPage = c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html');
    if (!api && wantsPage && header === undefined) {
      const next = c.req.path + (new URL(c.req.url).search || '');
      return c.redirect(`/login?next=${encodeURIComponent(next)}`, 303);
    }
    c.header('www-authenticate', 'Bearer realm="blitz-status"');
    if (api) return c.json({ error: 'unauthorized', message: refusedWords }, 401);
    return c.text(`status page: ${refusedWords}`, 401);
  };
