// The one wait of the tests for what another process does (a spawned bot, a runner, a worker, a
// database seen from outside): polls `done` until it gives a value, bounded, and names what it waited
// for when it gives up. In-process work is awaited on its own events instead (runner-progress.ts,
// manual-cron.ts); this is for what only shows from outside.

export interface UntilOptions {
  /** How long before giving up (ms). */
  timeoutMs?: number;
  /** How long between two looks (ms). */
  everyMs?: number;
  /** What the error adds when it gives up: the state the wait saw last, in words. */
  detail?: () => string | Promise<string>;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves with the first value `done` gives that is neither `undefined` nor `false` (so a boolean
 * check resolves `true`, a lookup its find); throws `what: not reached in N ms` past the timeout.
 */
export const until = async <T>(
  what: string,
  done: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 10_000, everyMs = 100, detail }: UntilOptions = {},
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await done();
    if (v !== undefined && v !== false) return v;
    if (Date.now() >= deadline)
      throw new Error(`${what}: not reached in ${timeoutMs} ms${detail ? `; ${await detail()}` : ''}`);
    await pause(Math.max(0, Math.min(everyMs, deadline - Date.now())));
  }
};
