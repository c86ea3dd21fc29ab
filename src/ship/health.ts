// Proving a ship live: after a deploy, `ship.healthUrl` is polled until it answers 2xx or the time
// runs out; after a local preview starts, its URL must answer at all (any HTTP status) before the run
// calls it ready, and a preview process that exits first is a failure at once. A health URL comes from
// a repository's config: its host is checked where the connection is made (guarded-get.ts), and one
// that is or resolves to a link-local or metadata address fails at once, never asked. Clock, sleep,
// fetch and the resolver are injected so tests control them; failures are values naming the URL's
// origin, never a secret.
import { guardedGet, RefusedAddressError, type Resolve } from './guarded-get.ts';
import { abortableSleep, type FetchLike, originOf } from './notify-http.ts';

export interface PollOptions {
  url: string;
  /** The whole wait. */
  timeoutMs: number;
  /** First pause between checks; it doubles up to `maxIntervalMs`. Default 1 s and 15 s. */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** Per check; default 5 s. */
  requestTimeoutMs?: number;
  /** The preview's check only (its URL is the bot's own); a health check always goes through guardedGet. */
  fetch?: FetchLike;
  /** How a health URL's host is resolved (default the system's); its answers are checked before use. */
  resolve?: Resolve;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
}

export type PollResult =
  | { ok: true; url: string; status: number; checks: number }
  | { ok: false; url: string; error: string; checks: number };

type Check =
  | { answered: true; status: number }
  | { answered: false; why: string }
  /** The host is or resolves to a link-local or metadata address: never asked, and no retry. */
  | { answered: false; refused: string };

/** One GET: through guardedGet for a repository's health URL, else through fetch. */
type Get = (url: string, signal: AbortSignal, opts: PollOptions) => Promise<number>;

const fetchGet: Get = async (url, signal, opts) => {
  // Redirects are not followed: a URL that sends elsewhere (a login page) is not an answer of its own.
  const res = await (opts.fetch ?? fetch)(url, { method: 'GET', redirect: 'manual', signal });
  await res.arrayBuffer().catch(() => undefined);
  return res.status;
};

const healthGet: Get = (url, signal, opts) =>
  guardedGet(url, { signal, ...(opts.resolve ? { resolve: opts.resolve } : {}) });

const checkOnce = async (url: string, opts: PollOptions, get: Get): Promise<Check> => {
  const perCheck = AbortSignal.timeout(opts.requestTimeoutMs ?? 5000);
  const signal = opts.signal ? AbortSignal.any([opts.signal, perCheck]) : perCheck;
  try {
    return { answered: true, status: await get(url, signal, opts) };
  } catch (err) {
    if (err instanceof RefusedAddressError) return { answered: false, refused: err.detail };
    const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
    const code = cause?.code ?? (err as { code?: unknown }).code;
    if (perCheck.aborted) return { answered: false, why: 'did not answer in time' };
    return {
      answered: false,
      why: typeof code === 'string' && /^[A-Z_]+$/.test(code) ? code : 'unreachable',
    };
  }
};

/**
 * Checks `url` until `done` accepts an answer or the time runs out; `stop` may end the wait early with
 * a reason (the preview process died).
 */
const poll = async (
  opts: PollOptions,
  done: (c: Check) => boolean,
  describe: (c: Check) => string,
  get: Get,
  stop?: () => string | undefined,
): Promise<PollResult> => {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? abortableSleep;
  const deadline = now() + opts.timeoutMs;
  let wait = opts.intervalMs ?? 1000;
  const maxWait = opts.maxIntervalMs ?? 15_000;
  const where = originOf(opts.url);
  let checks = 0;
  let last = 'was never checked';
  for (;;) {
    const stopped = stop?.();
    if (stopped) return { ok: false, url: opts.url, error: stopped, checks };
    if (opts.signal?.aborted)
      return { ok: false, url: opts.url, error: `cancelled while checking ${where}`, checks };
    const c = await checkOnce(opts.url, opts, get);
    checks++;
    if ('refused' in c) return { ok: false, url: opts.url, error: `${where} ${c.refused}`, checks };
    if (done(c)) return { ok: true, url: opts.url, status: c.answered ? c.status : 0, checks };
    last = describe(c);
    const left = deadline - now();
    if (left <= 0) {
      const after = stop?.();
      return {
        ok: false,
        url: opts.url,
        error: after ?? `${where} ${last} within ${Math.round(opts.timeoutMs / 1000)} s (${checks} checks)`,
        checks,
      };
    }
    await sleep(Math.min(wait, left), opts.signal);
    wait = Math.min(maxWait, wait * 2);
  }
};

/** After a deploy: healthy once the URL answers 2xx. */
export const pollHealth = (opts: PollOptions): Promise<PollResult> =>
  poll(
    opts,
    (c) => c.answered && c.status >= 200 && c.status < 300,
    (c) => (c.answered ? `answered HTTP ${c.status}, not 2xx,` : `was ${'why' in c ? c.why : c.refused}`),
    healthGet,
  );

/** After a preview starts: ready once anything answers on its URL; a dead process fails at once. */
export const waitForPreview = (opts: PollOptions & { alive: () => boolean }): Promise<PollResult> =>
  poll(
    opts,
    (c) => c.answered,
    (c) => (c.answered ? `answered HTTP ${c.status}` : `did not answer (${'why' in c ? c.why : c.refused})`),
    fetchGet,
    () => (opts.alive() ? undefined : 'the preview process exited before it answered on its port'),
  );
