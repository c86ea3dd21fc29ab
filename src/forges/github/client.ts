// Builds the octokit client the GitHub adapter uses: REST + GraphQL against api.github.com or a GitHub
// Enterprise Server (`{protocol}://{host}/api/v3`), app or token auth, 5xx retried with backoff by
// plugin-retry, primary and secondary rate limits (Retry-After) by plugin-throttling — every retry
// bounded, every wait capped, and all of them shrinkable for tests.
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import Bottleneck from 'bottleneck';
import type { Logger } from '../../observability/logger.ts';
import { createEtagCache } from '../etag-cache.ts';
import {
  type ForgeRequestHook,
  outcomeOfStatus,
  rateHeadersOf,
  remainingOf,
  safeHook,
} from '../request-hook.ts';

export const GithubOctokit = Octokit.plugin(retry, throttling);
export type GithubClient = InstanceType<typeof GithubOctokit>;

export type GithubAuth =
  | { token: string }
  | { appId: number | string; privateKey: string; installationId: number };

export interface RetryOptions {
  /** Retries after the first attempt, for 5xx and for rate limits. */
  retries: number;
  /** Base of the 5xx backoff: attempt n waits n² × this. */
  minDelayMs: number;
  /** How long one second of Retry-After or of the write spacing lasts; tests shrink it (default 1000). */
  secondMs?: number;
  /** A Retry-After longer than this (seconds) is not waited for: the call fails with rate_limited. */
  maxRetryAfterSeconds?: number;
}

export const defaultRetry: Required<RetryOptions> = {
  retries: 3,
  minDelayMs: 1000,
  secondMs: 1000,
  maxRetryAfterSeconds: 120,
};

/** `{protocol}://{host}/api/v3` for GitHub Enterprise Server, api.github.com otherwise. */
export const githubBaseUrl = (opts: { host?: string; protocol?: string }): string =>
  opts.host ? `${opts.protocol ?? 'https'}://${opts.host}/api/v3` : 'https://api.github.com';

/** @octokit/auth-app's token cache over a Map the caller can empty. */
const mapCache = (map: Map<string, string>) => ({
  get: async (key: string) => map.get(key),
  set: async (key: string, value: string) => {
    map.set(key, value);
  },
});

// 4xx other than rate limits are answers, not outages; 429 is left to the throttling plugin, which
// reads Retry-After, so the two plugins never both retry one response.
const doNotRetry = [400, 401, 403, 404, 405, 409, 410, 422, 429, 451];

