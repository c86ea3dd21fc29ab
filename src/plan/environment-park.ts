// An environment failure (the model endpoint down, a spend limit) parks the run instead of charging
// the issue (seed 003): the run waits with exponential backoff, capped, or until the reset time the
// tool printed, then a probe (the tool's own cheap call, or the budget probe) says whether to resume.
// Plain data in, plain data out: the orchestrator keeps the park in the run's progress.

export interface EnvironmentBackoff {
  /** Wait before the first probe. */
  initialSeconds: number;
  /** The longest wait between probes; the wait doubles up to here. */
  maxSeconds: number;
}

export const defaultEnvironmentBackoff: EnvironmentBackoff = { initialSeconds: 60, maxSeconds: 3600 };

/** A reset time further than this is not waited for (a garbled or hostile report): the backoff applies. */
export const MAX_RESET_WAIT_SECONDS = 8 * 24 * 3600;
/** After a printed reset, wait this much more: the provider's clock and ours differ a little. */
export const RESET_GRACE_SECONDS = 30;

/**
 * What kind of environment failure parked a run or a roster entry: what the planner matches on (a
 * limit asks the budget probe; the words for people are made from it, `causeWords`).
 */
export const environmentCauses = [
  'endpoint_unreachable',
  'endpoint_overloaded',
  'provider_limit',
  'disk_full',
  'tool_missing',
  'other',
] as const;
export type EnvironmentCause = (typeof environmentCauses)[number];

/** The words a person reads for a cause. */
export const causeWords: Record<EnvironmentCause, string> = {
  endpoint_unreachable: 'model endpoint unreachable',
  endpoint_overloaded: 'model endpoint overloaded',
  provider_limit: 'provider limit reached',
  disk_full: 'disk full',
  tool_missing: 'agent binary missing',
  other: 'environment failure',
};

export interface EnvironmentPark {
  /** What failed, in words (`provider limit reached`, `model endpoint unreachable`); made from `cause`. */
  reason: string;
  /** What failed, as the planner matches it; absent on a park kept from before causes were typed. */
  cause?: EnvironmentCause;
  /** When the run parked (ISO). */
  since: string;
  /** Failures in a row: the failed attempt, then each probe that found the endpoint still down. */
  failures: number;
  /** When to probe next (ISO). */
  nextProbeAt: string;
  /** When the tool said the limit lifts (ISO), if it said. */
  resetAt?: string;
  /** The attempts interrupted by the failure: resumed (`--continue`), not started over, and not charged. */
  interrupted: string[];
}

/** Seconds to wait after the n-th failure in a row (n ≥ 1): initial · 2^(n-1), at most max. */
export const backoffSeconds = (failures: number, policy: EnvironmentBackoff): number => {
  const n = Math.max(1, Math.floor(failures));
  const initial = Math.max(1, policy.initialSeconds);
  const max = Math.max(initial, policy.maxSeconds);
  // 2^40 seconds is past any cap: stop doubling before the number stops being exact.
  return Math.min(max, initial * 2 ** Math.min(n - 1, 40));
};

const iso = (ms: number): string => new Date(ms).toISOString();

const nextProbe = (
  nowMs: number,
  failures: number,
  policy: EnvironmentBackoff,
  resetAt: string | undefined,
): { nextProbeAt: string; resetAt?: string } => {
  const backoff = nowMs + backoffSeconds(failures, policy) * 1000;
  const reset = resetAt === undefined ? Number.NaN : Date.parse(resetAt);
  const believable = reset > nowMs && reset - nowMs <= MAX_RESET_WAIT_SECONDS * 1000;
  if (!believable) return { nextProbeAt: iso(backoff) };
  // No point probing before a limit the tool named has lifted; none in waiting past it either.
  return { nextProbeAt: iso(reset + RESET_GRACE_SECONDS * 1000), resetAt: iso(reset) };
};

