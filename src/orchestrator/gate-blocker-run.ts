// The steps of the planner's `file_gate_blocker` and `close_gate_blocker` (plan/gate-blocker.ts): the one
// blocker issue a red build, smoke or ship files in the milestone when it stops the run (seed 000 §8,
// B55), and its closing once that gate is green again. Keyed on the run, never two: the gate is written
// on the run before the issue is created and the issue carries a marker naming the run and the gate, so
// a pass after a crash in between finds the issue it made (reconcile.ts reads it back) instead of
// filing a second one.

import type { GateBlockerView, GateCause } from '../plan/gate-blocker.ts';
import type { Action } from '../plan/snapshot.ts';
import { issueKey, type PlanIssue, planLabels, refOf } from '../plan/types.ts';
import { fenced } from '../review/prompt.ts';
import { redactText } from '../runner/exec.ts';
import { closeWithComment } from '../runs/close-issue.ts';
import type { RunCtx } from '../runs/context.ts';
import type { Log, Records } from '../runs/ports.ts';
import { setProgress } from '../runs/run-writer.ts';
import type { RunProgress, RunRecord } from '../store/run-store.ts';

/** The hidden line that ties a blocker issue to its run and gate (read back only from trusted authors). */
export const gateBlockerMarker = (runId: string, cause: GateCause): string =>
  `<!-- blitz:gate-blocker run=${runId} gate=${cause} -->`;

const gateWords: Record<GateCause, string> = {
  build: 'The build',
  smoke: 'The smoke check',
  ship: 'The ship step',
};

/**
 * The run's blocker issue as the planner sees it: the gate kept on the run, and its issue, recorded or
 * (after a crash between filing and recording) found by its marker among the milestone's open issues.
 */
export const gateBlockerViewOf = (
  run: Pick<RunRecord, 'id' | 'repo' | 'progress'>,
  open: Iterable<PlanIssue>,
): GateBlockerView | undefined => {
  const kept = run.progress.gateBlocker;
  if (!kept) return undefined;
  if (kept.issue !== undefined) return { cause: kept.cause, issue: issueKey(run.repo, kept.issue) };
  const marker = gateBlockerMarker(run.id, kept.cause);
  const found = [...open].find((i) => i.authorTrusted && i.body.includes(marker));
  return { cause: kept.cause, ...(found ? { issue: issueKey(found.repo, found.number) } : {}) };
};

/** The last lines the gate left, where it kept any. */
const tailOf = (p: RunProgress, cause: GateCause): string | undefined =>
  cause === 'build' ? p.build?.tail : cause === 'smoke' ? p.smokeGate?.tail : p.ship?.reasons?.join('\n');

/** Files the run's one blocker issue for the red gate, wired as a blocker of what it holds up. */
export const fileGateBlocker = async (
  deps: Records & Log,
  ctx: RunCtx,
  a: Extract<Action, { type: 'file_gate_blocker' }>,
): Promise<void> => {
  const kept = ctx.run.progress.gateBlocker;
  if (kept?.cause === a.cause && kept.issue !== undefined) return;
  // The gate first: a crash after the issue is created leaves it findable by its marker (gateBlockerViewOf).
  if (kept?.cause !== a.cause) await setProgress(deps, ctx, { gateBlocker: { cause: a.cause } });
  const marker = gateBlockerMarker(ctx.run.id, a.cause);
  const made = [...ctx.issues.values()].find((i) => i.authorTrusted && i.body.includes(marker));
  const number = made?.number ?? (await createBlockerIssue(ctx, a, marker));
  await setProgress(deps, ctx, { gateBlocker: { cause: a.cause, issue: number } });
  for (const k of a.blocks) await ctx.forge.addBlockedBy(refOf(k), { repo: ctx.repo, number });
  deps.logger.info({ runId: ctx.run.id, gate: a.cause, issue: number }, 'red gate filed as a blocker issue');
};

const createBlockerIssue = async (
  ctx: RunCtx,
  a: Extract<Action, { type: 'file_gate_blocker' }>,
  marker: string,
): Promise<number> => {
  const branch = ctx.run.integrationBranch;
  const at = a.sha ? ` at \`${a.sha.slice(0, 7)}\`` : '';
  const tail = tailOf(ctx.run.progress, a.cause);
  // No @mention here: with no notify target the run's BLOCKED comment on the trigger issue tells the
  // starter, once per cause (run-notice.ts commentOnTrigger); a second mention would tell them twice.
  const body = [
    `${gateWords[a.cause]} stopped the blitz of ${ctx.run.milestoneTitle} on \`${branch}\`${at}: ${a.reason}.`,
    ...(tail ? ['', 'Its last lines:', '', fenced(redactText(tail))] : []),
    '',
    `Fix it on \`${branch}\`, then comment \`${a.command}\`. This issue is closed by itself once the ${a.cause} is green again.`,
    '',
    marker,
  ].join('\n');
  const issue = await ctx.forge.createIssue(ctx.repo, {
    title: `blitz: ${ctx.run.milestoneTitle} BLOCKED: ${a.cause} red on ${branch}`,
    body,
    // Held: no worker takes it; it is the run's own and a person's to act on.
    labels: [planLabels.hold],
    milestone: ctx.run.milestoneNumber,
  });
  return issue.ref.number;
};

/** Closes the run's blocker issue now that its gate is green, and forgets it. */
export const closeGateBlocker = async (
  deps: Records & Log,
  ctx: RunCtx,
  a: Extract<Action, { type: 'close_gate_blocker' }>,
): Promise<void> => {
  if (a.issue !== undefined) {
    const at = a.sha ? ` at \`${a.sha.slice(0, 7)}\`` : '';
    // Closed the one way (close-issue.ts): one a person closed already gets no comment.
    await closeWithComment(
      ctx.forge,
      refOf(a.issue),
      `The cause is gone: the ${a.cause} is green${at}; the blitz goes on.`,
    );
  }
  await setProgress(deps, ctx, (p) =>
    p.gateBlocker?.cause === a.cause ? { gateBlocker: undefined } : undefined,
  );
  deps.logger.info(
    { runId: ctx.run.id, gate: a.cause, issue: a.issue },
    'red gate green again; blocker issue closed',
  );
};
