// The run side of an environment park (seed 003, issue 18): a worker that ended on an environment
// failure (the model endpoint down, a spend limit) parks the run instead of being dispatched afresh
// every reconcile; the park waits with capped exponential backoff, or until the reset time the tool
// printed; when it is due, the budget probe (for a limit, where one is configured) or the tool itself
// (the interrupted sessions resumed, `--continue`) says whether the endpoint is back. Nobody's issue is
// charged. A budget probe that says park is a park too: probed again when due, resumed when it allows.
// Runs under the run lock before each blitz pass; the decisions are plan/environment-park.ts's.
import {
  afterProbe,
  backoffSeconds,
  defaultEnvironmentBackoff,
  type EnvironmentBackoff,
  type EnvironmentPark,
  parkOnEnvironmentFailure,
  parkSentence,
  probeDue,
} from '../plan/environment-park.ts';
import type { RunState } from '../plan/states.ts';
import { environmentProblem, resetAtOfSummary } from '../runner/failure-class.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { parkedNotice } from '../ship/notice-builders.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { BudgetProbe } from './budget-probe.ts';
import type { Ports } from './context.ts';
import { onAttemptHost } from './dispatcher.ts';
import { noticeBaseOf, sendRunNotice } from './run-notice.ts';
import { attemptKey } from './run-progress.ts';
import { markPosted, writeRun } from './run-writer.ts';

/** The park as the run keeps it: the pure park plus what the executor tracks around it. */
export type RunPark = EnvironmentPark & {
  kind: 'environment' | 'budget';
  /** When the interrupted sessions were resumed to probe the endpoint (ISO); absent while waiting. */
  probingSince?: string;
};

/** Environment failures already folded into a park (or judged), as `attemptId@endedAt`. */
const seenKey = (a: AttemptRecord): string => `${a.id}@${a.endedAt ?? ''}`;
const maxSeen = 200;

const active: RunState[] = ['planning', 'running', 'integrating', 'gating', 'shipping'];

/** The environment failures of the run no park has seen: the latest attempt of its issue only. */
const freshFailures = (attempts: readonly AttemptRecord[], seen: ReadonlySet<string>): AttemptRecord[] => {
  const latest = new Map<string, AttemptRecord>();
  for (const a of attempts) latest.set(attemptKey(a), a);
  return [...latest.values()].filter(
    (a) => a.outcome === 'environment_failure' && !seen.has(seenKey(a)) && isOutage(a),
  );
};

/**
 * An outage or a limit the worker's own output named (the supervisor's `Environment failure: …`),
 * which passes by itself. A missing binary or a full disk needs a person; a setup failure or a lost
 * runner is not the endpoint's: those are dispatched again as before.
 */
const isOutage = (a: AttemptRecord): boolean => {
  if (!(a.failureSummary ?? '').startsWith('Environment failure:')) return false;
  const what = reasonOf(a);
  return what !== 'agent binary missing' && what !== 'disk full';
};

