// The forge's request budget as the bot last saw it, per installation and resource (GitHub's
// `x-ratelimit-*` headers: core, graphql …), plus the content-creating writes of the last hour (GitHub's
// secondary limit: 80 a minute, 500 an hour), and the pure `pace` decision that turns them into "how
// much to slow down and why": fewer sessions and a longer reconcile interval before a limit is hit,
// with one line for the dashboard. The tracker only records; the caller decides what to do with pace.

export interface RateWindow {
  limit: number;
  remaining: number;
  /** When the window resets (ms since epoch). */
  resetAt: number;
  /** When the bot last heard (ms since epoch). */
  seenAt: number;
}

export interface BudgetSnapshot {
  /** `github:123` (installation) or `gitea`. */
  key: string;
  /** core, graphql, search …, as the forge names them. */
  resources: Record<string, RateWindow>;
  /** Content-creating requests (POST/PATCH/PUT/DELETE) in the last minute and the last hour. */
  writesLastMinute: number;
  writesLastHour: number;
  /** The forge refused a request with a rate limit and asked to wait (Retry-After): until when, and the answer. */
  refused?: Refusal | undefined;
}

/** A rate-limit refusal (HTTP 429, or 403 with Retry-After): the forge's own word that it wants a pause. */
export interface Refusal {
  /** When the forge said it may be asked again (ms since epoch). */
  until: number;
  retryAfterSeconds: number;
  /** Primary (the window's budget spent) or secondary (GitHub's limits on bursts and writes). */
  limit: 'primary' | 'secondary';
}

/** GitHub's documented secondary limits for content-creating requests. */
export const secondaryLimits = { perMinute: 80, perHour: 500 } as const;

export interface PaceInput {
  now: number;
  windows: Record<string, RateWindow | undefined>;
  writesLastMinute: number;
  writesLastHour: number;
  /** The last rate-limit refusal, if any; one whose time has passed is ignored. */
  refused?: Refusal | undefined;
}

export interface Pace {
  /** 1 = full speed; 0.5 = half the sessions; 0 = start no new session until `until`. */
  sessionFactor: number;
  /** Multiply the reconcile interval by this (≥ 1). */
  intervalFactor: number;
  /** When the slowdown can lift (ms since epoch), if it waits on a reset. */
  until?: number;
  /** One line for the dashboard; empty at full speed. */
  reason: string;
}

export const fullSpeed: Pace = { sessionFactor: 1, intervalFactor: 1, reason: '' };

// Rounded, not ceiled: a reset given in whole seconds is up to a second past an hour away.
const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

/**
 * How much to slow down. Per primary window: the share of the budget left against the share of the
 * window left; spending faster than the window refills (left share < time share) slows in proportion,
 * below 10 % of the budget the run starts no new session until the reset, a stale window (reset
 * passed) counts as full. Secondary: past 75 % of either write limit the run halves; at the limit it waits.
 * A refusal (the forge answered 429, or 403 with Retry-After: a limit the headers did not foretell, such
 * as the secondary limit on concurrent or CPU-heavy requests) holds new sessions until its Retry-After.
 * The most severe of all reasons wins.
 */
export const pace = (input: PaceInput): Pace => {
  const candidates: Pace[] = [];
  for (const [resource, w] of Object.entries(input.windows)) {
    if (!w || w.limit <= 0 || w.resetAt <= input.now) continue;
    const left = w.remaining / w.limit;
    const windowMs = 3_600_000;
    const timeLeft = Math.min(1, (w.resetAt - input.now) / windowMs);
    if (left < 0.1) {
      candidates.push({
        sessionFactor: 0,
        intervalFactor: 4,
        until: w.resetAt,
        reason: `${resource} rate limit nearly spent (${w.remaining}/${w.limit}): no new sessions until it resets in ${minutes(w.resetAt - input.now)} min`,
      });
    } else if (left < timeLeft) {
      const factor = Math.max(0.25, left / timeLeft);
      candidates.push({
        sessionFactor: round2(factor),
        intervalFactor: round2(1 / factor),
        until: w.resetAt,
        reason: `${resource} rate limit spent faster than it refills (${w.remaining}/${w.limit}, resets in ${minutes(w.resetAt - input.now)} min): running at ${Math.round(factor * 100)} %`,
      });
    }
  }
  const r = input.refused;
  if (r && r.until > input.now)
    candidates.push({
      sessionFactor: 0,
      intervalFactor: 4,
      until: r.until,
      reason: `the forge refused a request at its ${r.limit} rate limit (retry after ${r.retryAfterSeconds} s): no new sessions until it lifts in ${minutes(r.until - input.now)} min`,
    });
  const { perMinute, perHour } = secondaryLimits;
  if (input.writesLastMinute >= perMinute || input.writesLastHour >= perHour) {
    const hour = input.writesLastHour >= perHour;
    candidates.push({
      sessionFactor: 0,
      intervalFactor: 4,
      until: input.now + (hour ? 3_600_000 : 60_000),
      reason: `content-creating requests at GitHub's secondary limit (${hour ? `${input.writesLastHour}/${perHour} this hour` : `${input.writesLastMinute}/${perMinute} this minute`}): no new sessions for ${hour ? 'up to an hour' : 'a minute'}`,
    });
  } else if (input.writesLastMinute >= perMinute * 0.75 || input.writesLastHour >= perHour * 0.75) {
    candidates.push({
      sessionFactor: 0.5,
      intervalFactor: 2,
      reason: `content-creating requests near GitHub's secondary limit (${input.writesLastMinute}/${perMinute} a minute, ${input.writesLastHour}/${perHour} an hour): half the sessions`,
    });
  }
  return candidates.reduce(
    (worst, c) =>
      c.sessionFactor < worst.sessionFactor ||
      (c.sessionFactor === worst.sessionFactor && c.intervalFactor > worst.intervalFactor)
        ? c
        : worst,
    fullSpeed,
  );
};

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The pace a run on this budget key keeps: GitHub's (its x-ratelimit windows and its secondary limit on
 * writes); Gitea sends no rate limit by default and has no secondary one, so a Gitea run keeps full speed.
 */
