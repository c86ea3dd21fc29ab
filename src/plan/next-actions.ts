// nextActions: given the run's state and a snapshot of the tracker and the store, the ordered list
// of things to do now. Pure and deterministic (the same snapshot in any array order gives the same
// list), and idempotent by design: the orchestrator performs the actions and calls again; report
// and notify actions repeat while their cause lasts, so the orchestrator keys them by content.

import { decideShipPath } from '../ship/decide.ts';
import { explain, keysIn } from './classify.ts';
import { extractFences } from './fences.ts';
import { buildActions, pipelineActions } from './integration.ts';
import type { Role } from './routing.ts';
import { pickWorker } from './routing.ts';
import type { RunContext } from './run-context.ts';
import { buildRunContext } from './run-context.ts';
import type { Action, RunKind, RunSnapshot, StopState } from './snapshot.ts';
import type { RunState } from './states.ts';
import { isTerminalRunState } from './states.ts';
import { assessTier } from './tier.ts';
import { fleetOrder } from './triage.ts';
import type { IssueKey } from './types.ts';
import type { Caps } from './wave.ts';
import { nextWave, orderForDispatch, sessionCap } from './wave.ts';

const roleOf: Record<RunKind, Role> = { blitz: 'blitz', fleet: 'fleet', plan: 'plan' };

const capsOf = (snap: RunSnapshot): Caps => ({
  maxSessions: snap.options.maxSessions,
  budget: snap.budget,
  machineLimit: snap.machine.limit,
  contended: snap.machine.contended,
});

const stop = (ctx: RunContext, state: StopState, reason: string): Action[] => {
  const level = state === 'done' ? 'ready' : state === 'blocked' ? 'blocked' : 'info';
  const word = state === 'done' ? 'ready' : state === 'blocked' ? 'BLOCKED' : 'paused';
  return [
    { type: 'notify', level, title: `${ctx.snap.kind}: ${ctx.snap.milestoneTitle} ${word}`, message: reason },
    { type: 'stop', state, reason },
  ];
};

/** The dispatch actions for the ready issues that fit in the free slots now. */
export const dispatchActions = (ctx: RunContext): Action[] => {
  const { snap, graph } = ctx;
  const ready = keysIn(ctx.classified, 'ready');
  const fences = new Map<IssueKey, string[]>();
  for (const k of [...ready, ...ctx.workers]) fences.set(k, extractFences(graph.issues.get(k)!.body));
  let fleet: { ordered?: IssueKey[]; limit?: number } = {};
  if (snap.kind === 'fleet') {
    // Seed 004: pilot one ticket end to end (to a pushed branch) before the first fan-out.
    const piloted = [...ctx.progress.values()].some((p) => p.branchPushed || p.pr !== undefined);
    if (!piloted && ctx.workers.length > 0) return [];
    fleet = {
      ordered: fleetOrder(graph.issues, orderForDispatch(graph.issues, ready), new Set(snap.busyRepos ?? [])),
      ...(piloted ? {} : { limit: 1 }),
    };
  }
  const wave = nextWave({
    issues: graph.issues,
    ready,
    running: ctx.workers,
    caps: capsOf(snap),
    fences,
    ...fleet,
  });
  const usage: Record<string, number> = {};
  for (const p of ctx.progress.values())
    for (const a of p.attempts) usage[a.entry] = (usage[a.entry] ?? 0) + 1;
  return wave.map((m) => {
    const issue = graph.issues.get(m.key)!;
    const attempts = ctx.progress.get(m.key)?.attempts ?? [];
    const worker = pickWorker({
      role: roleOf[snap.kind],
      assessedTier: assessTier(issue.body, issue.labels).tier,
      roster: snap.roster,
      attempts,
      usage,
      ...(snap.options.override ? { override: snap.options.override } : {}),
      preferMedium: snap.budget.preferMedium,
      ...(snap.notes ? { notes: snap.notes } : {}),
    });
    usage[worker.entry.name] = (usage[worker.entry.name] ?? 0) + 1;
    return { type: 'dispatch', issue: m.key, attempt: attempts.length + 1, worker, fenceOff: m.fenceOff };
  });
};

