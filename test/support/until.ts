// The waits of the tests. `until` polls what another process does (a spawned bot, a runner, a worker,
// a database seen from outside) until it gives a value, bounded, and names what it waited for when it
// gives up. `roundsUntil` drives an in-process bot round by round instead: the next round starts on
// runner progress (runner-progress.ts), so it waits on events, not on a timer.
import { PROGRESS_MS, runnerProgress } from './runner-progress.ts';

export interface UntilOptions {
  /** How long before giving up (ms). */
  timeoutMs?: number;
  /** How long between two looks (ms). */
  everyMs?: number;
  /** What the error adds when it gives up: the state the wait saw last, in words. */
  detail?: () => string | Promise<string>;
}

type Look<T> = () => T | undefined | false | Promise<T | undefined | false>;

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves with the first value `done` gives that is neither `undefined` nor `false` (so a boolean
 * check resolves `true`, a lookup its find); throws `what: not reached in N ms` past the timeout.
 */
export const until = async <T>(
  what: string,
  done: Look<T>,
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

/**
 * Runs `round` (a runner tick, a cron tick, the forge's webhooks …) until `done` gives a value, as
 * `until` does; real worker processes run in between, and the next round starts when a runner made
 * progress, at the latest after PROGRESS_MS (what no runner event reports is looked at again then).
 */
export const roundsUntil = <T>(
  what: string,
  round: () => Promise<void>,
  done: Look<T>,
  { timeoutMs = 120_000, detail }: Omit<UntilOptions, 'everyMs'> = {},
): Promise<T> =>
  until(
    what,
    async () => {
      const seen = runnerProgress.seen();
      await round();
      const v = await done();
      if (v === undefined || v === false) await runnerProgress.after(seen, PROGRESS_MS);
      return v;
    },
    { timeoutMs, everyMs: 0, detail },
  );
