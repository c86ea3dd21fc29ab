// When a blitz run parks and when it goes on (seed 003, issue 18): a worker that ended on an outage or
// a spend limit parks the run instead of being dispatched afresh every pass; the park waits (capped
// backoff, or the reset time the tool printed); when it is due, the budget probe (for a limit) or the
// tool itself (the interrupted sessions resumed) says whether the endpoint is back. A budget probe that
// stopped the run on its park is a park too. Pure: `parkViewOf` makes the planner's `ParkView` from the
// run and its attempts, `parkActions` decides; the orchestrator applies the actions
// (runs/environment-park-run.ts).
import type { AttemptRecord, FailureCause } from '../runner/types.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { ProbeAnswer } from './budget.ts';
import {
  type EntryPark,
  endpointOf,
  entryParkStep,
  foldEntryFailures,
  waitingEndpoints,
} from './entry-park.ts';
import {
  afterProbe,
  backoffSeconds,
  causeWords,
  defaultEnvironmentBackoff,
  type EnvironmentBackoff,
  type EnvironmentCause,
  type EnvironmentPark,
  MAX_RESET_WAIT_SECONDS,
  parkOnEnvironmentFailure,
  probeDue,
  RESET_GRACE_SECONDS,
  type RunPark,
} from './environment-park.ts';
import { attemptKey } from './issue-progress.ts';
import type { Action, EnvironmentFailureSeen, ParkView } from './snapshot.ts';
import type { RunState } from './states.ts';

/** Environment failures already folded into a park, as `attemptId@endedAt`. */
const seenKey = (a: AttemptRecord): string => `${a.id}@${a.endedAt ?? ''}`;
/** How many of those a run keeps (`progress.environmentSeen`). */
export const maxSeen = 200;

export const latestOfEachIssue = (attempts: readonly AttemptRecord[]): Map<string, AttemptRecord> => {
  const latest = new Map<string, AttemptRecord>();
  for (const a of attempts) latest.set(attemptKey(a), a);
  return latest;
};

/**
 * What failed, in words for people: the first line of the attempt's `Environment failure: …` summary
 * (a full disk's names its host and path), else the cause's own words. Nothing decides on them.
 */
const reasonOf = (a: AttemptRecord, cause: EnvironmentCause): string =>
  /^Environment failure: (.+?)(?: \(resets at [^)]*\))?\.?$/m.exec(a.failureSummary ?? '')?.[1]?.trim() ??
  causeWords[cause];

/** The environment cause of an attempt that ended on one (parks), or undefined (a missing tool blocks instead). */
const environmentOf = (a: AttemptRecord): Extract<FailureCause, { kind: 'environment' }> | undefined =>
  a.outcome === 'environment_failure' && a.failureCause?.kind === 'environment' ? a.failureCause : undefined;

/** The endpoint the attempt's roster entry (as its job carried it) sends its requests to. */
const endpointOfAttempt = (a: AttemptRecord): string | undefined =>
  a.job?.entry ? endpointOf(a.job.entry) : undefined;

/**
 * The probing endpoints that an attempt started since their probe has answered: it ended on anything
 * but an environment failure or a cancel.
 */
const answeredEndpoints = (
  parks: Record<string, EntryPark> | undefined,
  attempts: readonly AttemptRecord[],
): string[] =>
  Object.entries(parks ?? {})
    .filter(([endpoint, park]) => {
      const since = park.probingSince;
      return (
        since !== undefined &&
        attempts.some(
          (a) =>
            a.startedAt >= since &&
            a.outcome !== undefined &&
            a.outcome !== 'environment_failure' &&
            a.outcome !== 'cancelled' &&
            endpointOfAttempt(a) === endpoint,
        )
      );
    })
    .map(([endpoint]) => endpoint)
    .sort();

/**
 * The park as the planner sees it at `now`: the run's park, the environment failures of each issue's
 * latest attempt that the worker's own output named and no park has seen, whether a probing park's
 * sessions answered and which of them a probe resumes, whether the run stopped on the budget probe's park, and the probe's answer of this
 * reconcile call (`probe`: absent until it was asked).
 */
