// Reads the JSON API of a running bot for `blitz-bot status --server URL` and `stats --server URL`:
// one GET under /api/v1 with the STATUS_TOKEN as a Bearer token, the body parsed with the same zod
// schema the server built it with. The token goes over https only (plain http to this machine only).
import type { z } from '@hono/zod-openapi';
import { AppError } from '../errors.ts';

const loopback: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The server's base URL, checked: http(s), no credentials in it, plain http only to loopback. */
export const apiBase = (server: string): URL => {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new AppError('bad_request', `--server "${server}" is not a URL (like https://blitz.example.com)`);
  }
  if (url.username || url.password)
    throw new AppError(
      'bad_request',
      '--server must not carry credentials: the token comes from STATUS_TOKEN',
    );
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback.has(url.hostname)))
    throw new AppError(
      'bad_request',
      `--server must be https (plain http only to this machine), so STATUS_TOKEN is not sent in the clear: got ${url.protocol}//${url.host}`,
    );
  return url;
};

/** GET `path` (under /api/v1) and parse it; a refusal or a body that is not the schema's is an AppError. */
export const fetchApi = async <T extends z.ZodType>(input: {
  server: string;
  token: string | undefined;
  path: string;
  query?: Record<string, string | undefined>;
  schema: T;
  fetch?: typeof fetch;
}): Promise<z.infer<T>> => {
  if (!input.token)
    throw new AppError(
      'unauthorized',
      'set STATUS_TOKEN to the bot’s status token to read its API with --server',
    );
  const base = apiBase(input.server);
  const url = new URL(`${base.pathname.replace(/\/+$/, '')}/api/v1${input.path}`, base);
  for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
  const doFetch = input.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(url, {
      headers: { authorization: `Bearer ${input.token}`, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new AppError(
      'forge_unavailable',
      `could not reach ${url.origin}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const body: unknown = await res.json().catch(() => undefined);
  if (res.status === 401)
    throw new AppError('unauthorized', `${url.origin} refused STATUS_TOKEN (401): is it the bot's token?`);
  if (!res.ok) {
    const message =
      body && typeof body === 'object' && 'message' in body && typeof body.message === 'string'
        ? body.message.replace(/[\p{Cc}]+/gu, ' ').slice(0, 200)
        : `HTTP ${res.status}`;
    throw new AppError(res.status === 404 ? 'not_found' : 'internal', `${url.origin}: ${message}`);
  }
  const parsed = input.schema.safeParse(body);
  if (!parsed.success)
    throw new AppError(
      'invalid_payload',
      `${url.origin} answered ${input.path} with a body that is not the API's`,
    );
  return parsed.data;
};
