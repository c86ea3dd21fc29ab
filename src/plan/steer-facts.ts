// The facts of one issue a steering command (`/blitz retry | skip | unhold #n`) is decided on
// (steer.ts `decideSteer`), from what was read of it: the issue on the tracker, the run's rows and the
// ledger's attempts. The reads themselves: orchestrator/steer-run.ts.
import type { Issue } from '../forges/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunIssueRecord, RunRecord } from '../store/run-store.ts';
import type { IssueCaps } from './issue-caps.ts';
import { attemptKey, deriveProgress, liveAttempt } from './issue-progress.ts';
import type { RunOptionsStored } from './run-options.ts';
import { holdOf, type SteerIssueFacts } from './steer.ts';
import { type IssueKey, issueKey, planLabels } from './types.ts';

export const steerIssueFactsOf = (
  run: Pick<RunRecord, 'repo' | 'milestoneNumber' | 'progress'>,
  at: { key: IssueKey; repo: string; number: number },
  read: { issue: Issue | undefined; rows: readonly RunIssueRecord[]; attempts: readonly AttemptRecord[] },
  limits: { runnerRetries: number; caps: IssueCaps | undefined; options: RunOptionsStored },
): SteerIssueFacts => {
  const { key, repo } = at;
  const { issue } = read;
  const ref = repo.toLowerCase() === run.repo.toLowerCase() ? `#${at.number}` : key;
  const mine = read.attempts.filter((a) => attemptKey(a) === key);
  const row = read.rows.find((r) => issueKey(r.repo, r.number) === key);
  const inMilestone =
    issue !== undefined &&
    repo.toLowerCase() === run.repo.toLowerCase() &&
    issue.milestone?.number === run.milestoneNumber;
  const progress = deriveProgress({
    rows: row ? [row] : [],
    attempts: mine,
    open: new Set(issue?.state === 'open' ? [key] : []),
    runnerRetries: limits.runnerRetries,
  })[0];
  // A PR the feedback loop held (CI red after its fix attempts, CI timed out) is held for a retry.
  const prHeld = run.progress.prFeedback?.[key]?.held !== undefined;
  const state = prHeld ? 'held' : (progress?.state ?? (inMilestone ? 'ready' : undefined));
  const maxAttempts = limits.options.maxAttemptsPerIssue;
  const hold = holdOf({
    labelHeld: issue?.labels.some((l) => l.name === planLabels.hold) ?? false,
    prHeld,
    ...(progress ? { progress } : {}),
    workerRunning: liveAttempt(mine) !== undefined,
    ...(limits.caps ? { issueCaps: limits.caps } : {}),
    ...(maxAttempts !== undefined ? { maxAttemptsPerIssue: maxAttempts } : {}),
  });
  return {
    ref,
    ...(state ? { state } : {}),
    closed: issue?.state === 'closed',
    ...(hold ? { hold } : {}),
    skipped: row?.skipped ?? false,
    workerRunning: liveAttempt(mine) !== undefined,
  };
};
