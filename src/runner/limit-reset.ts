// When a spend or plan limit lifts, read from what the agent CLI printed (seed 003: an outage is the
// host's fault, and a limit that names its reset lets the run sleep exactly that long). The forms are
// the tools' own: claude's `Claude AI usage limit reached|<epoch>` result and its stream-json
// `rate_limit_event` (`status: rejected`, `resetsAt`), its newer `… · resets 8:20pm (Asia/Singapore)`;
// codex's `… or try again at 3:04 PM.` / `Try again at Oct 9th, 2025 3:04 PM.` (the host's local
// time); the providers' `Please try again in 7m12s` that opencode and aider pass through. The text is
// a worker's log, so the answer is only a time: bounded, and never used as anything else.

export interface LimitReset {
  resetAt: Date;
  /** The words the time was read from, trimmed, for the dashboard. */
  text: string;
}

export interface ResetContext {
  now: Date;
  /** IANA zone for clock times that name none (codex prints the host's local time). Default: the host's. */
  timeZone?: string;
}

/** A reset further away than this is not believed (a garbled number, a hostile log). */
export const MAX_RESET_AHEAD_MS = 31 * 24 * 3600_000;
const LINES_READ = 60;

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const validZone = (zone: string | undefined): string | undefined => {
  if (!zone) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return undefined;
  }
};

const hostZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The zone's wall clock at `instant`, as if it were UTC (so subtracting gives the offset). */
const wallAsUtc = (instant: number, zone: string): number => {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
};

/** The instant at which `zone`'s clock shows this date and time. */
export const zonedTime = (
  y: number,
  month: number,
  d: number,
  h: number,
  min: number,
  zone: string,
): Date => {
  const guess = Date.UTC(y, month, d, h, min);
  let t = guess - (wallAsUtc(guess, zone) - guess);
  // Once more, for a guess on the other side of a daylight-saving change.
  t = guess - (wallAsUtc(t, zone) - t);
  return new Date(t);
};

/** `3pm`, `3:04 PM`, `8:20pm`, `15:30` → hours and minutes; undefined when it is no clock time. */
const readClock = (text: string): { h: number; min: number } | undefined => {
  const m = /^(\d{1,2})(?::(\d{2}))?\s*(?:([ap])\.?m\.?)?$/i.exec(text.trim());
  if (!m) return undefined;
  let h = Number(m[1]);
  const min = m[2] === undefined ? 0 : Number(m[2]);
  const half = m[3]?.toLowerCase();
  if (half === undefined && m[2] === undefined) return undefined;
  if (min > 59) return undefined;
  if (half) {
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (half === 'p' ? 12 : 0);
  } else if (h > 23) return undefined;
  return { h, min };
};

const clockPattern = String.raw`\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?`;
const datePattern = String.raw`([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?`;

/** A clock time (with an optional date) in a zone, as the next such instant after `now` when no date is given. */
const atClock = (
  clock: string,
  date: { month: string; day: string; year?: string } | undefined,
  zone: string,
  now: Date,
): Date | undefined => {
  const c = readClock(clock);
  if (!c) return undefined;
  const today = new Date(wallAsUtc(now.getTime(), zone));
  if (date) {
    const month = months.indexOf(date.month.toLowerCase());
    if (month < 0) return undefined;
    const year = date.year ? Number(date.year) : today.getUTCFullYear();
    let at = zonedTime(year, month, Number(date.day), c.h, c.min, zone);
    // "Jan 2" printed in late December is next year's.
    if (!date.year && at.getTime() < now.getTime() - 24 * 3600_000)
      at = zonedTime(year + 1, month, Number(date.day), c.h, c.min, zone);
    return at;
  }
  const at = zonedTime(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), c.h, c.min, zone);
  return at.getTime() > now.getTime() ? at : new Date(at.getTime() + 24 * 3600_000);
};

const units: [RegExp, number][] = [
  [/^(?:ms|milliseconds?)$/, 1],
  [/^(?:s|secs?|seconds?)$/, 1000],
  [/^(?:m|mins?|minutes?)$/, 60_000],
  [/^(?:h|hrs?|hours?)$/, 3600_000],
  [/^(?:d|days?)$/, 86_400_000],
];

