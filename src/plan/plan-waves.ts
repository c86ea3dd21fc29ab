// A plan-blitz run's actions for one pass (pure, seed 002): with a wave in flight, each member not yet
// landed takes its step (plan-member.ts) and the wave lands once all have; with none, the next wave (at most eight issues
// the planning gate lets in, in dispatch order) starts, or the run stops with what is left. Two things
// are shaped here, in the snapshot the gates read, never in the gates:
// - issues that are not candidates of this run (not targeted, execution-ready, landed in an earlier
//   wave) are given to the planner as done, so they stay blockers but are not planned;
// - members of a cycle are reported, then handed to the planner as open blockers outside the list, so
//   the cycle stops its members (and whatever waits on them) while the other plans carry on.
import { explain, keysIn } from './classify.ts';
import { budgetParkReason } from './environment-park.ts';
import { executionGate } from './gates.ts';
import { buildGraph } from './graph.ts';
import { planRunLabels } from './plan-labels.ts';
import { memberStep, takesSlot } from './plan-member.ts';
import { buildRunContext } from './run-context.ts';
import type { Action, IssueProgress, PlanRunView, RunSnapshot, StopState } from './snapshot.ts';
import type { StopCause } from './stop-cause.ts';
import { hasLabel, type IssueKey, issueKey, issueRef } from './types.ts';
import { orderForDispatch, sessionCap } from './wave.ts';

/** Seed 002: at most 8 issues per wave. */
export const maxWaveSize = 8;

const doneMarker = (key: IssueKey): IssueProgress => ({
  key,
  state: 'closed',
  attempts: [],
  branchPushed: false,
  reviewPosted: false,
});

/** Not candidates of this run: not targeted, already execution-ready, or landed in an earlier wave. */
const excluded = (snap: RunSnapshot, view: PlanRunView): Set<IssueKey> => {
  const out = new Set(view.finished);
  const targets = view.targets ? new Set(view.targets) : undefined;
  for (const i of snap.issues) {
    const k = issueKey(i.repo, i.number);
    if ((targets && !targets.has(k)) || hasLabel(i, planRunLabels.ready)) out.add(k);
  }
  return out;
};

/** `snap` with the excluded issues marked done (still blockers, never candidates). */
const withExcluded = (snap: RunSnapshot, view: PlanRunView): RunSnapshot => {
  const out = excluded(snap, view);
  return {
    ...snap,
    progress: snap.issues
      .map((i) => issueKey(i.repo, i.number))
      .filter((k) => out.has(k))
      .map(doneMarker),
  };
};

/** `snap` with the members of `cycles` moved out of the list, as open blockers. */
const withoutCycles = (snap: RunSnapshot, cycles: readonly IssueKey[][]): RunSnapshot => {
  const inCycle = new Set(cycles.flat());
  const keyOf = (i: { repo: string; number: number }) => issueKey(i.repo, i.number);
  return {
    ...snap,
    issues: snap.issues.filter((i) => !inCycle.has(keyOf(i))),
    external: [
      ...snap.external,
      ...snap.issues
        .filter((i) => inCycle.has(keyOf(i)))
        .map((i) => ({ key: keyOf(i), state: 'open' as const, title: i.title })),
    ],
    progress: snap.progress.filter((p) => !inCycle.has(p.key)),
  };
};

/** Why the run stops instead of starting another wave, or undefined when a wave goes out. */
const stopOf = (
  snap: RunSnapshot,
  ready: readonly IssueKey[],
): { state: 'done' | 'blocked' | 'paused'; reason: string; cause: StopCause } | undefined => {
  const waves = snap.waves ?? { completed: 0 };
  const last = waves.last;
  if (waves.completed > 0 && last && last.approved + last.executionReady + last.closed === 0)
    return {
      state: 'blocked',
      reason: `wave ${waves.completed} approved, readied and closed nothing`,
      cause: { kind: 'wave_idle', wave: waves.completed },
    };
  if (waves.completed >= (snap.options.maxWaves ?? 1))
    return {
      state: 'done',
      reason: `waves exhausted; still to plan: ${ready.join(', ') || 'nothing'}`,
      cause: { kind: 'waves_spent', left: [...ready] },
    };
  if (ready.length === 0)
    return { state: 'done', reason: 'the next wave is empty', cause: { kind: 'wave_empty' } };
  const caps = {
    maxSessions: snap.options.maxSessions,
    budget: snap.budget,
    machineLimit: snap.machine.limit,
    contended: snap.machine.contended,
  };
  // Said on the run's stop comment: when the limit lifts, and that no one has to resume it.
  if (sessionCap(caps) === 0)
    return { state: 'paused', reason: budgetParkReason(snap.budget), cause: { kind: 'budget_park' } };
  return undefined;
};

