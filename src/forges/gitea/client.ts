// The HTTP client under the Gitea adapter: token auth against `${url}/api/v1`, bounded retries with
// backoff on 5xx/429/network errors (Retry-After honoured up to a cap), Gitea paging (`Link`,
// `X-Total-Count`), zod-checked answers, a bounded streaming read for diffs, and every failure
// turned into an AppError a person can act on. The token is only ever put in the header.
import type { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../observability/logger.ts';
import { type ForgeRequestHook, outcomeOfStatus, remainingOf, safeHook } from '../request-hook.ts';
import { GiteaErrorBody } from './schema.ts';

export interface RetryPolicy {
  /** Retries after the first try; 3 means at most 4 requests. */
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is cut to it: a run must not stall for an hour on one header. */
  maxRetryAfterMs: number;
  sleep: (ms: number) => Promise<void>;
}

export const defaultRetryPolicy: RetryPolicy = {
  retries: 3,
  minDelayMs: 500,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface GiteaRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Below `/api/v1`, segments already encoded. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** What the bot was doing, for error messages: "close issue acme/app#3". */
  what: string;
  /** What access it needs, for a 403: "write access to acme/app". */
  needs?: string;
  /** Statuses handed back to the caller instead of thrown. */
  allow?: number[];
  accept?: string;
}

export interface GiteaClientOptions {
  url: string;
  token: string;
  botLogin: string;
  logger: Logger;
  retry: RetryPolicy;
  fetch: typeof fetch;
  requestTimeoutMs: number;
  /** Told after every try (metrics). */
  onRequest?: ForgeRequestHook;
}

/**
 * A POST may have taken effect before a 500/502/504 came back (a second comment, a second merge
 * attempt that then reads "already merged"), so it is retried only on 429 and 503, which say the
 * request was not processed. Reads and idempotent writes retry on any 5xx.
 */
const retryable = (method: GiteaRequest['method'], status: number) =>
  status === 429 || status === 503 || (method !== 'POST' && status >= 500);

/** Gitea's `{ message }`, if the body has one. */
const errorDetail = async (res: Response): Promise<string> => {
  const parsed = GiteaErrorBody.safeParse(await res.json().catch(() => undefined));
  return parsed.success && parsed.data.message ? `: ${parsed.data.message}` : '';
};

export class GiteaClient {
  readonly apiUrl: string;

  constructor(private readonly opts: GiteaClientOptions) {
    this.apiUrl = `${opts.url.replace(/\/+$/, '')}/api/v1`;
  }

  private urlFor(req: GiteaRequest): URL {
    const url = new URL(`${this.apiUrl}${req.path}`);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private delayFor(attempt: number, res?: Response): number {
    const { minDelayMs, maxDelayMs, maxRetryAfterMs } = this.opts.retry;
    const header = res?.headers.get('retry-after');
    if (header) {
      const seconds = Number(header);
      const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
      if (Number.isFinite(ms)) return Math.min(Math.max(0, ms), maxRetryAfterMs);
    }
    return Math.min(maxDelayMs, minDelayMs * 2 ** attempt);
  }

  /** One request with retries; answers outside 2xx and `allow` become AppErrors. */
  async send(req: GiteaRequest, url = this.urlFor(req)): Promise<Response> {
    const { logger, retry } = this.opts;
    const headers: Record<string, string> = {
      authorization: `token ${this.opts.token}`,
      accept: req.accept ?? 'application/json',
    };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    for (let attempt = 0; ; attempt += 1) {
      let res: Response | undefined;
      let failure: unknown;
      try {
        res = await this.opts.fetch(url, {
          method: req.method,
          headers,
          body: req.body === undefined ? undefined : JSON.stringify(req.body),
          signal: AbortSignal.timeout(this.opts.requestTimeoutMs),
        });
      } catch (err) {
        failure = err;
      }
      safeHook(this.opts.onRequest)({
        outcome: outcomeOfStatus(res?.status),
        ...(res ? { remaining: remainingOf(res.headers.get('x-ratelimit-remaining')) } : {}),
      });
      if (res && (res.ok || req.allow?.includes(res.status))) return res;
      if (res && !retryable(req.method, res.status)) throw await this.errorFor(req, res, attempt + 1);
      if (attempt >= retry.retries) {
        if (res) throw await this.errorFor(req, res, attempt + 1);
        throw new AppError(
          'forge_unavailable',
          `Gitea at ${this.opts.url} could not be reached to ${req.what} after ${attempt + 1} tries`,
          { method: req.method, path: url.pathname },
          { cause: failure },
        );
      }
      const delayMs = this.delayFor(attempt, res);
      logger.warn(
        { method: req.method, path: url.pathname, status: res?.status, attempt: attempt + 1, delayMs },
        'gitea request failed, retrying',
      );
      await res?.body?.cancel();
      await retry.sleep(delayMs);
    }
  }

  private async errorFor(req: GiteaRequest, res: Response, tries?: number): Promise<AppError> {
    const detail = await errorDetail(res);
    const details = {
      method: req.method,
      path: new URL(res.url || this.apiUrl).pathname,
      status: res.status,
    };
    const url = this.opts.url;
    switch (res.status) {
      case 401:
        return new AppError(
          'unauthorized',
          `Gitea at ${url} rejected the bot's token while trying to ${req.what}: check GITEA_TOKEN`,
          details,
        );
      case 403:
        return new AppError(
          'forbidden',
          `the bot (${this.opts.botLogin}) lacks ${req.needs ?? 'permission'} to ${req.what}${detail}`,
          details,
        );
      case 404:
        return new AppError('not_found', `could not ${req.what}: not found on Gitea${detail}`, details);
      case 405:
        return new AppError('unmergeable', `could not ${req.what}: Gitea refused${detail}`, details);
      case 409:
        return new AppError('conflict', `could not ${req.what}: conflict${detail}`, details);
      case 429:
        return new AppError(
          'rate_limited',
          `Gitea at ${url} kept rate-limiting the bot (${tries} tries to ${req.what}); try again later`,
          details,
        );
      default:
        if (res.status >= 500) {
          return new AppError(
            'forge_unavailable',
            `Gitea at ${url} answered ${res.status} to ${tries} tries to ${req.what}; giving up`,
            details,
          );
        }
        return new AppError(
          'forge_error',
          `could not ${req.what}: Gitea answered ${res.status}${detail}`,
          details,
        );
    }
  }

  /** A request whose answer body the caller does not need (drained so the connection is reused). */
  async none(req: GiteaRequest): Promise<void> {
    const res = await this.send(req);
    await res.body?.cancel();
  }

  /** A JSON answer checked against `schema`; a body off the schema is a forge_error, not a crash later. */
  async json<S extends z.ZodType>(schema: S, req: GiteaRequest): Promise<z.infer<S>> {
    const res = await this.send(req);
    return this.parse(schema, await res.json().catch(() => undefined), req);
  }

  parse<S extends z.ZodType>(schema: S, body: unknown, req: GiteaRequest): z.infer<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new AppError('forge_error', `Gitea's answer to "${req.what}" was not in the expected shape`, {
        path: req.path,
        issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`),
      });
    }
    return parsed.data;
  }

  /**
   * Every page of a list, following `Link: rel="next"` (its query, on our URL) or, without it, page numbers.
   * `limit` undefined: the endpoint takes no paging parameters (issue comments) but a Link is still followed.
   */
  async paged<S extends z.ZodType>(
    item: S,
    req: GiteaRequest,
    limit?: number,
    maxPages = 1000,
  ): Promise<z.infer<S>[]> {
    const out: z.infer<S>[] = [];
    const first = limit === undefined ? req : { ...req, query: { ...req.query, page: 1, limit } };
    let url: URL | undefined = this.urlFor(first);
    for (let page = 1; url; page += 1) {
      if (page > maxPages)
        throw new AppError('forge_error', `more than ${maxPages} pages while trying to ${req.what}`);
      const res = await this.send(req, url);
      const items = this.parse(item.array(), await res.json().catch(() => undefined), req);
      out.push(...items);
      const next = nextLink(res.headers.get('link'));
      const total = Number(res.headers.get('x-total-count') ?? Number.NaN);
      if (next) {
        // Gitea builds Link from its ROOT_URL, which may not be the URL the bot talks to: keep our
        // own origin and path (the token goes nowhere else) and take only the next page's query.
        const nextUrl: URL = this.urlFor(req);
        nextUrl.search = new URL(next, url).search;
        url = nextUrl;
      } else if (limit !== undefined && items.length > 0 && Number.isFinite(total) && out.length < total) {
        url = this.urlFor({ ...req, query: { ...req.query, page: page + 1, limit } });
      } else {
        url = undefined;
      }
    }
    return out;
  }

  /** Read at most `maxBytes` of a text answer, cancelling the stream there. */
  async boundedText(
    req: GiteaRequest,
    maxBytes: number,
  ): Promise<{ text: string; truncated: boolean; totalBytes: number }> {
    const res = await this.send(req);
    const declared = Number(res.headers.get('content-length') ?? Number.NaN);
    const chunks: Uint8Array[] = [];
    let read = 0;
    let truncated = false;
    const reader = res.body?.getReader();
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      read += value.byteLength;
      if (read > maxBytes) {
        truncated = true;
        await reader.cancel();
        break;
      }
    }
    const all = Buffer.concat(chunks).subarray(0, maxBytes);
    const totalBytes = Number.isFinite(declared) ? declared : read;
    return { text: new TextDecoder().decode(all), truncated, totalBytes };
  }
}

/** The `rel="next"` target of a Link header. */
export const nextLink = (header: string | null): string | undefined => {
  for (const part of header?.split(',') ?? []) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1];
  }
  return undefined;
};