export const parkViewOf = (
  at: { now: string; policy?: EnvironmentBackoff | undefined },
  run: Pick<RunRecord, 'state' | 'progress'>,
  attempts: readonly AttemptRecord[],
  probe: ProbeAnswer | undefined,
): ParkView => {
  const p = run.progress;
  const seen = new Set(p.environmentSeen ?? []);
  const latest = [...latestOfEachIssue(attempts).values()];
  const failures = latest.flatMap((a) => {
    const env = environmentOf(a);
    if (!env || seen.has(seenKey(a))) return [];
    return [
      {
        attemptId: a.id,
        seen: seenKey(a),
        reason: reasonOf(a, env.cause),
        cause: env.cause,
        ...(env.resetAt ? { resetAt: env.resetAt } : {}),
        issue: attemptKey(a),
        entry: a.rosterEntry,
        ...(endpointOfAttempt(a) ? { endpoint: endpointOfAttempt(a) } : {}),
      },
    ];
  });
  const interrupted = (p.park?.interrupted ?? []).map((id) => attempts.find((x) => x.id === id));
  const answered = interrupted.some((a) => a?.outcome !== undefined && a.outcome !== 'environment_failure');
  // A session a probe can resume: still the latest of its issue, and still ended on the outage.
  const byIssue = latestOfEachIssue(attempts);
  const resumable = interrupted.flatMap((a) =>
    a && byIssue.get(attemptKey(a))?.id === a.id && a.outcome === 'environment_failure' ? [a.id] : [],
  );
  const budgetStopped =
    run.state === 'paused' && p.budget?.status === 'ok' && p.budget.park && p.stopKind === 'budget_park';
  const answeredEntries = answeredEndpoints(p.entryParks, attempts);
  return {
    now: at.now,
    policy: at.policy ?? defaultEnvironmentBackoff,
    ...(p.park ? { current: p.park } : {}),
    failures,
    answered,
    resumable,
    ...(budgetStopped && p.budget?.status === 'ok'
      ? { budgetStopped: p.budget.resetAt ? { resetAt: p.budget.resetAt } : {} }
      : {}),
    ...(probe?.status === 'ok' ? { probeAllows: !probe.park && probe.recommendedMaxSessions > 0 } : {}),
    ...(p.entryParks && Object.keys(p.entryParks).length > 0 ? { entries: p.entryParks } : {}),
    ...(answeredEntries.length > 0 ? { entryAnswered: answeredEntries } : {}),
  };
};

/** A reset time the probe named, believed only within the park's bounds. */
const probeResetAt = (
  resetAt: string | undefined,
  nowMs: number,
): { resetAt?: string; nextProbeAt?: string } => {
  const at = resetAt === undefined ? Number.NaN : Date.parse(resetAt);
  if (!(at > nowMs) || at - nowMs > MAX_RESET_WAIT_SECONDS * 1000) return {};
  return {
    resetAt: new Date(at).toISOString(),
    nextProbeAt: new Date(at + RESET_GRACE_SECONDS * 1000).toISOString(),
  };
};

/** The budget park made of a planner stop on the probe's park. */
const budgetPark = (v: ParkView, resetAt: string | undefined): RunPark => {
  const nowMs = Date.parse(v.now);
  return {
    kind: 'budget',
    reason: 'the budget probe says park',
    since: v.now,
    failures: 1,
    interrupted: [],
    nextProbeAt: new Date(nowMs + backoffSeconds(1, v.policy) * 1000).toISOString(),
    ...probeResetAt(resetAt, nowMs),
  };
};

/** The park with the fresh failures folded in (a probing park met the outage again: it waits longer). */
const foldFailures = (v: ParkView, fresh: readonly EnvironmentFailureSeen[]): RunPark => {
  const at = new Date(v.now);
  let park = v.current;
  for (const f of fresh) {
    const failure = {
      reason: f.reason,
      ...(f.cause ? { cause: f.cause } : {}),
      at,
      attemptId: f.attemptId,
      ...(f.resetAt ? { resetAt: f.resetAt } : {}),
    };
    const endpoints = [...new Set([...(park?.endpoints ?? []), ...(f.endpoint ? [f.endpoint] : [])])].sort();
    const known = endpoints.length > 0 ? { endpoints } : {};
    if (park?.probingSince !== undefined) {
      const { probingSince: _p, kind, ...waiting } = park;
      const next = afterProbe(waiting, { up: false, at }, v.policy);
      const after: EnvironmentPark = next.resume ? waiting : next.park;
      park = { ...parkOnEnvironmentFailure(after, failure, v.policy), kind, ...known };
    } else {
      park = {
        ...parkOnEnvironmentFailure(park, failure, v.policy),
        kind: park?.kind ?? 'environment',
        ...known,
      };
    }
  }
  return park!;
};

/**
 * The park's actions for this pass, or none: park on a fresh environment failure (or on the budget
 * probe's stop), lift it once the probing sessions answered, ask the budget probe when the wait is over
 * (or a person resumed the run), and then lift, wait longer, or resume the interrupted sessions.
 */
/**
 * Whether the issue of an environment failure can go to another roster entry while the endpoints in
 * `parked` (the failure's own among them) take no work: the planner's routing answers it.
 */
export type FailsOver = (f: EnvironmentFailureSeen, parked: ReadonlySet<string>) => boolean;

/**
 * The endpoint park for the first fresh failure whose issue another entry can take: that endpoint's
 * failures of this kind are folded into its park, and the run goes on. Undefined when none can fail over.
 */