/** The next wave, or the stop with what is left; the cycles and unreadable blockers are reported first. */
const nextWaveActions = (snap: RunSnapshot, view: PlanRunView): Action[] => {
  const full = buildRunContext(withExcluded(snap, view));
  const cycles = full.classified.cycles.map((c) => c.members);
  const out: Action[] = [
    ...cycles.map((members): Action => ({ type: 'report_cycle', members })),
    ...full.classified.unknownBlockers.map(
      (u): Action => ({ type: 'report_unknown_blocker', blocker: u.key, namedBy: u.namedBy }),
    ),
  ];
  const ctx = buildRunContext(withoutCycles(full.snap, cycles));
  const held = keysIn(ctx.classified, 'held').map((key) => {
    const c = ctx.classified.byKey.get(key);
    return { key, reason: c?.category === 'held' ? c.reason : 'held' };
  });
  const waiting = keysIn(ctx.classified, 'blocked').map((k) => explain(ctx.classified, k));
  const ready = keysIn(ctx.classified, 'ready');
  const candidates = orderForDispatch(ctx.graph.issues, ready);
  const stop = stopOf(snap, ready);
  const members = stop ? [] : candidates.slice(0, maxWaveSize);
  if (snap.options.dryRun)
    return [
      ...out,
      { type: 'post_plan', wave: members, explanations: waiting, held },
      {
        type: 'stop',
        state: 'done',
        reason: 'dry run: the first wave is posted, nothing ran',
        cause: { kind: 'dry_run' },
        cycles,
      },
    ];
  if (!stop) return [...out, { type: 'start_wave', members, held, cycles }];
  const notPlanned = [
    ...(cycles.length
      ? [`cycle not planned: ${cycles.map((c) => c.map(issueRef).join(' ↔ ')).join(', ')}`]
      : []),
    ...full.classified.unknownBlockers.map(
      (u) => `${u.namedBy.map(issueRef).join(', ')} not planned: blocker ${u.key} cannot be read`,
    ),
  ]
    .map((x) => `; ${x}`)
    .join('');
  return [
    ...out,
    {
      type: 'stop',
      // A cycle or an unreadable blocker left out is a person's to cut, even when the rest is done.
      state: notPlanned && stop.state === 'done' ? 'blocked' : stop.state,
      reason: `${stop.reason}${notPlanned}`,
      cause: notPlanned
        ? {
            ...stop.cause,
            notPlanned: {
              cycles,
              unreadable: full.classified.unknownBlockers.map((u) => ({
                blocker: u.key,
                namedBy: u.namedBy,
              })),
            },
          }
        : stop.cause,
      cycles,
      // Seed 002: the next wave at a stop is reported as the remaining work, never chained.
      remaining: [
        ...candidates.map((k) => `${issueRef(k)} can be planned by another \`/plan-blitz\``),
        ...waiting,
      ],
    },
  ];
};

/** How a plan run's stop is kept: the state written, the reason shown, the word its comment ends on. */
export interface PlanRunEnd {
  state: 'done' | 'paused';
  reason: string;
  headline: string;
}

/**
 * A plan run is never resumed (its waves are reported, not chained), so every stop but a budget park
 * ends it `done` and frees the milestone for the next `/plan-blitz`. It is never kept `blocked`, a
 * state that holds the milestone and asks for `/blitz resume`: a stop a person has to look at says so
 * in its reason (`blocked: …`) and its comment.
 */
export const planRunEnd = (state: StopState, reason: string): PlanRunEnd => {
  if (state === 'paused') return { state: 'paused', reason, headline: 'paused' };
  if (state === 'blocked')
    return { state: 'done', reason: `blocked: ${reason}`, headline: 'stopped (a person has to look)' };
  return { state: 'done', reason, headline: 'finished' };
};

/** A plan run's work this pass (the run's entry into `running` is nextActions'). */
export const planRunActions = (snap: RunSnapshot): Action[] => {
  const view = snap.planRun ?? { finished: [] };
  const wave = view.wave;
  if (!wave) return nextWaveActions(snap, view);
  const landed = new Set(wave.landed);
  if (wave.members.every((k) => landed.has(k))) return [{ type: 'land_wave' }];
  // Workers start in member order while slots are free; none while the forge's budget is spent.
  const s = view.sessions ?? { limit: 0, running: 0, runnerRetries: 0 };
  let slots = snap.forgeSpent ? 0 : Math.max(0, s.limit - s.running);
  const graph = buildGraph(snap.issues, snap.external);
  const out: Action[] = [];
  for (const read of wave.facts) {
    if (landed.has(read.key)) continue;
    const facts = { ...read, executionOpen: executionGate(graph, read.key).open };
    const ops = memberStep(facts, slots, s.runnerRetries);
    if (takesSlot(ops)) slots--;
    if (ops.length > 0) out.push({ type: 'advance_member', issue: facts.key, facts, ops });
  }
  return out;
};