const reasonOf = (a: AttemptRecord): string => {
  const summary = a.failureSummary ?? '';
  return (
    environmentProblem(summary) ??
    /Environment failure: ([^(.]+)/.exec(summary)?.[1]?.trim() ??
    'environment failure'
  );
};

/** What tending a park uses; `probe` is the run loop's shared budget probe. */
export type ParkPorts = Ports<
  'clock' | 'config' | 'dispatcher' | 'ledger' | 'logger' | 'notifiers' | 'runner' | 'store'
> & { probe: BudgetProbe };

const policyOf = (deps: Ports<'config'>): EnvironmentBackoff =>
  deps.config.runner.environmentBackoff ?? defaultEnvironmentBackoff;

const sendParked = async (deps: ParkPorts, run: RunRecord, park: RunPark): Promise<void> => {
  // One notice per park: the key is the park's start.
  const { first } = await markPosted(deps.store, run.id, `notice:parked:${park.since}`);
  if (!first) return;
  await sendRunNotice(deps, parkedNotice(await noticeBaseOf(deps, run), parkSentence(park), park.resetAt));
};

const writePark = async (
  deps: Ports<'store'>,
  runId: string,
  park: RunPark | undefined,
  o: { seen?: string[]; state?: 'paused' | 'resume' } = {},
): Promise<RunRecord> =>
  writeRun(deps.store, runId, (now) => {
    const { park: _old, ...rest } = now.progress;
    const progress = {
      ...rest,
      ...(park ? { park, reason: parkSentence(park) } : {}),
      ...(o.seen ? { environmentSeen: o.seen.slice(-maxSeen) } : {}),
    };
    if (!park && now.progress.park && progress.reason === parkSentence(now.progress.park))
      delete progress.reason;
    if (o.state === 'paused' && now.state !== 'paused')
      return {
        state: 'paused',
        progress: { ...progress, pausedFrom: active.includes(now.state) ? now.state : 'running' },
      };
    if (o.state === 'resume' && now.state === 'paused')
      return { state: now.progress.pausedFrom ?? 'running', progress };
    return { progress };
  });

/** Resumes the interrupted attempts that are still the latest of their issue and still ended. */
const resumeInterrupted = async (deps: ParkPorts, run: RunRecord, park: RunPark): Promise<number> => {
  const attempts = await deps.ledger.listByRun(run.id);
  const latest = new Map<string, AttemptRecord>();
  for (const a of attempts) latest.set(attemptKey(a), a);
  let resumed = 0;
  for (const id of park.interrupted) {
    const a = attempts.find((x) => x.id === id);
    if (!a || latest.get(attemptKey(a))?.id !== id || a.outcome !== 'environment_failure') continue;
    try {
      await onAttemptHost(deps, { kind: 'resume', attemptId: a.id, reason: 'interrupted' }, [a]);
      resumed++;
    } catch (err) {
      // A session that cannot be resumed (it never started) is dispatched afresh once the park lifts.
      deps.logger.warn({ runId: run.id, attemptId: a.id, err }, 'interrupted attempt not resumed');
    }
  }
  return resumed;
};

/** Asks the budget probe afresh: true when it allows work, undefined when none is configured or it failed. */
const budgetAllows = async (deps: ParkPorts, runId: string): Promise<boolean | undefined> => {
  const r = await deps.probe(runId, { fresh: true }).catch(() => undefined);
  if (r?.status !== 'ok') return undefined;
  return !r.park && r.recommendedMaxSessions > 0;
};

/**
 * One look at the run's park before a blitz pass: park on a fresh environment failure, probe when due,
 * resume when the probe allows, lift the park once the endpoint answered. Never throws into the pass.
 */
export const tendEnvironmentPark = async (deps: ParkPorts, runId: string): Promise<void> => {
  let run = await deps.store.getRun(runId);
  if (run?.kind !== 'blitz' || run.state === 'done' || run.state === 'cancelled') return;
  const now = deps.clock.now();
  const policy = policyOf(deps);
  let park: RunPark | undefined = run.progress.park;
  const seen = new Set(run.progress.environmentSeen ?? []);
  const fresh = freshFailures(await deps.ledger.listByRun(runId), seen);

  // A budget park the planner stopped on (the probe said park, nothing running) becomes a park too.
  if (
    !park &&
    run.state === 'paused' &&
    run.progress.budget?.status === 'ok' &&
    run.progress.budget.park &&
    run.progress.reason?.startsWith('the budget probe says park')
  ) {
    park = {
      kind: 'budget',
      reason: 'the budget probe says park',
      since: now.toISOString(),
      failures: 1,
      interrupted: [],
      nextProbeAt: new Date(now.getTime() + backoffSeconds(1, policy) * 1000).toISOString(),
      ...(run.progress.budget.resetAt ? parkResetAt(run.progress.budget.resetAt, now) : {}),
    };
    run = await writePark(deps, runId, park);
    await sendParked(deps, run, park);
    return;
  }

  if (fresh.length > 0) {
    const before = park;
    for (const a of fresh) {
      const failure = {
        reason: reasonOf(a),
        at: now,
        attemptId: a.id,
        ...(resetAtOfSummary(a.failureSummary) ? { resetAt: resetAtOfSummary(a.failureSummary)! } : {}),
      };
      if (park?.probingSince !== undefined) {
        // The probe (the resumed session) met the same outage: the park goes on, waiting longer.
        const { probingSince: _p, ...waiting } = park;
        const next = afterProbe(waiting, { up: false, at: now }, policy);
        const after: RunPark = next.resume ? waiting : { ...next.park, kind: park.kind };
        park = { ...parkOnEnvironmentFailure(after, failure, policy), kind: park.kind };
      } else {
        park = { ...parkOnEnvironmentFailure(park, failure, policy), kind: park?.kind ?? 'environment' };
      }
      seen.add(seenKey(a));
    }
    run = await writePark(deps, runId, park, { seen: [...seen], state: 'paused' });
    deps.logger.info({ runId, park }, before ? 'run still parked' : 'run parked on an environment failure');
    if (!before) await sendParked(deps, run, park!);
    return;
  }
  if (!park) return;

  if (park.probingSince !== undefined) {
    // The resumed sessions met no outage for a whole first wait: the endpoint is back, the park lifts.
    const attempts = await deps.ledger.listByRun(runId);
    const answered = park.interrupted.some((id) => {
      const a = attempts.find((x) => x.id === id);
      return a?.outcome !== undefined && a.outcome !== 'environment_failure';
    });
    const quiet = now.getTime() - Date.parse(park.probingSince) >= policy.initialSeconds * 1000;
    if (answered || quiet) {
      await writePark(deps, runId, undefined, { state: 'resume' });
      deps.logger.info({ runId }, 'environment park lifted: the endpoint answers');
    }
    return;
  }

  // Due, or a person resumed the run by hand: probe now.
  if (!probeDue(park, now) && run.state === 'paused') return;
  const allows = await budgetAllows(deps, runId);
  if (park.kind === 'budget' || (allows !== undefined && park.reason === 'provider limit reached')) {
    if (allows === false) {
      const next = afterProbe(park, { up: false, at: now }, policy);
      if (!next.resume) await writePark(deps, runId, { ...next.park, kind: park.kind });
      return;
    }
    if (park.kind === 'budget') {
      await writePark(deps, runId, undefined, { state: 'resume' });
      deps.logger.info({ runId }, 'budget park lifted: the probe allows work');
      return;
    }
  }
  // The tool itself is the probe: the interrupted sessions go on where they stopped.
  const resumed = await resumeInterrupted(deps, run, park);
  await writePark(deps, runId, resumed > 0 ? { ...park, probingSince: now.toISOString() } : undefined, {
    state: 'resume',
  });
  deps.logger.info(
    { runId, resumed },
    'parked run resumed: probing the endpoint with the interrupted sessions',
  );
};

/** A reset time the probe named, believed only within the park's bounds. */
const parkResetAt = (resetAt: string, now: Date): { resetAt: string; nextProbeAt: string } | object => {
  const at = Date.parse(resetAt);
  if (!(at > now.getTime()) || at - now.getTime() > 8 * 24 * 3600_000) return {};
  return { resetAt: new Date(at).toISOString(), nextProbeAt: new Date(at + 30_000).toISOString() };
};
