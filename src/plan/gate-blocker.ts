// The blocker issue of a red gate (seed 000 §8, B55: "build it can't fix after a few honest attempts:
// file a blocker issue in the milestone … and stop"). A red build, smoke or ship that stops the run files
// ONE issue in the milestone saying what failed, on which commit, and what continues the run; it blocks
// the merged issues still waiting on that gate (a red build's), and is closed once that gate is green
// on a later pass. The run keeps it (`gateBlocker`), so a repeated stop files nothing more; the issue
// itself is the run's, never planned or dispatched (plan/run-context.ts counts it done). Pure.
import type { RunContext } from './run-context.ts';
import type { Action, GateCause, RunSnapshot } from './snapshot.ts';

export type { GateBlockerView, GateCause } from './snapshot.ts';

/** The gate is green now: the cause of its blocker issue is gone. */
const greenNow = (snap: RunSnapshot, cause: GateCause): boolean =>
  cause === 'build'
    ? snap.build.status === 'passed'
    : cause === 'smoke'
      ? snap.smoke === 'passed'
      : snap.ship === 'passed';

/** The commit the gate ran on, where the run knows it. */
const shaOf = (snap: RunSnapshot, cause: GateCause): string | undefined =>
  cause === 'smoke' ? (snap.smokeGate?.sha ?? snap.build.sha) : snap.build.sha;

/** Closing the kept blocker issue whose gate is green again; it comes first (Gitea refuses to close what it blocks). */
export const closeGateBlockerActions = (snap: RunSnapshot): Action[] => {
  const kept = snap.gateBlocker;
  if (!kept || !greenNow(snap, kept.cause)) return [];
  const sha = shaOf(snap, kept.cause);
  return [
    {
      type: 'close_gate_blocker',
      cause: kept.cause,
      ...(kept.issue !== undefined ? { issue: kept.issue } : {}),
      ...(sha ? { sha } : {}),
    },
  ];
};

/**
 * The blocker issue to file for the planned stop, when a red gate stops the run and the run holds no
 * blocker issue for that gate yet; undefined otherwise. `planned` is the plan before a repeated stop is
 * left out, so a blocker whose filing failed is tried again on the next blocked pass.
 */
export const fileGateBlockerAction = (
  ctx: Pick<RunContext, 'snap' | 'merged'>,
  planned: readonly Action[],
) => {
  const halt = planned.find((a) => a.type === 'stop' && a.gate !== undefined);
  if (halt?.type !== 'stop' || halt.gate === undefined) return undefined;
  const kept = ctx.snap.gateBlocker;
  if (kept?.cause === halt.gate && kept.issue !== undefined) return undefined;
  const sha = shaOf(ctx.snap, halt.gate);
  return {
    type: 'file_gate_blocker' as const,
    cause: halt.gate,
    reason: halt.reason,
    command: halt.command ?? '/blitz resume',
    // A red build holds up the merges it covered: they wait on the blocker issue, visibly on the tracker.
    blocks: halt.gate === 'build' ? [...ctx.merged] : [],
    ...(sha ? { sha } : {}),
  };
};
