// Proving a ship live: after a deploy, `ship.healthUrl` is polled until it answers 2xx or the time
// runs out; after a local preview starts, its URL must answer at all (any HTTP status) before the run
// calls it ready, and a preview process that exits first is a failure at once. Clock, sleep and fetch
// are injected so tests control time; failures are values naming the URL's origin, never a secret.
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
  fetch?: FetchLike;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
}

export type PollResult =
  | { ok: true; url: string; status: number; checks: number }
  | { ok: false; url: string; error: string; checks: number };

type Check = { answered: true; status: number } | { answered: false; why: string };

const checkOnce = async (url: string, opts: PollOptions): Promise<Check> => {
  const perCheck = AbortSignal.timeout(opts.requestTimeoutMs ?? 5000);
  const signal = opts.signal ? AbortSignal.any([opts.signal, perCheck]) : perCheck;
  try {
    // Redirects are not followed: a health URL that sends elsewhere (a login page) is not healthy.
    const res = await (opts.fetch ?? fetch)(url, { method: 'GET', redirect: 'manual', signal });
    await res.arrayBuffer().catch(() => undefined);
    return { answered: true, status: res.status };
  } catch (err) {
    const code = (err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined)?.code;
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
    const c = await checkOnce(opts.url, opts);
    checks++;
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
    (c) => (c.answered ? `answered HTTP ${c.status}, not 2xx,` : `was ${c.why}`),
  );

/** After a preview starts: ready once anything answers on its URL; a dead process fails at once. */
export const waitForPreview = (opts: PollOptions & { alive: () => boolean }): Promise<PollResult> =>
  poll(
    opts,
    (c) => c.answered,
    (c) => (c.answered ? `answered HTTP ${c.status}` : `did not answer (${c.why})`),
    () => (opts.alive() ? undefined : 'the preview process exited before it answered on its port'),
  );