export interface EnvironmentFailure {
  reason: string;
  cause?: EnvironmentCause;
  at: Date;
  attemptId: string;
  /** ISO, from the attempt's typed cause (`failureCause.resetAt`). */
  resetAt?: string;
}

/** The park after an environment failure: a new one, or the current one with the attempt added. */
export const parkOnEnvironmentFailure = (
  current: EnvironmentPark | undefined,
  failure: EnvironmentFailure,
  policy: EnvironmentBackoff,
): EnvironmentPark => {
  const nowMs = failure.at.getTime();
  const interrupted = [...new Set([...(current?.interrupted ?? []), failure.attemptId])];
  if (current) {
    // A second worker hitting the same outage is the same park: it does not double the wait again.
    const later = failure.resetAt && (!current.resetAt || failure.resetAt > current.resetAt);
    return {
      ...current,
      interrupted,
      ...(later ? nextProbe(nowMs, current.failures, policy, failure.resetAt) : {}),
    };
  }
  return {
    reason: failure.reason,
    ...(failure.cause ? { cause: failure.cause } : {}),
    since: iso(nowMs),
    failures: 1,
    interrupted,
    ...nextProbe(nowMs, 1, policy, failure.resetAt),
  };
};

/** True when the park's wait is over and the probe should run. */
export const probeDue = (park: EnvironmentPark, now: Date): boolean =>
  now.getTime() >= Date.parse(park.nextProbeAt);

export type ProbeOutcome =
  /** The endpoint answers: resume the interrupted attempts in their own sessions. */
  { resume: true; interrupted: string[]; downSeconds: number } | { resume: false; park: EnvironmentPark };

/** After a probe: resume when it found the endpoint back, else park again with a longer wait. */
export const afterProbe = (
  park: EnvironmentPark,
  probe: { up: boolean; at: Date },
  policy: EnvironmentBackoff,
): ProbeOutcome => {
  const nowMs = probe.at.getTime();
  if (probe.up) {
    return {
      resume: true,
      interrupted: park.interrupted,
      downSeconds: Math.max(0, Math.round((nowMs - Date.parse(park.since)) / 1000)),
    };
  }
  const failures = park.failures + 1;
  const stillAhead = park.resetAt && Date.parse(park.resetAt) > nowMs ? park.resetAt : undefined;
  const { resetAt: _old, ...rest } = park;
  return { resume: false, park: { ...rest, failures, ...nextProbe(nowMs, failures, policy, stillAhead) } };
};

/** An ISO time as a person reads it on the dashboard: `2026-12-01 15:00 UTC`. */
export const clock = (isoTime: string): string => `${isoTime.slice(0, 16).replace('T', ' ')} UTC`;

/**
 * Why a run of any kind stops on the budget probe's park: when the limit lifts, if the probe said, and that
 * nobody has to resume it (plan/park.ts lifts the park once the probe allows work).
 */
export const budgetParkReason = (budget: { resetAt?: string }): string =>
  `the budget probe says park${budget.resetAt ? ` until ${clock(budget.resetAt)}` : ''}; the run goes on by itself once the probe allows work`;

/** The dashboard's and the notification's one sentence for a park. */
export const parkSentence = (park: EnvironmentPark): string =>
  park.resetAt
    ? `${park.reason}; the tool says it resets at ${clock(park.resetAt)}, and the run resumes by itself after that (no issue is charged)`
    : `${park.reason}; the run is parked and checks again at ${clock(park.nextProbeAt)} (check ${park.failures}, waits double up to the cap; no issue is charged)`;

/** The park as the run keeps it: the pure park, what parked it, and when its probe started. */
export type RunPark = EnvironmentPark & {
  kind: 'environment' | 'budget';
  /** The endpoints (entry-park.ts `endpointOf`) whose failures parked the run: no work goes to them meanwhile. */
  endpoints?: string[];
  /** When the interrupted sessions were resumed to probe the endpoint (ISO); absent while waiting. */
  probingSince?: string;
};
