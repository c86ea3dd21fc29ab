// nextActions: given the run's state and a snapshot of the tracker and the store, the ordered list
// of things to do now. Pure and deterministic (the same snapshot in any array order gives the same
// list), and idempotent by design: the orchestrator performs the actions and calls again; report
// and notify actions repeat while their cause lasts, so the orchestrator keys them by content.

import { blockReasonOf } from './block-cause.ts';
import { explain, keysIn } from './classify.ts';
import { runParkOnEntries } from './entry-park.ts';
import { budgetParkReason } from './environment-park.ts';
import { failsOverIn, otherEntriesIn, parkedEndpoints, routeIssue } from './failover.ts';
import { extractFences } from './fences.ts';
import { findingsFirst } from './findings-first.ts';
import { closeGateBlockerActions, fileGateBlockerAction } from './gate-blocker.ts';
import { compareKeys } from './graph.ts';
import { buildActions, pipelineActions } from './integration.ts';
import { noticeActions } from './notices.ts';
import { parkActions } from './park.ts';
import { permissionBlockActions, reportedInsteadNotices } from './permission-block.ts';
import { planRunActions } from './plan-waves.ts';
import { gateOnReview, integrationReviewDue, readinessActions, reviewUnclearActions } from './readiness.ts';
import type { RunContext } from './run-context.ts';
import { buildRunContext, issueRef } from './run-context.ts';
import type { Action, RunSnapshot } from './snapshot.ts';
import type { RunState } from './states.ts';
import { isTerminalRunState } from './states.ts';
import { stop } from './stop.ts';
import { sameStopCause, stuckIssuesOf } from './stop-cause.ts';
import { toolBlockerActions } from './tool-blocker.ts';
import { fleetOrder } from './triage.ts';
import type { IssueKey } from './types.ts';
import type { Caps } from './wave.ts';
import { nextWave, orderForDispatch, sessionCap } from './wave.ts';

const capsOf = (snap: RunSnapshot): Caps => ({
  maxSessions: snap.options.maxSessions,
  budget: snap.budget,
  machineLimit: snap.machine.limit,
  contended: snap.machine.contended,
});

/** The dispatch actions for the ready issues that fit in the free slots now. */
export const dispatchActions = (ctx: RunContext): Action[] => {
  const { snap, graph } = ctx;
  const ready = keysIn(ctx.classified, 'ready');
  const fences = new Map<IssueKey, string[]>();
  for (const k of [...ready, ...ctx.workers]) fences.set(k, extractFences(graph.issues.get(k)!.body));
  let order: { ordered?: IssueKey[]; limit?: number } = {};
  if (snap.kind === 'fleet') {
    // Seed 004: pilot one ticket end to end (to a pushed branch) before the first fan-out.
    const piloted = [...ctx.progress.values()].some((p) => p.branchPushed || p.pr !== undefined);
    if (!piloted && ctx.workers.length > 0) return [];
    order = {
      ordered: fleetOrder(graph.issues, orderForDispatch(graph.issues, ready), new Set(snap.busyRepos ?? [])),
      ...(piloted ? {} : { limit: 1 }),
    };
  } else if ((snap.reviewFindings?.length ?? 0) > 0) {
    // Seed 000 §3.5: what the integration review found goes before any unrelated new issue.
    order = { ordered: findingsFirst(orderForDispatch(graph.issues, ready), new Set(snap.reviewFindings)) };
  }
  const wave = nextWave({
    issues: graph.issues,
    ready,
    running: ctx.workers,
    caps: capsOf(snap),
    fences,
    ...order,
  });
  const usage: Record<string, number> = {};
  for (const p of ctx.progress.values())
    for (const a of p.attempts) usage[a.entry] = (usage[a.entry] ?? 0) + 1;
  const parked = parkedEndpoints(snap.park);
  return wave.flatMap((m): Action[] => {
    const issue = graph.issues.get(m.key)!;
    const attempts = ctx.progress.get(m.key)?.attempts ?? [];
    const worker = routeIssue(snap, issue, { usage, parked });
    // Every entry that could take it is parked: it waits for a park to lift (plan/entry-park.ts).
    if (worker.parked) return [];
    usage[worker.entry.name] = (usage[worker.entry.name] ?? 0) + 1;
    return [{ type: 'dispatch', issue: m.key, attempt: attempts.length + 1, worker, fenceOff: m.fenceOff }];
  });
};

/** Ready issues wait, and every one of them only because the entries that could take it are parked. */
const waitsOnEntries = (ctx: RunContext): boolean => {
  const ready = keysIn(ctx.classified, 'ready');
  const parked = parkedEndpoints(ctx.snap.park);
  if (ready.length === 0 || parked.size === 0) return false;
  return ready.every((k) => routeIssue(ctx.snap, ctx.graph.issues.get(k)!, { usage: {}, parked }).parked);
};

