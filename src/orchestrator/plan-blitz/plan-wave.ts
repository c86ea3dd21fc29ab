// Which issues the next plan-blitz wave takes, or why the run stops (pure). Every decision comes from
// the planner: the planning gate through classify, the stop conditions through nextActions for kind
// `plan`. Two things are shaped here, in the snapshot handed to it, never in the gates:
// - issues that are not candidates of this run (not targeted, execution-ready, already landed in this
//   run) are given to the planner as done, so they stay blockers but are not planned;
// - members of a cycle are reported, then handed to the planner as open blockers outside the list,
//   so the cycle stops its members (and whatever waits on them) while the other plans carry on.
import { explain, keysIn } from '../../plan/classify.ts';
import { nextActions } from '../../plan/next-actions.ts';
import { buildRunContext } from '../../plan/run-context.ts';
import type { IssueProgress, RunSnapshot, StopState } from '../../plan/snapshot.ts';
import type { IssueKey } from '../../plan/types.ts';
import { orderForDispatch } from '../../plan/wave.ts';

/** Seed 002: at most 8 issues per wave. */
export const maxWaveSize = 8;

export interface WaveDecision {
  cycles: IssueKey[][];
  unknownBlockers: { blocker: IssueKey; namedBy: IssueKey[] }[];
  held: { key: IssueKey; reason: string }[];
  /** Why each open candidate that is not in the wave is waiting. */
  waiting: string[];
  /** Every issue the planning gate lets in now, in dispatch order (the wave is the first eight). */
  candidates: IssueKey[];
  next: { kind: 'wave'; members: IssueKey[] } | { kind: 'stop'; state: StopState; reason: string };
}

const doneMarker = (key: IssueKey): IssueProgress => ({
  key,
  state: 'closed',
  attempts: [],
  branchPushed: false,
  reviewPosted: false,
});

/** `snap` with `exclude` marked done for the planner (still blockers, never candidates). */
export const withExcluded = (snap: RunSnapshot, exclude: ReadonlySet<IssueKey>): RunSnapshot => {
  const present = new Set(snap.issues.map((i) => `${i.repo}#${i.number}`));
  return {
    ...snap,
    progress: [...exclude].filter((k) => present.has(k)).map(doneMarker),
  };
};

export const decideWave = (snap: RunSnapshot): WaveDecision => {
  const full = buildRunContext(snap);
  const cycles = full.classified.cycles.map((c) => c.members);
  const inCycle = new Set(cycles.flat());
  const unknownBlockers = full.classified.unknownBlockers.map((u) => ({
    blocker: u.key,
    namedBy: u.namedBy,
  }));
  const keyOf = (i: { repo: string; number: number }) => `${i.repo}#${i.number}`;
  const rest: RunSnapshot = {
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
  const ctx = buildRunContext(rest);
  const held = keysIn(ctx.classified, 'held').map((key) => {
    const c = ctx.classified.byKey.get(key);
    return { key, reason: c?.category === 'held' ? c.reason : 'held' };
  });
  const waiting = keysIn(ctx.classified, 'blocked').map((k) => explain(ctx.classified, k));
  const actions = nextActions('running', { ...rest, options: { ...rest.options, dryRun: false } });
  const stop = actions.find((a) => a.type === 'stop');
  const candidates = orderForDispatch(ctx.graph.issues, keysIn(ctx.classified, 'ready'));
  const base = { cycles, unknownBlockers, held, waiting, candidates };
  if (stop) return { ...base, next: { kind: 'stop', state: stop.state, reason: stop.reason } };
  return { ...base, next: { kind: 'wave', members: candidates.slice(0, maxWaveSize) } };
};
