// One clock decides: the bot's. A runner sends its own clock with every request (`x-blitz-runner-clock`);
// the hub takes the difference from its own time of receipt as that runner's offset, and moves every
// time a runner reports (an attempt's launch, start and end) onto the bot's clock by it, so the bot
// never compares its clock with a runner's. A runner's own timeouts and stall checks are durations on
// its own clock, and leases are the queue's (the bot's or the database's), so neither depends on it.
import type { AttemptResult } from './schema.ts';

/** The request header carrying the runner's clock (ISO 8601) when it sent the request. */
export const runnerClockHeader = 'x-blitz-runner-clock';

/** An offset beyond this is shown (status page, runner list) and logged. */
export const skewShownMs = 60_000;

/**
 * Offsets within this are the request's own travel time and ordinary drift: times are kept as the
 * runner wrote them.
 */
export const skewAppliedMs = 5_000;

/** Offsets past a year are a broken clock or a lie: taken as unknown. */
const maxSkewMs = 366 * 24 * 3600 * 1000;

/** The runner's clock minus the bot's at receipt, in ms; undefined when the runner sent none we can read. */
export const clockSkewOf = (header: string | undefined, receivedAt: Date): number | undefined => {
  if (header === undefined || header.length > 40) return undefined;
  const t = Date.parse(header);
  if (Number.isNaN(t)) return undefined;
  const skew = t - receivedAt.getTime();
  return Math.abs(skew) > maxSkewMs ? undefined : skew;
};

/** The offset an attempt's times are moved by: none within `skewAppliedMs`. */
export const appliedSkew = (skewMs: number | undefined): number | undefined =>
  skewMs !== undefined && Math.abs(skewMs) >= skewAppliedMs ? skewMs : undefined;

/** A time the runner wrote, on the bot's clock; kept as written when it cannot be read or no offset is known. */
export const onBotClock = (time: string, skewMs: number | undefined): string => {
  const t = Date.parse(time);
  if (!skewMs || Number.isNaN(t)) return time;
  return new Date(t - skewMs).toISOString();
};

/** A report's times moved onto the bot's clock by the attempt's offset. */
export const resultOnBotClock = (r: AttemptResult, skewMs: number | undefined): AttemptResult =>
  skewMs
    ? {
        ...r,
        launchedAt: onBotClock(r.launchedAt, skewMs),
        startedAt: onBotClock(r.startedAt, skewMs),
        ...(r.endedAt !== undefined ? { endedAt: onBotClock(r.endedAt, skewMs) } : {}),
        // A reset time the runner read off its tool's output, relative to its own clock.
        ...(r.failureCause?.kind === 'environment' && r.failureCause.resetAt !== undefined
          ? { failureCause: { ...r.failureCause, resetAt: onBotClock(r.failureCause.resetAt, skewMs) } }
          : {}),
      }
    : r;

/** "4 min 10 s ahead of the bot's clock", for a page or a log line. */
export const skewWords = (skewMs: number): string => {
  const s = Math.round(Math.abs(skewMs) / 1000);
  const m = Math.floor(s / 60);
  const size = m > 0 ? `${m} min${s % 60 ? ` ${s % 60} s` : ''}` : `${s} s`;
  return `${size} ${skewMs > 0 ? 'ahead of' : 'behind'} the bot's clock`;
};

/** Whether an offset is large enough to show. */
export const skewShown = (skewMs: number | undefined): skewMs is number =>
  skewMs !== undefined && Math.abs(skewMs) > skewShownMs;
