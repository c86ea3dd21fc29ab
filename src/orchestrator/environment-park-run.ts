// The run side of an environment park (seed 003, issue 18): what the planner decides a park from
// (`parkViewOf`, read by reconcile's load) and the steps that apply its `park`, `unpark` and
// `probe_park` actions. The decisions are plan/park.ts's; nobody's issue is charged.
import { defaultEnvironmentBackoff, parkSentence, type RunPark } from '../plan/environment-park.ts';
import { attemptKey } from '../plan/issue-progress.ts';
import type { ParkView } from '../plan/snapshot.ts';
import { activeRunStates } from '../plan/states.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import { environmentProblem, resetAtOfSummary } from '../runner/failure-class.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { ProbeResult } from './budget-probe.ts';
import type { Ports } from './context.ts';
import { issuesShippedOf, runNoticeOf, sendRunNotice } from './run-notice.ts';
import { markPosted, writeRun } from './run-writer.ts';

/** Environment failures already folded into a park, as `attemptId@endedAt`. */
const seenKey = (a: AttemptRecord): string => `${a.id}@${a.endedAt ?? ''}`;
const maxSeen = 200;

const latestOfEachIssue = (attempts: readonly AttemptRecord[]): Map<string, AttemptRecord> => {
  const latest = new Map<string, AttemptRecord>();
  for (const a of attempts) latest.set(attemptKey(a), a);
  return latest;
};

/** What failed, in the words of the supervisor's `Environment failure: …` summary. */
const reasonOf = (a: AttemptRecord): string => {
  const summary = a.failureSummary ?? '';
  return (
    environmentProblem(summary) ??
    /Environment failure: ([^(.]+)/.exec(summary)?.[1]?.trim() ??
    'environment failure'
  );
};

/**
 * The park as the planner sees it: the run's park, the environment failures of each issue's latest
 * attempt that the worker's own output named and no park has seen, and the budget probe's answer of
 * this reconcile call (`probe`: absent until it was asked).
 */
export const parkViewOf = (
  deps: Ports<'clock' | 'config'>,
  run: RunRecord,
  attempts: readonly AttemptRecord[],
  probe: ProbeResult | undefined,
): ParkView => {
  const p = run.progress;
  const seen = new Set(p.environmentSeen ?? []);
  const latest = [...latestOfEachIssue(attempts).values()];
  const failures = latest
    .filter(
      (a) =>
        a.outcome === 'environment_failure' &&
        !seen.has(seenKey(a)) &&
        (a.failureSummary ?? '').startsWith('Environment failure:'),
    )
    .map((a) => {
      const resetAt = resetAtOfSummary(a.failureSummary);
      return { attemptId: a.id, seen: seenKey(a), reason: reasonOf(a), ...(resetAt ? { resetAt } : {}) };
    });
  const answered = (p.park?.interrupted ?? []).some((id) => {
    const a = attempts.find((x) => x.id === id);
    return a?.outcome !== undefined && a.outcome !== 'environment_failure';
  });
  const budgetStopped =
    run.state === 'paused' &&
    p.budget?.status === 'ok' &&
    p.budget.park &&
    p.reason?.startsWith('the budget probe says park');
  return {
    now: deps.clock.now().toISOString(),
    policy: deps.config.runner.environmentBackoff ?? defaultEnvironmentBackoff,
    ...(p.park ? { current: p.park } : {}),
    failures,
    answered,
    ...(budgetStopped && p.budget?.status === 'ok'
      ? { budgetStopped: p.budget.resetAt ? { resetAt: p.budget.resetAt } : {} }
      : {}),
    ...(probe?.status === 'ok' ? { probeAllows: !probe.park && probe.recommendedMaxSessions > 0 } : {}),
  };
};

const writePark = (
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
        progress: { ...progress, pausedFrom: activeRunStates.includes(now.state) ? now.state : 'running' },
      };
    if (o.state === 'resume' && now.state === 'paused')
      return { state: now.progress.pausedFrom ?? 'running', progress };
    return { progress };
  });

/** `park`: the run paused on the park; a new park is said once (its key is the park's start). */
export const parkRun = async (
  deps: Ports<'config' | 'logger' | 'notifiers' | 'store'>,
  run: RunRecord,
  a: { park: RunPark; seen: readonly string[]; notice: boolean },
): Promise<RunRecord> => {
  const seen = a.seen.length > 0 ? { seen: [...(run.progress.environmentSeen ?? []), ...a.seen] } : {};
  const parked = await writePark(deps, run.id, a.park, { ...seen, state: 'paused' });
  deps.logger.info({ runId: run.id, park: a.park }, a.notice ? 'run parked' : 'run still parked');
  if (!a.notice) return parked;
  const { first } = await markPosted(deps.store, run.id, `notice:parked:${a.park.since}`);
  if (first)
    await sendRunNotice(
      deps,
      runNoticeOf(parked, 'parked', parkSentence(a.park), {
        command: '/blitz resume',
        issuesShipped: await issuesShippedOf(deps, run.id),
        publicUrl: deps.config.publicUrl,
        ...(a.park.resetAt ? { resetAt: a.park.resetAt } : {}),
      }),
    );
  return parked;
};

/** `unpark`: the park lifts and the run goes on in the state it was paused from. */
export const unparkRun = async (deps: Ports<'logger' | 'store'>, run: RunRecord, reason: string) => {
  const after = await writePark(deps, run.id, undefined, { state: 'resume' });
  deps.logger.info({ runId: run.id, reason }, 'park lifted');
  return after;
};

/**
 * `probe_park`: the interrupted attempts that are still the latest of their issue and still ended go
 * on in their own sessions (the tool is the probe); with none resumed, the park lifts.
 */
export const probeParkedRun = async (
  deps: Ports<'clock' | 'dispatcher' | 'ledger' | 'logger' | 'runner' | 'store'>,
  run: RunRecord,
  park: RunPark,
): Promise<RunRecord> => {
  const attempts = await deps.ledger.listByRun(run.id);
  const latest = latestOfEachIssue(attempts);
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
  const probing = resumed > 0 ? { ...park, probingSince: deps.clock.now().toISOString() } : undefined;
  deps.logger.info(
    { runId: run.id, resumed },
    'parked run resumed: probing the endpoint with the interrupted sessions',
  );
  return writePark(deps, run.id, probing, { state: 'resume' });
};