const notReadyReasons = (ctx: RunContext, keys: readonly IssueKey[]): string =>
  keys.map((k) => explain(ctx.classified, k)).join(' ');

/** The run's own work for a snapshot: a plan run's waves (plan-waves.ts), or reports, integration, dispatch and readiness. */
/**
 * A fleet with nothing running whose every open PR waits on a person's `/merge` (seed 004: fleet PRs merge
 * only on a person's word): the people on it are told, once per set of PRs (keyed by content).
 */
const mergeWaitActions = (ctx: RunContext, out: Action[], dispatches: Action[]): Action[] => {
  if (ctx.snap.kind !== 'fleet' || ctx.integrating.length === 0) return [];
  if (ctx.workers.length + ctx.merged.length + dispatches.length > 0) return [];
  if (out.some((a) => a.type === 'review' || a.type === 'merge')) return [];
  const prs = [...ctx.integrating].sort(compareKeys).map((k) => ({ k, p: ctx.progress.get(k) }));
  if (!prs.every(({ p }) => p?.pr && !p.pr.merged && !p.mergeRequested && p.reviewPosted)) return [];
  // `owner/repo#n`: the PR in its ticket's repository, not a number on the fleet's own.
  const prRef = (k: string, n: number) => `${k.slice(0, k.lastIndexOf('#'))}#${n}`;
  const list = prs.map(({ k, p }) => prRef(k, p!.pr!.number)).join(', ');
  // A PR the review leg could not review is named with why: the person's review is then the only one.
  const missing = prs
    .filter(({ p }) => p?.reviewMissing !== undefined)
    .map(({ k, p }) => `; ${prRef(k, p!.pr!.number)} has no review: ${p!.reviewMissing}`)
    .join('');
  return [
    {
      type: 'notify',
      level: 'waiting',
      title: `${ctx.snap.milestoneTitle} needs review`,
      message: `${prs.length === 1 ? 'its PR waits' : `its ${prs.length} PRs wait`} on a person's review and /merge: ${list}${missing}`,
      command: '/merge',
    },
  ];
};

