// What an executor step did to one issue of a run (an outcome), folded with the issue's row as the step
// read it into the row's patch: the one place that decides which state an issue row goes to. Steps do
// their IO and name what happened; they never pick the row's state. A move the issue-row table forbids
// (plan/states.ts: a merged or closed row never goes back into the pipeline) keeps the row's state and
// records the outcome's fields alone. Pure, like the rest of src/plan/.
import type { RunIssuePatch, RunIssueRecord } from '../store/run-store.ts';
import type { Landing, MemberPhase } from './plan-member.ts';
import { canTransitionIssue, type IssueRowState } from './states.ts';

export type IssueOutcome =
  /** A worker's attempt (the issue's `attempt`-th) was queued. */
  | { kind: 'dispatched'; attempt: number }
  /**
   * The worker's branch has its PR: into the integration branch (a blitz, a fleet), or straight into the
   * default branch (`xs`, a plan run's XS lane, which ships it).
   */
  | { kind: 'prOpened'; number: number; branch: string; lane: 'integration' | 'xs' }
  /** The review leg posted its review on the PR. */
  | { kind: 'reviewPosted' }
  /** The review leg produced no review: the PR waits for the leg to be asked again. */
  | { kind: 'reviewNotPosted' }
  /**
   * No review will come (no review module, or the PR's leg kept failing): the row stops waiting on the
   * leg and stays where it is; nothing claims a review happened.
   */
  | { kind: 'reviewSkipped' }
  /** The PR is merged, at `sha`. */
  | { kind: 'merged'; sha: string }
  /** The issue is closed on the tracker (by this run, or found closed). */
  | { kind: 'closed' }
  /**
   * The merged work was reverted (a red build blamed it): the redo starts afresh, told `feedback`;
   * failures before attempt `after` no longer count.
   */
  | { kind: 'bounced'; feedback: string; after?: string }
  /** A plan-run member entered a phase; `last` is its newest attempt, `feedback` what the phase is told. */
  | { kind: 'phaseEntered'; phase: MemberPhase | 'reviewing' | 'shipping'; last?: string; feedback?: string }
  /** A plan-run member landed in its wave, with the landing's words. */
  | { kind: 'landed'; landing: Landing; note?: string };

export type IssueOutcomeKind = IssueOutcome['kind'];

/** The phases a planner or worker starts afresh in: attempts before entering one no longer count. */
const freshPhases: readonly string[] = ['sizing', 'planning', 'fixing', 'coding'] satisfies MemberPhase[];

/** The state an outcome moves the row to (undefined: the outcome does not move it), and its fields. */
const proposed = (o: IssueOutcome): { to?: IssueRowState; fields: RunIssuePatch } => {
  switch (o.kind) {
    case 'dispatched':
      return { to: 'dispatched', fields: { attempts: o.attempt } };
    case 'prOpened':
      return {
        to: o.lane === 'xs' ? 'shipping' : 'pr_open',
        fields: { prNumber: o.number, branch: o.branch },
      };
    case 'reviewPosted':
      return { to: 'reviewed', fields: { reviewPosted: true } };
    case 'reviewNotPosted':
      return { to: 'pr_open', fields: { reviewPosted: false } };
    case 'reviewSkipped':
      return { fields: { reviewPosted: true } };
    case 'merged':
      return { to: 'merged', fields: { mergedSha: o.sha } };
    case 'closed':
      return { to: 'closed', fields: {} };
    case 'bounced':
      return {
        to: 'bounced',
        fields: {
          mergedSha: null,
          prNumber: null,
          reviewPosted: false,
          lastError: o.feedback,
          ...(o.after !== undefined ? { bouncedAfter: o.after } : {}),
          // The redo is a new session: its conflicts get tries of their own.
          conflictResumes: 0,
          conflictResumeAt: null,
          conflictResumeSentAt: null,
        },
      };
    case 'phaseEntered':
      return {
        to: o.phase,
        fields: {
          ...(freshPhases.includes(o.phase) && o.last !== undefined ? { bouncedAfter: o.last } : {}),
          ...(o.feedback !== undefined ? { lastError: o.feedback } : {}),
        },
      };
    case 'landed':
      return { to: o.landing, fields: o.note ? { lastError: o.note } : {} };
  }
};

/**
 * The patch an outcome makes of the row as it is (`row` undefined: no row yet, created `ready`). A move
 * the issue-row table forbids from the row's state keeps the state; the outcome's fields are written.
 */
export const issuePatch = (
  row: Pick<RunIssueRecord, 'state'> | undefined,
  o: IssueOutcome,
): RunIssuePatch => {
  const { to, fields } = proposed(o);
  if (to === undefined) return fields;
  const from = row?.state ?? 'ready';
  return canTransitionIssue(from, to) ? { state: to, ...fields } : fields;
};
