// A fleet PR's next merge step, once a person asked for the merge (seed 004 §6): the PR merged
// elsewhere is recorded; behind → update the branch; conflicts → the worker is resumed to merge the
// base in (at most `maxConflictResumes` times); after that, the files that conflicted are checked for
// leftover markers and the repo's build runs in the worktree; clean and at the head the PR gate let
// through → squash. A step that cannot go ahead leaves a note for the scoreboard, never a merge.
// The orchestrator (fleet/merge-ticket.ts) gathers the facts and performs the step; a fact that costs
// IO (the resume job's state, the marker check, the build) is asked for with a `read` step, and the
// step is decided again with its answer.
import type { PullRequest } from '../forges/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { conflictStep, markersLeft } from './merge-conflict.ts';
import { outcomeStateWords } from './state-words.ts';

// The tries and their words are the blitz's too (plan/merge-conflict.ts): one conflict policy.
export { maxConflictResumes } from './merge-conflict.ts';

/** The PR as the forge shows it this pass (`mergeable` null: not computed yet). */
export type MergePr = Pick<
  PullRequest,
  'merged' | 'state' | 'mergeCommitSha' | 'head' | 'base' | 'mergeState' | 'mergeable'
>;

/** The ticket's latest attempt; `remote`: it ran on another host (a remote runner, another replica's). */
export type MergeAttempt = Pick<
  AttemptRecord,
  'outcome' | 'failureSummary' | 'launchedAt' | 'conflictFiles'
> & {
  remote: boolean;
};

/** The build in the worktree after the base was merged in. */
export type BuildFact =
  /** The repo names no build command. */
  | { state: 'none' }
  /** Sent to the attempt's host and not finished. */
  | { state: 'pending' }
  | { state: 'done'; exitCode: number; timedOut: boolean }
  /** The attempt's host did not run it, or sent no result. */
  | { state: 'missing'; reason: 'not_run' | 'no_result' };

export interface MergeFacts {
  /** A person's `/merge` stands. */
  requested: boolean;
  /** Read on `read pr`. */
  pr?: MergePr;
  attempt?: MergeAttempt;
  ticket: {
    /** A resumed worker is merging the base in. */
    resolving: boolean;
    /** The attempt's `launchedAt` when the conflict resume was sent. */
    resumeSentAt?: string;
    conflictResumes: number;
  };
  /** The head the PR feedback gate let through (green CI, no standing change request). */
  gatedHead?: string;
  /** Read on `read resume_job`: whether the queued conflict resume failed on its host, and why. */
  resumeJob?: { failed: false } | { failed: true; error: string };
  /** Read on `read markers`: the conflicted files that still hold a conflict marker. */
  markers?: readonly string[];
  /** Read on `read build`. */
  build?: BuildFact;
  /** Sending the conflict resume this pass failed, and why. */
  resumeNotSent?: string;
}

export type MergeStep =
  /** Nothing this pass (a worker or build still running, mergeability not computed, head not gated). */
  | { step: 'none' }
  /** Read this fact, then decide again. */
  | { step: 'read'; fact: 'pr' | 'resume_job' | 'markers' | 'build' }
  /** The PR merged without the bot: record it. */
  | { step: 'record_merged'; sha: string }
  /** The merge cannot go ahead now: say why on the scoreboard. */
  | { step: 'note'; note: string }
  /** A person has to look and say `/merge` again. */
  | { step: 'withdraw'; note: string }
  /**
   * The resumed worker's work is checked: the resolution ends (the conflicted files kept). With a
   * `problem` the merge request is withdrawn; without one, decide again.
   */
  | { step: 'end_resolving'; conflictFiles?: readonly string[]; problem?: string }
  | { step: 'update_branch'; note: string }
  /** The runner holding the worktree merges the base in and resumes the worker on the conflicts. */
  | { step: 'resume_worker'; base: string; note: string }
  | { step: 'squash' };