const workActions = (ctx: RunContext): Action[] => {
  const { snap } = ctx;
  const { classified } = ctx;
  if (snap.kind === 'plan') return planRunActions(snap);
  const out: Action[] = [];
  // An issue closed by hand (or moved out of the milestone) is no longer the run's: its worker stops.
  for (const k of snap.abandoned ?? [])
    out.push({ type: 'cancel_worker', issue: k, reason: 'its issue left the run (closed on the tracker)' });
  for (const c of classified.cycles) out.push({ type: 'report_cycle', members: c.members });
  for (const u of classified.unknownBlockers)
    out.push({ type: 'report_unknown_blocker', blocker: u.key, namedBy: u.namedBy });

  if (snap.options.dryRun) {
    const wave = nextWave({
      issues: ctx.graph.issues,
      ready: keysIn(classified, 'ready'),
      running: [],
      caps: capsOf(snap),
    });
    const notReady = [...classified.byKey].filter(([, v]) => v.category !== 'ready' && v.category !== 'done');
    out.push({
      type: 'post_plan',
      wave: wave.map((m) => m.key),
      explanations: notReady.map(([k]) => explain(classified, k)),
      // The workers a real run would pick now: the same dispatch planning, not a re-derivation.
      picks: dispatchActions(ctx).flatMap((a) => (a.type === 'dispatch' ? [a] : [])),
    });
    out.push({
      type: 'stop',
      state: 'done',
      reason: 'dry run: the plan is posted, nothing runs',
      cause: { kind: 'dry_run' },
    });
    return out;
  }

  const epics = keysIn(classified, 'epic');
  for (const k of epics) {
    const c = classified.byKey.get(k);
    if (c?.category === 'epic' && c.closable) out.push({ type: 'close_epic', issue: k });
  }
  const pipeline = pipelineActions(ctx);
  out.push(...pipeline);
  const mergeThisCall = pipeline.some((a) => a.type === 'merge');
  if (snap.kind === 'blitz') {
    const build = buildActions(ctx, mergeThisCall);
    out.push(...build.actions);
    if (build.stop) return out;
  } else {
    for (const k of ctx.merged) out.push({ type: 'close_issue', issue: k });
  }
  const dispatches = dispatchActions(ctx);
  out.push(...dispatches);

  const c = classified.counts;
  const openWorkable = c.ready + c.blocked + c.cycle + c.held + c.running;
  const busy =
    ctx.workers.length + ctx.integrating.length + ctx.merged.length > 0 || snap.build.status === 'running';
  if (openWorkable === 0 && ctx.merged.length === 0) {
    const openEpics = epics.filter((k) => {
      const e = classified.byKey.get(k);
      return e?.category === 'epic' && !e.closable;
    });
    if (openEpics.length > 0 && openEpics.length === epics.length)
      return [
        ...out,
        ...stop(ctx, 'blocked', notReadyReasons(ctx, openEpics), {
          kind: 'epics_open',
          stuck: stuckIssuesOf(classified, openEpics),
        }),
      ];
    if (epics.length > 0) return out;
    return [...out, ...readinessActions(ctx)];
  }
  const waiting = mergeWaitActions(ctx, out, dispatches);
  if (waiting.length > 0) return [...out, ...waiting];
  if (busy || dispatches.length > 0) return out;
  // The ready work waits only on parked roster entries: the run parks until the first is probed.
  const onEntries = waitsOnEntries(ctx) ? runParkOnEntries(snap.park!.now, snap.park!.entries) : undefined;
  if (onEntries) return [...out, { type: 'park', park: onEntries, seen: [], notice: true }];
  if (sessionCap(capsOf(snap)) === 0 && c.ready > 0)
    return [...out, ...stop(ctx, 'paused', budgetParkReason(snap.budget), { kind: 'budget_park' })];
  const stuck = [...classified.byKey]
    .filter(([, v]) => ['blocked', 'cycle', 'held'].includes(v.category))
    .map(([k]) => k);
  // An issue's own notice (failed, needs a person) already told them: the run stops without a second one,
  // and what continues it is that notice's `/blitz retry #n`: a `/blitz resume` would stop it again.
  const told = toldAlready(ctx, stuck);
  // At the run's cost cap the retry that continues is that of the issue whose spend it gives back.
  const held = told
    ? [
        ...(ctx.runCap?.level === 'over' && ctx.runCap.retry ? [ctx.runCap.retry] : []),
        ...stuck.filter((k) => ctx.classified.byKey.get(k)?.category === 'held').sort(compareKeys),
      ]
    : [];
  return [
    ...out,
    ...stop(
      ctx,
      'blocked',
      `nothing can run: ${notReadyReasons(ctx, stuck)}`,
      { kind: 'nothing_can_run', stuck: stuckIssuesOf(classified, stuck) },
      {
        notify: !told,
        ...(held[0] ? { command: `/blitz retry ${issueRef(held[0])}` } : {}),
      },
    ),
  ];
};

/**
 * True when every stuck issue is a hold that sent its own notice (attempts spent, worker stalled, cap reached)
 * or waits only on such issues: a person has been told what to do, and "nothing can run" adds nothing.
 */
const toldAlready = (ctx: RunContext, stuck: readonly IssueKey[]): boolean => {
  const memo = new Map<IssueKey, boolean>();
  const covered = (k: IssueKey): boolean => {
    const known = memo.get(k);
    if (known !== undefined) return known;
    memo.set(k, false); // a cycle through k is not covered
    const c = ctx.classified.byKey.get(k);
    const ok =
      c?.category === 'held'
        ? c.kind === 'gave_up' || c.kind === 'stalled' || c.kind === 'capped'
        : c?.category === 'blocked'
          ? c.unknown.length === 0 && c.waitingOn.length > 0 && c.waitingOn.every(covered)
          : false;
    memo.set(k, ok);
    return ok;
  };
  return stuck.length > 0 && stuck.every(covered);
};

/** A run that is planning, or was blocked and is looked at again, goes (back) to running; every run kind. */
export const enterRunning = (runState: RunState): Extract<Action, { type: 'set_state' }>[] =>
  runState === 'planning' || runState === 'blocked'
    ? [{ type: 'set_state', from: [runState], to: 'running' }]
    : [];

/**
 * A blocked run whose plan stops it blocked again stays blocked: it does not enter `running` only to
 * stop once more (two run writes and a model-notes merge on every tick, and a state that flaps), and a
 * stop for the cause kept on the run (`stopCause`, typed: never its words) is left out too (`repeated`);
 * a new cause is written by the stop alone. The plan's notices still go (each is sent once, by its content), and a
 * pass whose plan has work instead of the stop enters `running` as before: the block lifts by itself.
 */
const staysBlocked = (
  runState: RunState,
  snap: RunSnapshot,
  work: readonly Action[],
): { blocked: boolean; repeated: boolean } => {
  const halt = work.find((a) => a.type === 'stop');
  const blocked = runState === 'blocked' && halt?.type === 'stop' && halt.state === 'blocked';
  return { blocked, repeated: blocked && sameStopCause(halt.cause, snap.stopCause) };
};