const notReadyReasons = (ctx: RunContext, keys: readonly IssueKey[]): string =>
  keys.map((k) => explain(ctx.classified, k)).join(' ');

const planActions = (ctx: RunContext, out: Action[]): Action[] => {
  const { snap, classified } = ctx;
  if (classified.cycles.length > 0)
    return [...out, ...stop(ctx, 'blocked', 'blockers form a cycle; a person has to cut it')];
  if (ctx.workers.length + ctx.integrating.length > 0) return out;
  const waves = snap.waves ?? { completed: 0 };
  const ready = keysIn(classified, 'ready');
  const last = waves.last;
  if (waves.completed > 0 && last && last.approved + last.executionReady + last.closed === 0)
    return [...out, ...stop(ctx, 'blocked', `wave ${waves.completed} approved, readied and closed nothing`)];
  if (waves.completed >= (snap.options.maxWaves ?? 1))
    return [...out, ...stop(ctx, 'done', `waves exhausted; still to plan: ${ready.join(', ') || 'nothing'}`)];
  if (ready.length === 0) return [...out, ...stop(ctx, 'done', 'the next wave is empty')];
  if (sessionCap(capsOf(snap)) === 0) return [...out, ...stop(ctx, 'paused', 'the budget probe says park')];
  return [...out, ...dispatchActions(ctx)];
};

const readinessActions = (ctx: RunContext): Action[] => {
  const { snap } = ctx;
  const { build } = snap;
  if (snap.kind === 'fleet') return stop(ctx, 'done', 'every ticket is merged or closed');
  if (build.status === 'running') return [];
  if (build.status === 'failed') return stop(ctx, 'blocked', 'the build on the integration branch is red');
  if (build.status === 'none') return [{ type: 'run_build', covers: [] }];
  if (snap.smoke === 'none') return [{ type: 'run_smoke' }];
  if (snap.smoke === 'running') return [];
  if (snap.smoke === 'failed') return stop(ctx, 'blocked', 'the smoke check failed');
  const ship = decideShipPath({
    ...(snap.options.shipOverride ? { override: snap.options.shipOverride } : {}),
    ...(snap.options.shipPolicy ? { policy: snap.options.shipPolicy } : {}),
    milestone: { title: snap.milestoneTitle, description: snap.milestoneDescription },
    ...(snap.deployCommand ? { deployCommand: snap.deployCommand } : {}),
    labels: [...new Set(snap.issues.flatMap((i) => i.labels.map((l) => l.name)))].sort(),
    changedFiles: [...snap.changedFiles].sort(),
  });
  const reason = ship.reasons.join('; ');
  if (snap.ship === 'none') return [{ type: 'ship', path: ship.path, reason }];
  if (snap.ship === 'running') return [];
  if (snap.ship === 'failed') return stop(ctx, 'blocked', `shipping (${ship.path}) failed`);
  return stop(ctx, 'done', `every issue closed, build and smoke green, shipped (${ship.path})`);
};

export const nextActions = (runState: RunState, snap: RunSnapshot): Action[] => {
  if (isTerminalRunState(runState) || runState === 'paused') return [];
  const ctx = buildRunContext(snap);
  const { classified } = ctx;
  const out: Action[] = [];
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
    });
    out.push({ type: 'stop', state: 'done', reason: 'dry run: the plan is posted, nothing runs' });
    return out;
  }
  if (snap.hardBlocker !== undefined) return [...out, ...stop(ctx, 'blocked', snap.hardBlocker)];
  if (snap.kind === 'plan') return planActions(ctx, out);

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
      return [...out, ...stop(ctx, 'blocked', notReadyReasons(ctx, openEpics))];
    if (epics.length > 0) return out;
    return [...out, ...readinessActions(ctx)];
  }
  if (busy || dispatches.length > 0) return out;
  if (sessionCap(capsOf(snap)) === 0 && c.ready > 0)
    return [...out, ...stop(ctx, 'paused', 'the budget probe says park; nothing is running')];
  const stuck = [...classified.byKey]
    .filter(([, v]) => ['blocked', 'cycle', 'held'].includes(v.category))
    .map(([k]) => k);
  return [...out, ...stop(ctx, 'blocked', `nothing can run: ${notReadyReasons(ctx, stuck)}`)];
};