const buildProblem = (b: BuildFact): string | undefined => {
  if (b.state === 'missing')
    return b.reason === 'not_run'
      ? `the build after the base merge did not run on the attempt's runner`
      : `the attempt's runner sent no build result`;
  if (b.state === 'done' && (b.exitCode !== 0 || b.timedOut))
    return 'the tests failed after the base was merged in';
  return undefined;
};

/** After the resumed worker finished: its outcome, leftover markers (local only), then the build. */
const resolutionStep = (f: MergeFacts, a: MergeAttempt): MergeStep => {
  const conflictFiles = a.conflictFiles ?? [];
  if (a.outcome !== 'solved')
    return {
      step: 'end_resolving',
      conflictFiles,
      problem: `merge stopped, the worker did not resolve it: ${a.failureSummary ?? outcomeStateWords(a.outcome ?? 'no outcome')}`,
    };
  // A remote attempt's supervisor checked the pushed branch for markers before it called it solved.
  if (!a.remote) {
    if (f.markers === undefined) return { step: 'read', fact: 'markers' };
    if (f.markers.length > 0)
      return {
        step: 'end_resolving',
        conflictFiles,
        problem: markersLeft(f.markers),
      };
  }
  if (f.build === undefined) return { step: 'read', fact: 'build' };
  if (f.build.state === 'pending') return { step: 'none' };
  const problem = buildProblem(f.build);
  return problem
    ? { step: 'end_resolving', conflictFiles, problem }
    : { step: 'end_resolving', conflictFiles };
};

export const fleetMergeStep = (f: MergeFacts): MergeStep => {
  if (!f.requested) return { step: 'none' };
  const { pr, attempt: a, ticket: t } = f;
  if (pr === undefined) return { step: 'read', fact: 'pr' };
  if (pr.merged) return { step: 'record_merged', sha: pr.mergeCommitSha ?? pr.head.sha };
  if (pr.state === 'closed') return { step: 'note', note: 'the PR was closed without merging' };
  if (f.resumeNotSent !== undefined)
    return {
      step: 'end_resolving',
      problem: `the worker could not be resumed to merge the base in: ${f.resumeNotSent}`,
    };
  // A resumed worker is still merging the base in (or its resume has not reached its host): wait.
  if (a && a.outcome === undefined) return { step: 'none' };
  if (t.resolving && a && a.launchedAt === t.resumeSentAt) {
    if (f.resumeJob === undefined) return { step: 'read', fact: 'resume_job' };
    if (!f.resumeJob.failed) return { step: 'none' };
    return {
      step: 'end_resolving',
      problem: `the worker could not be resumed on its runner: ${f.resumeJob.error}`,
    };
  }
  if (t.resolving && a) return resolutionStep(f, a);
  if (pr.mergeState === 'behind')
    return { step: 'update_branch', note: `brought up to date with ${pr.base.ref}` };
  if (pr.mergeState === 'dirty' || pr.mergeable === false) {
    const c = conflictStep(
      { resumes: t.conflictResumes, session: a !== undefined, base: pr.base.ref },
      `conflicts with ${pr.base.ref}`,
    );
    // A fleet merges only on a person's word: out of tries, the word is spent and a person merges the base in.
    if (c.step === 'give_up')
      return {
        step: 'withdraw',
        note: `still conflicts with ${pr.base.ref}; a person has to merge the base in`,
      };
    return { step: 'resume_worker', base: c.base, note: c.note };
  }
  if (pr.mergeState === 'blocked')
    return { step: 'note', note: 'the forge blocks the merge (branch protection or required checks)' };
  if (pr.mergeable === null) return { step: 'none' };
  // A head pushed since the gate read it (a conflict resolved, a fix) is gated again first.
  if (f.gatedHead !== undefined && pr.head.sha !== f.gatedHead) return { step: 'none' };
  return { step: 'squash' };
};