/** `work` with the red gate's blocker issue filed just before the stop (or last, when the stop repeats). */
const withGateBlocker = (work: Action[], file: Action | undefined): Action[] => {
  if (!file) return work;
  const at = work.findIndex((a) => a.type === 'stop');
  return at < 0 ? [...work, file] : [...work.slice(0, at), file, ...work.slice(at)];
};

/** The budget as if the probe had no say: what a wave would be before it is asked. */
const unbounded = (snap: RunSnapshot): RunSnapshot => ({
  ...snap,
  budget: { verdict: 'ok', recommendedMaxSessions: snap.options.maxSessions, preferMedium: false },
});

/**
 * Actions whose result the rest of the plan depends on (see `replanAfter`): reported bugs to file, a
 * budget answer to get before a wave goes out, an integration review that is due.
 */
const firstActions = (ctx: RunContext, planned: readonly Action[]): Action[] => {
  const { snap } = ctx;
  const out: Action[] = [];
  if ((snap.unfiledFindings ?? 0) > 0) out.push({ type: 'file_findings' });
  if (snap.budgetStale && workActions(buildRunContext(unbounded(snap))).some((a) => a.type === 'dispatch'))
    out.push({ type: 'probe_budget' });
  if (integrationReviewDue(snap.integrationReview, planned)) out.push({ type: 'integration_review' });
  return out;
};

/**
 * Everything to do now for a run in `runState`, in order: a hard blocker met now stops the run alone
 * (nothing else was read), as does an App permission a read was refused for (plan/permission-block.ts);
 * a missing agent CLI blocks it, or probes (plan/tool-blocker.ts); a blocker
 * kept from before is lifted first; a park's actions come alone
 * (the next pass plans on them). A red gate's blocker issue whose gate is green again is closed. Then
 * the actions the rest depends on, the run's entry into `running`,
 * its work (readiness withheld while the integration review is not clean), its move to `gating` or
 * `shipping`, and the notices. A `stop`, when there is one, is the last action but for notices.
 */
export const nextActions = (runState: RunState, snap: RunSnapshot): Action[] => {
  if (isTerminalRunState(runState)) return [];
  if (snap.hardBlocker !== undefined)
    return [{ type: 'block', reason: blockReasonOf(snap.hardBlocker), cause: snap.hardBlocker }];
  const permission = permissionBlockActions(snap);
  if (permission) return permission;
  const tool = toolBlockerActions(runState, snap, () => dispatchActions(buildRunContext(snap)));
  if (tool) return tool;
  const lift: Action[] = snap.keptBlocker ? [{ type: 'unblock', ...snap.keptBlocker }] : [];
  const park = parkActions(
    runState,
    snap.park,
    snap.budgetStale === true,
    failsOverIn(snap),
    otherEntriesIn(snap),
  );
  if (park.length > 0) return [...lift, ...park];
  if (runState === 'paused') return lift;
  const ctx = buildRunContext(snap);
  const planned = workActions(ctx);
  const gated = gateOnReview(snap.integrationReview, planned);
  const unclear = reviewUnclearActions(snap.integrationReview, planned, runState);
  const stays = staysBlocked(runState, snap, gated);
  const work = withGateBlocker(
    stays.repeated ? gated.filter((a) => a.type !== 'stop') : gated,
    fileGateBlockerAction(ctx, gated),
  );
  // A run waiting on an unclear review goes on once a writer accepted it or asked for another.
  const enter: Action[] =
    runState === 'review_unclear' && unclear.length === 0
      ? [{ type: 'set_state', from: [runState], to: 'running' }]
      : stays.blocked
        ? []
        : enterRunning(runState);
  // A run ships in `shipping`, whether it was gated first or had nothing to gate (the state table goes
  // gating → shipping → done, never gating → done).
  const gate: Action[] = work.some((a) => a.type === 'ship')
    ? [{ type: 'set_state', from: ['running', 'gating'], to: 'shipping' }]
    : work.some((a) => a.type === 'run_smoke')
      ? [{ type: 'set_state', from: ['running'], to: 'gating' }]
      : [];
  const all = [
    ...lift,
    ...closeGateBlockerActions(snap),
    ...firstActions(ctx, planned),
    ...enter,
    ...work,
    ...gate,
    ...unclear,
    ...noticeActions(ctx),
    ...reportedInsteadNotices(snap),
  ];
  // The forge's rate limit nearly spent: the planned workers and the ship (a dozen requests) wait for its
  // reset (no stop: nobody is needed).
  return snap.forgeSpent ? all.filter((a) => a.type !== 'dispatch' && a.type !== 'ship') : all;
};
