// What a pass read about one plan-wave member, as its step (plan-member.ts `memberStep`) reads it: its
// size, its row's state and findings, its attempts in this phase, its dispatches and first tries, the
// answer recorded on it, an XS merge under way as the forge shows it now, and its conflict resumes.
import type { AttemptRecord } from '../runner/types.ts';
import type { RunIssueRecord } from '../store/run-store.ts';
import { attemptKey, issueAttempts } from './issue-progress.ts';
import { conflictResumeOf } from './merge-conflict.ts';
import { sizeOf } from './plan-labels.ts';
import type { MemberAnswer, MemberRead, MergeRead } from './plan-member.ts';
import type { IssueKey, PlanIssue } from './types.ts';

interface MemberCtx {
  issues: ReadonlyMap<IssueKey, PlanIssue>;
  rows: ReadonlyMap<string, RunIssueRecord>;
  attempts: readonly AttemptRecord[];
}

/** An XS's conflict resumes (its row), and whether the last one has not started on its host yet. */
const conflictsOf = (
  ctx: MemberCtx,
  key: IssueKey,
  now: string,
): Pick<MemberRead, 'conflictResumes' | 'conflictResume'> => {
  const row = ctx.rows.get(key);
  if (!row?.conflictResumes) return {};
  const latest = issueAttempts(ctx, key).at(-1);
  const resume = latest && conflictResumeOf(row, latest, now);
  return {
    conflictResumes: row.conflictResumes,
    ...(resume && resume !== 'started' ? { conflictResume: resume } : {}),
  };
};

export const memberReadOf = (
  ctx: MemberCtx,
  key: IssueKey,
  now: string,
  answer: MemberAnswer | undefined,
  merge: MergeRead | undefined,
): MemberRead => {
  const issue = ctx.issues.get(key);
  const row = ctx.rows.get(key);
  const size = issue && sizeOf(issue);
  const state = row?.state ?? 'queued';
  return {
    key,
    open: issue !== undefined,
    ...(size ? { size } : {}),
    state,
    attempts: issueAttempts(ctx, key).map((a) => ({
      id: a.id,
      retry: a.job.retry,
      ...(a.outcome ? { outcome: a.outcome } : {}),
      ...(a.failureSummary ? { failureSummary: a.failureSummary } : {}),
      ...(a.endedAt ? { endedAt: a.endedAt } : {}),
    })),
    now,
    dispatches: row?.attempts ?? 0,
    firstTries: ctx.attempts.filter((a) => attemptKey(a) === key && a.job.retry === 0).length,
    ...(state === 'fixing' && row?.lastError !== undefined ? { findings: row.lastError } : {}),
    ...(answer ? { answer } : {}),
    ...(merge ? { merge } : {}),
    ...conflictsOf(ctx, key, now),
  };
};
