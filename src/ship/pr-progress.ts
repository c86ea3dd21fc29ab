// The PR feedback loop's words (pure): the worker's phase against the resume the bot asked for, the
// bot's own `blitz` check on a worker PR's head (what the loop is doing), and a hold's sentence.
import { formatIssueRef, type ProgressReport, type RepoRef } from '../forges/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { PrFeedbackState } from '../store/run-store.ts';
import { describeCiVerdict } from './ci-verdict.ts';
import type { PrFacts } from './pr-facts.ts';
import type { WorkerPhase } from './pr-gate.ts';

/** The worker's phase as the ledger shows it against the last resume the bot asked for. */
export const workerPhase = (
  attempt: Pick<AttemptRecord, 'id' | 'outcome' | 'feedbackResumes'> | undefined,
  asked: PrFeedbackState['asked'],
): WorkerPhase => {
  if (attempt && attempt.outcome === undefined) return 'live';
  if (asked && attempt?.id === asked.attemptId && (attempt.feedbackResumes ?? 0) <= asked.resumes)
    return 'resume_pending';
  return 'idle';
};

/** The bot's own check for the head: what the loop is doing, as a check run or commit status. */
export const progressReport = (facts: PrFacts, detailsUrl: string | undefined): ProgressReport => {
  const d = facts.decision;
  const ciLine = describeCiVerdict(facts.ci);
  const verdict = facts.state.reviewVerdict;
  // Complete only with both legs in: the review leg's verdict and a build (CI) that lets it merge.
  const ready = d.kind === 'merge' && verdict !== undefined;
  const state: ProgressReport['state'] = ready
    ? 'success'
    : d.kind === 'hold'
      ? 'failure'
      : facts.worker === 'live' || d.kind === 'resume' || d.kind === 'merge'
        ? 'in_progress'
        : facts.ci.kind === 'red'
          ? 'failure'
          : 'in_progress';
  const title = ready
    ? `ready to merge: review ${verdict}; ${d.why}`
    : d.kind === 'merge'
      ? `${d.why}; waiting for the review leg`
      : d.kind === 'resume'
        ? `worker resumed: ${d.why}`
        : d.kind === 'hold'
          ? `held: ${d.why}`
          : d.why;
  const lines = [
    `- Review leg: ${verdict ?? 'not in yet'}`,
    `- Build (the repository's CI): ${ciLine}`,
    `- Reviews by people: ${facts.review.kind === 'changes_requested' ? `changes requested by ${facts.review.by.map((r) => r.author).join(', ')}` : 'no change request standing on this head'}`,
    `- CI fix attempts: ${facts.state.fixAttempts}`,
    ...(detailsUrl ? [`- Status page: ${detailsUrl}`] : []),
  ];
  const waiting =
    state === 'in_progress' &&
    facts.worker === 'idle' &&
    (d.kind === 'merge' || (d.kind === 'wait' && d.on === 'ci'));
  const working = state === 'in_progress' && d.kind === 'wait' && facts.worker !== 'idle';
  return {
    state,
    title: title.slice(0, 200),
    summary: lines.join('\n'),
    ...(detailsUrl ? { detailsUrl } : {}),
    ...(waiting ? { waiting } : {}),
    ...(working ? { working } : {}),
  };
};

/**
 * The check a new worker PR starts with, until the loop first reads its head: the opening report
 * (`queued`; GitHub shows it in progress, Gitea pending), waiting for the review leg and the build.
 */
export const queuedReport = (detailsUrl: string | undefined): ProgressReport => ({
  state: 'queued',
  title: 'waiting for the review leg and the build',
  summary: [
    '- Review leg: not in yet',
    "- Build (the repository's CI): not read yet",
    ...(detailsUrl ? [`- Status page: ${detailsUrl}`] : []),
  ].join('\n'),
  ...(detailsUrl ? { detailsUrl } : {}),
});

/** The sentence of a hold's notice: what stopped, and the one command that continues. */
export const holdSentence = (repo: RepoRef, issue: number, why: string): string =>
  `${formatIssueRef({ repo, number: issue }, repo)} is held: ${why}. Push a fix to its branch or say \`/blitz retry ${formatIssueRef({ repo, number: issue }, repo)}\` to give its worker another round.`;
