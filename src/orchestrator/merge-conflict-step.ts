// A blitz merge's conflict path (issue 37), performed: what `plan/merge-conflict.ts` decides from the
// facts gathered here. Before a merge, the PR waits while its session runs or a conflict resume is on
// its way, and the files that conflicted are checked for markers (the runner's one check, read as the
// worker, as for a fleet merge). After a refused merge, a conflict resumes the session that wrote the
// work with the integration branch to merge in; when no try is left the issue bounces (its redo starts
// from scratch off the integration branch as it is now).
import { formatRepo } from '../forges/types.ts';
import { issueAttempts } from '../plan/issue-progress.ts';
import {
  afterRefusedMerge,
  beforeMerge,
  type ConflictStep,
  conflictResumeOf,
  type MergeRefusal,
  type ResolutionFacts,
} from '../plan/merge-conflict.ts';
import { type IssueKey, refOf } from '../plan/types.ts';
import { attemptIsHere, onAttemptHost } from '../queue/dispatcher.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunCtx } from '../runs/context.ts';
import type { Clock, Log, Records, Workers } from '../runs/ports.ts';
import { writeIssue } from '../runs/run-writer.ts';
import type { RunIssueRecord } from '../store/run-store.ts';

/** The one effect a conflict step may end in; `perform.ts`'s `Effects` has it (no import back). */
interface BounceEffect {
  bounce(ctx: RunCtx, issue: IssueKey, reason: string): Promise<void>;
}

type StepPorts = Records & Workers & Clock & Log & { effects: BounceEffect };
type StepCtx = Pick<RunCtx, 'run' | 'rows' | 'attempts'>;

/** The issue's session this pass: its latest attempt. */
const sessionOf = (ctx: StepCtx, key: IssueKey): AttemptRecord | undefined => issueAttempts(ctx, key).at(-1);

/** The session: running, its last conflict resume queued (or lapsed: a spent try), or ended. */
const workerOf = (
  deps: Clock,
  row: RunIssueRecord | undefined,
  a: AttemptRecord | undefined,
): ResolutionFacts['worker'] => {
  if (a === undefined) return 'ended';
  if (a.outcome === undefined) return 'live';
  const resume = conflictResumeOf(row, a, deps.clock.now().toISOString());
  return resume === 'started' ? 'ended' : resume;
};

const factsOf = (
  deps: Workers & Clock,
  ctx: StepCtx,
  key: IssueKey,
  a: AttemptRecord | undefined,
): ResolutionFacts => {
  const row = ctx.rows.get(key);
  return {
    resumes: row?.conflictResumes ?? 0,
    session: a !== undefined,
    base: ctx.run.integrationBranch,
    worker: workerOf(deps, row, a),
    solved: a?.outcome === 'solved',
    conflictFiles: a?.conflictFiles ?? [],
    remote: a !== undefined && !attemptIsHere(deps, a),
  };
};

/** Resumes the session on the conflict, and counts the try on the issue's row once it was sent. */
const resumeOnConflict = async (
  deps: StepPorts,
  ctx: StepCtx,
  key: IssueKey,
  a: AttemptRecord,
  s: Extract<ConflictStep, { step: 'resume_conflict' }>,
): Promise<void> => {
  const ref = refOf(key);
  // A conflict found in the session's own files (markers left) is resolved where it is; otherwise the
  // runner merges the integration branch into the worktree first and names the conflicted files.
  await onAttemptHost(
    deps,
    s.files
      ? { kind: 'resume', attemptId: a.id, reason: 'conflict', conflictFiles: [...s.files] }
      : { kind: 'resume', attemptId: a.id, reason: 'conflict', mergeBase: s.base },
    [a],
  );
  await writeIssue(deps.store, ctx.run.id, formatRepo(ref.repo), ref.number, {
    conflictResumes: s.attempt,
    conflictResumeAt: a.launchedAt,
    conflictResumeSentAt: deps.clock.now().toISOString(),
  });
  deps.logger.info({ runId: ctx.run.id, issue: key, attempt: s.attempt }, s.note);
};

const perform = async (
  deps: StepPorts,
  ctx: RunCtx,
  key: IssueKey,
  a: AttemptRecord | undefined,
  s: ConflictStep,
): Promise<void> => {
  if (s.step === 'give_up' || !a)
    return deps.effects.bounce(ctx, key, s.step === 'give_up' ? s.reason : s.note);
  return resumeOnConflict(deps, ctx, key, a, s);
};

/**
 * Whether the issue's PR may be merged now as far as its conflicts go; when not, the step is performed
 * (a wait, another try, or the bounce) and false is returned.
 */
export const readyToMerge = async (deps: StepPorts, ctx: RunCtx, key: IssueKey): Promise<boolean> => {
  const a = sessionOf(ctx, key);
  const facts = factsOf(deps, ctx, key, a);
  let s = beforeMerge(facts);
  if (s.step === 'read_markers' && a) {
    // Read as the worker, in its own repository (runner/worker-git.ts), as the fleet's merge does.
    const markers = await deps.runner.markedFiles(a.id, a.conflictFiles ?? []);
    s = beforeMerge({ ...facts, markers });
  }
  if (s.step === 'merge') return true;
  if (s.step === 'wait' || s.step === 'read_markers') return false;
  await perform(deps, ctx, key, a, s);
  return false;
};

/** After the forge refused the merge: merge again next pass, resume the session, or bounce. */
export const settleRefusedMerge = async (
  deps: StepPorts,
  ctx: RunCtx,
  key: IssueKey,
  pr: number,
  refusal: MergeRefusal,
): Promise<void> => {
  const a = sessionOf(ctx, key);
  const s = afterRefusedMerge(refusal, factsOf(deps, ctx, key, a), pr);
  if (s.step === 'again') return;
  await perform(deps, ctx, key, a, s);
};