/** `2 days 3 hours 4 minutes`, `7m12s`, `1.008s`, `20s`, `6ms` → milliseconds. */
export const readDuration = (text: string): number | undefined => {
  let total = 0;
  let found = false;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const unit = m[2]!.toLowerCase();
    const ms = units.find(([re]) => re.test(unit))?.[1];
    if (ms === undefined) break;
    total += Number(m[1]) * ms;
    found = true;
  }
  return found ? total : undefined;
};

type Reader = (line: string, ctx: Required<ResetContext>) => LimitReset | undefined;

const fromEpoch = (seconds: string, text: string): LimitReset => ({
  resetAt: new Date(Number(seconds) * 1000),
  text,
});

const readers: Reader[] = [
  // claude: `Claude AI usage limit reached|1755772800` (in the result text or on its own).
  (line) => {
    const m = /usage limit reached\|(\d{10})\b/i.exec(line);
    return m ? fromEpoch(m[1]!, 'usage limit reached') : undefined;
  },
  // claude stream-json: {"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":…}}
  (line) => {
    if (!line.includes('rate_limit_event')) return undefined;
    try {
      const ev = JSON.parse(line) as {
        type?: unknown;
        rate_limit_info?: { status?: unknown; resetsAt?: unknown };
      };
      const info = ev.rate_limit_info;
      if (ev.type !== 'rate_limit_event' || info?.status !== 'rejected') return undefined;
      return typeof info.resetsAt === 'number' && Number.isInteger(info.resetsAt)
        ? fromEpoch(String(info.resetsAt), 'rate limit rejected')
        : undefined;
    } catch {
      return undefined;
    }
  },
  // claude: `… · resets 8:20pm (Asia/Singapore)`, `resets Oct 9 at 10am`, `will reset at 3pm (Europe/Paris)`.
  (line, ctx) => {
    const re = new RegExp(
      String.raw`\bresets?\s+(?:at\s+)?(?:${datePattern}\s+at\s+)?(${clockPattern})(?:\s*\(([A-Za-z_]+(?:/[A-Za-z0-9_+-]+){0,2})\))?`,
      'i',
    );
    const m = re.exec(line);
    if (!m) return undefined;
    const zone = validZone(m[5]) ?? ctx.timeZone;
    const date = m[1] ? { month: m[1], day: m[2]!, ...(m[3] ? { year: m[3] } : {}) } : undefined;
    const at = atClock(m[4]!, date, zone, ctx.now);
    return at ? { resetAt: at, text: m[0].trim() } : undefined;
  },
  // codex: `try again at 3:04 PM.` / `Try again at Oct 9th, 2025 3:04 PM.` (host local time).
  (line, ctx) => {
    const re = new RegExp(String.raw`\btry again at\s+(?:${datePattern}\s+)?(${clockPattern})`, 'i');
    const m = re.exec(line);
    if (!m) return undefined;
    const date = m[1] ? { month: m[1], day: m[2]!, ...(m[3] ? { year: m[3] } : {}) } : undefined;
    const at = atClock(m[4]!, date, ctx.timeZone, ctx.now);
    return at ? { resetAt: at, text: m[0].trim() } : undefined;
  },
  // providers: `Please try again in 7m12s.`, `try again in 2 days 3 hours 4 minutes`.
  (line, ctx) => {
    const m = /\btry again in\s+((?:\d+(?:\.\d+)?\s*[a-z]+(?:,?\s+(?:and\s+)?)?){1,4})/i.exec(line);
    if (!m) return undefined;
    const ms = readDuration(m[1]!);
    return ms === undefined ? undefined : { resetAt: new Date(ctx.now.getTime() + ms), text: m[0].trim() };
  },
];

/**
 * The reset time the log's last lines name, the latest mention winning; undefined when none does or
 * when the time is in the past or more than a month ahead.
 */
export const limitResetFrom = (logTail: string, ctx: ResetContext): LimitReset | undefined => {
  const full: Required<ResetContext> = { now: ctx.now, timeZone: validZone(ctx.timeZone) ?? hostZone() };
  const lines = logTail.split('\n').slice(-LINES_READ);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.slice(0, 4000);
    for (const read of readers) {
      const found = read(line, full);
      if (!found || Number.isNaN(found.resetAt.getTime())) continue;
      const ahead = found.resetAt.getTime() - ctx.now.getTime();
      if (ahead <= 0 || ahead > MAX_RESET_AHEAD_MS) continue;
      return { resetAt: found.resetAt, text: found.text.slice(0, 120) };
    }
  }
  return undefined;
};