export const createGithubClient = (opts: {
  baseUrl: string;
  auth: GithubAuth;
  logger: Logger;
  retry?: RetryOptions;
  /** Told after every API request (forge metrics). */
  onRequest?: ForgeRequestHook;
  /** Conditional GETs (ETag / Last-Modified) served from cache on 304; default on. */
  conditional?: boolean;
  /**
   * Where app auth keeps its installation tokens (default: its own). A token keeps the permissions the
   * installation had when it was minted, so the adapter empties this once GitHub says new ones were accepted.
   */
  tokenCache?: Map<string, string>;
}): GithubClient => {
  const r = { ...defaultRetry, ...opts.retry };
  const { logger } = opts;
  const tell = safeHook(opts.onRequest);
  const onLimit =
    (kind: 'primary' | 'secondary') =>
    (retryAfter: number, options: { method?: string; url?: string }, _o: unknown, retryCount: number) => {
      const willRetry = retryCount < r.retries && retryAfter <= r.maxRetryAfterSeconds;
      logger.warn(
        { kind, retryAfter, retryCount, method: options.method, route: options.url, willRetry },
        'github rate limit',
      );
      // A refusal waited out here never reaches the error hook below (it sees only the last answer), so
      // the budget hears of it now: runs hold new sessions until the wait is over.
      if (willRetry)
        tell({
          outcome: '4xx',
          ...(options.method ? { method: options.method } : {}),
          retryAfter,
          limit: kind,
        });
      return willRetry;
    };
  const group = (minTimeSeconds: number) =>
    new Bottleneck.Group({ maxConcurrent: 1, minTime: minTimeSeconds * r.secondMs });
  const auth =
    'token' in opts.auth
      ? { auth: opts.auth.token }
      : {
          authStrategy: createAppAuth,
          auth: {
            appId: opts.auth.appId,
            privateKey: opts.auth.privateKey,
            installationId: opts.auth.installationId,
            ...(opts.tokenCache ? { cache: mapCache(opts.tokenCache) } : {}),
          },
        };
  const client = new GithubOctokit({
    ...auth,
    baseUrl: opts.baseUrl,
    userAgent: 'blitz-bot',
    log: {
      debug: () => {},
      info: () => {},
      warn: (message: string) => logger.warn({ detail: message }, 'octokit warning'),
      // A 304 to a conditional GET is octokit's "error" but an answer here (served from the ETag cache).
      error: (message: string) =>
        / - 304 with id /.test(message) ? undefined : logger.error({ detail: message }, 'octokit error'),
    },
    retry: { retries: r.retries, retryAfterBaseValue: r.minDelayMs, doNotRetry },
    throttle: {
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      retryAfterBaseValue: r.secondMs,
      fallbackSecondaryRateRetryAfter: 60,
      // GitHub asks for writes one second apart (notification-triggering ones three); same ratio scaled.
      write: group(1),
      notifications: group(3),
      search: group(2),
    },
  });
  /** A GraphQL document that writes (octokit's graphql() hands the document over as `query`). */
  const isMutation = (options: object) => {
    const query = (options as { query?: unknown }).query;
    return typeof query === 'string' && /^\s*mutation\b/.test(query);
  };
  client.hook.after('request', (response, options) => {
    tell({
      outcome: outcomeOfStatus(response.status),
      remaining: remainingOf(response.headers['x-ratelimit-remaining']),
      method: options.method,
      status: response.status,
      rateHeaders: rateHeadersOf(response.headers),
      ...(isMutation(options) ? { mutation: true } : {}),
    });
  });
  client.hook.error('request', (error, options) => {
    const e = error as {
      status?: number;
      response?: { headers?: Record<string, string | number | undefined> };
    };
    tell({
      outcome: outcomeOfStatus(e.status),
      remaining: remainingOf(e.response?.headers?.['x-ratelimit-remaining']),
      method: options.method,
      status: e.status,
      rateHeaders: rateHeadersOf(e.response?.headers),
      ...(e.status === 304 ? { notModified: true } : {}),
      ...retryAfterOf(e.status, e.response?.headers),
    });
    throw error;
  });
  if (opts.conditional !== false) conditionalGets(client);
  return client;
};

/** A refusal's Retry-After (GitHub: 429, or 403 at a limit), or the primary limit's reset when it names none. */
const retryAfterOf = (
  status: number | undefined,
  headers: Record<string, string | number | undefined> | undefined,
): { retryAfter?: number } => {
  if ((status !== 403 && status !== 429) || !headers) return {};
  const after = remainingOf(headers['retry-after']);
  if (after !== undefined) return { retryAfter: after };
  const reset = remainingOf(headers['x-ratelimit-reset']);
  if (String(headers['x-ratelimit-remaining']) === '0' && reset !== undefined)
    return { retryAfter: Math.max(0, Math.ceil(reset - Date.now() / 1000)) };
  return {};
};

type OctokitResponse = Awaited<ReturnType<GithubClient['request']>>;

/**
 * Every REST GET is sent with the validators of its last answer; a 304 (which octokit throws) is served
 * from that answer. Registered last, so it wraps retries, throttling and the metrics hooks: those see
 * the 304 as it came.
 */
const conditionalGets = (client: GithubClient): void => {
  const cache = createEtagCache<OctokitResponse>(1000);
  client.hook.wrap('request', async (request, options) => {
    if (options.method !== 'GET') return request(options);
    const { url, headers } = client.request.endpoint.parse(options);
    const key = `${headers.accept ?? ''} ${url}`;
    const validators = cache.conditionalHeaders(key);
    try {
      // In place: the hooks inside (throttling, retry) resend the options object they were given.
      Object.assign(options.headers, validators);
      const response = await request(options);
      const h = response.headers as Record<string, string | undefined>;
      if (response.status === 200 && (h.etag || h['last-modified']))
        cache.set(key, {
          ...(h.etag ? { etag: h.etag } : {}),
          ...(h['last-modified'] ? { lastModified: h['last-modified'] } : {}),
          value: response,
        });
      return structuredClone(response);
    } catch (err) {
      const hit = (err as { status?: number }).status === 304 ? cache.get(key) : undefined;
      if (!hit) throw err;
      const fresh = (err as { response?: { headers?: Record<string, string> } }).response?.headers ?? {};
      return structuredClone({ ...hit.value, headers: { ...hit.value.headers, ...fresh } });
    }
  });
};