export const paceFor = (tracker: Pick<BudgetTracker, 'paceOf'>, key: string): Pace =>
  key === 'github' || key.startsWith('github:') ? tracker.paceOf(key) : fullSpeed;

/** Sessions allowed under a pace: at least one unless the pace says zero. */
export const pacedSessions = (max: number, p: Pace): number =>
  p.sessionFactor <= 0 ? 0 : Math.max(1, Math.floor(max * p.sessionFactor));

/** What a forge client tells about one request (the request hook's report). */
export interface ObservedRequest {
  method?: string | undefined;
  status?: number | undefined;
  /** `x-ratelimit-*` headers, lower-cased. */
  rateHeaders?: Record<string, string> | undefined;
  /** A GraphQL mutation: a write, though GraphQL reads are POSTs too. */
  mutation?: boolean | undefined;
  /** How long the forge asked to wait (seconds) when it refused the request at a rate limit (429, 403). */
  retryAfter?: number | undefined;
  /** Which limit refused it, when the client knows (GitHub: remaining 0 is the primary one). */
  limit?: 'primary' | 'secondary' | undefined;
}

/** The budget key of a forge connection: `github:<installation>` (or `github` with a token), `gitea`. */
export const budgetKey = (forge: string, installationId?: number): string =>
  installationId === undefined ? forge : `${forge}:${installationId}`;

/** Everything the forges told about their budgets, per key; the status page and the orchestrator read it. */
export interface BudgetTracker {
  observe(key: string, r: ObservedRequest): void;
  snapshot(key: string): BudgetSnapshot | undefined;
  all(): BudgetSnapshot[];
  /** pace() over one key's budget now. */
  paceOf(key: string): Pace;
}

const header = (h: ObservedRequest['rateHeaders'], name: string): number | undefined => {
  const v = h?.[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

export const createBudgetTracker = (clock: { now(): number } = { now: () => Date.now() }): BudgetTracker => {
  const keys = new Map<
    string,
    { resources: Record<string, RateWindow>; writes: number[]; refused?: Refusal | undefined }
  >();
  const entry = (key: string) => {
    let e = keys.get(key);
    if (!e) {
      e = { resources: {}, writes: [] };
      keys.set(key, e);
    }
    return e;
  };
  const prune = (writes: number[], now: number) => {
    while (writes.length && writes[0]! <= now - 3_600_000) writes.shift();
  };
  const snapshotOf = (key: string): BudgetSnapshot | undefined => {
    const e = keys.get(key);
    if (!e) return undefined;
    const now = clock.now();
    prune(e.writes, now);
    return {
      key,
      resources: { ...e.resources },
      writesLastMinute: e.writes.filter((t) => t > now - 60_000).length,
      writesLastHour: e.writes.length,
      ...(e.refused && e.refused.until > now ? { refused: e.refused } : {}),
    };
  };
  return {
    observe(key, r) {
      const e = entry(key);
      const now = clock.now();
      const method = (r.method ?? 'GET').toUpperCase();
      // GraphQL reads are POSTs too: REST writes and GraphQL mutations that succeeded count as
      // content-creating here.
      const graphql = (r.rateHeaders?.['x-ratelimit-resource'] ?? '') === 'graphql';
      const write = graphql ? r.mutation === true : method !== 'GET' && method !== 'HEAD';
      if (write && r.status !== undefined && r.status < 400) {
        e.writes.push(now);
        prune(e.writes, now);
      }
      // A refusal that names its wait: kept until then (a longer wait wins over a shorter one).
      if (
        (r.limit !== undefined || r.status === 429 || r.status === 403) &&
        r.retryAfter !== undefined &&
        r.retryAfter >= 0
      ) {
        const until = now + r.retryAfter * 1000;
        const limit = r.limit ?? (r.rateHeaders?.['x-ratelimit-remaining'] === '0' ? 'primary' : 'secondary');
        if (!e.refused || until >= e.refused.until)
          e.refused = { until, retryAfterSeconds: r.retryAfter, limit };
      }
      const limit = header(r.rateHeaders, 'x-ratelimit-limit');
      const remaining = header(r.rateHeaders, 'x-ratelimit-remaining');
      const reset = header(r.rateHeaders, 'x-ratelimit-reset');
      if (limit === undefined || remaining === undefined || reset === undefined) return;
      const resource = String(r.rateHeaders?.['x-ratelimit-resource'] ?? 'core');
      e.resources[resource] = { limit, remaining, resetAt: reset * 1000, seenAt: now };
    },
    snapshot: snapshotOf,
    all: () => [...keys.keys()].sort().map((k) => snapshotOf(k)!),
    paceOf(key) {
      const s = snapshotOf(key);
      if (!s) return fullSpeed;
      return pace({
        now: clock.now(),
        windows: s.resources,
        writesLastMinute: s.writesLastMinute,
        writesLastHour: s.writesLastHour,
        refused: s.refused,
      });
    },
  };
};