const failoverPark = (
  v: ParkView,
  fresh: readonly EnvironmentFailureSeen[],
  failsOver: FailsOver | undefined,
): Action | undefined => {
  if (!failsOver) return undefined;
  const parked = waitingEndpoints(v.entries);
  if (v.current && v.current.probingSince === undefined)
    for (const e of v.current.endpoints ?? []) parked.add(e);
  for (const f of fresh) {
    const endpoint = f.endpoint;
    if (endpoint === undefined) continue;
    const without = new Set([...parked, endpoint]);
    if (!failsOver(f, without)) continue;
    const same = fresh.filter((g) => g.endpoint === endpoint && failsOver(g, without));
    const park = foldEntryFailures(v, v.entries?.[endpoint], same);
    return { type: 'park_entry', endpoint, park, seen: same.map((g) => g.seen) };
  }
  return undefined;
};

/**
 * Whether the run's own ready work can go to an entry now, with these endpoints parked, and the roster
 * entries on an endpoint (for the entry park a lifted run park leaves behind).
 */
export interface OtherEntries {
  canTake(parked: ReadonlySet<string>): boolean;
  entriesOf(endpoint: string): string[];
}

/**
 * An environment run park lifts when another roster entry came back since it parked (its endpoint's
 * park went to probing after the run's began) and the run's work can go to it: first the run park's
 * own endpoints are parked as entries (so routing passes them over), then the run goes on.
 */
const liftForOtherEntry = (v: ParkView, park: RunPark, other: OtherEntries | undefined): Action[] => {
  if (!other || park.kind !== 'environment' || park.probingSince !== undefined) return [];
  const own = park.endpoints ?? [];
  const back = Object.entries(v.entries ?? {}).some(
    ([endpoint, e]) =>
      !own.includes(endpoint) && e.probingSince !== undefined && e.probingSince >= park.since,
  );
  if (!back || !other.canTake(new Set([...waitingEndpoints(v.entries), ...own]))) return [];
  const { endpoints: _e, probingSince: _p, ...rest } = park;
  const left = own.find((e) => v.entries?.[e] === undefined);
  if (left !== undefined)
    return [
      {
        type: 'park_entry',
        endpoint: left,
        park: { ...rest, interrupted: [], entries: other.entriesOf(left) },
        seen: [],
      },
    ];
  return [{ type: 'unpark', reason: 'another roster entry is back and can take the work' }];
};

export const parkActions = (
  runState: RunState,
  v: ParkView | undefined,
  budgetStale: boolean,
  failsOver?: FailsOver,
  other?: OtherEntries,
): Action[] => {
  if (!v) return [];
  const park = v.current;
  if (!park && runState === 'paused' && v.budgetStopped)
    return [{ type: 'park', park: budgetPark(v, v.budgetStopped.resetAt), seen: [], notice: true }];
  // Every environment failure a worker's output named parks: an outage or a limit passes by itself, and
  // a full disk or a binary gone from under the wrapper is told to a person by the park's notice and
  // retried with the park's backoff until it is cured, never re-dispatched every pass (a CLI missing
  // before the start is a blocker instead: tool-blocker.ts). It parks the roster entry's endpoint when
  // another entry can take the issue (provider failover), and the run only when none can.
  const fresh = v.failures;
  if (fresh.length > 0) {
    const over = failoverPark(v, fresh, failsOver);
    if (over) return [over];
    return [{ type: 'park', park: foldFailures(v, fresh), seen: fresh.map((f) => f.seen), notice: !park }];
  }
  const entry = entryParkStep(v.now, v.entries, new Set(v.entryAnswered ?? []), v.policy.maxSeconds);
  if (entry) return [entry];
  if (!park) return [];
  const lift = liftForOtherEntry(v, park, other);
  if (lift.length > 0) return lift;
  if (park.probingSince !== undefined) {
    // The resumed sessions met no outage for a whole first wait: the endpoint is back.
    const quiet = Date.parse(v.now) - Date.parse(park.probingSince) >= v.policy.initialSeconds * 1000;
    return v.answered || quiet ? [{ type: 'unpark', reason: 'the endpoint answers' }] : [];
  }
  // Due, or a person resumed the run by hand: probe now.
  if (!probeDue(park, new Date(v.now)) && runState === 'paused') return [];
  const limit = park.kind === 'budget' || park.cause === 'provider_limit';
  if (limit && budgetStale) return [{ type: 'probe_budget' }];
  if (park.kind === 'budget' || (limit && v.probeAllows !== undefined)) {
    if (v.probeAllows === false) {
      const { kind, probingSince: _p, ...waiting } = park;
      const next = afterProbe(waiting, { up: false, at: new Date(v.now) }, v.policy);
      return next.resume ? [] : [{ type: 'park', park: { ...next.park, kind }, seen: [], notice: false }];
    }
    if (park.kind === 'budget') return [{ type: 'unpark', reason: 'the probe allows work' }];
  }
  // The tool itself is the probe: the interrupted sessions go on where they stopped.
  return [{ type: 'probe_park', park, resume: v.resumable }];
};
