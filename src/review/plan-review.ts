// Plan review (seed 002): reviewer workers read a PLAN, not a diff, and answer APPROVED, BLOCKED or
// PIVOT. Reuses the review legs' reviewer order (a different tool and provider than the planner),
// their CLI and Ollama runners, and their sanitising. An M plan gets one reviewer, an L plan two;
// PIVOT from any reviewer wins (it is a different question, not a worse BLOCKED), then BLOCKED.

import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { run as execRun } from '../runner/exec.ts';
import { askReviewer } from './ask-reviewer.ts';
import { describeFailure, maxFindingsChars } from './comment.ts';
import { buildPlanReviewPrompt, type PlanVerdict, parsePlanReview } from './plan-review-prompt.ts';
import { reviewerOrder } from './reviewers.ts';
import { sanitizeModelText } from './sanitize.ts';
import type { ReviewAuthor, ReviewerAttempt, ReviewRosterEntry } from './types.ts';

export interface ReviewPlanInput {
  issue: { repo: string; number: number; title: string; body: string };
  plan: string;
  size: 'XS' | 'S' | 'M' | 'L';
  /** The planner that wrote the plan: reviewers differ from it where the roster allows. */
  author: ReviewAuthor;
  roster: readonly ReviewRosterEntry[];
  timeoutSeconds: number;
  baseEnv: Record<string, string>;
  ollama?: { host: string | undefined };
  signal: AbortSignal;
  run?: typeof execRun;
  fetch?: typeof fetch;
  workRoot?: string;
  logger?: Logger;
}

export interface ReviewerVerdict {
  reviewer: string;
  verdict: PlanVerdict;
  /** Sanitised: safe to post. */
  findings: string;
}

export interface PlanReviewResult {
  /** `unclear`: a reviewer answered without a verdict; `no_review`: every reviewer failed. */
  verdict: PlanVerdict | 'unclear' | 'no_review';
  reviews: ReviewerVerdict[];
  /** One line per reviewer that failed, e.g. `slow timed out after 120 s`. */
  failures: string[];
}

const wanted = (size: ReviewPlanInput['size']): number => (size === 'L' ? 2 : 1);

const ask = (i: ReviewPlanInput, entry: ReviewRosterEntry, prompt: string): Promise<ReviewerAttempt> =>
  askReviewer(entry, prompt, {
    timeoutMs: i.timeoutSeconds * 1000,
    signal: i.signal,
    ollamaHost: i.ollama?.host,
    placeholders: { branch: 'plan', baseBranch: 'plan', issue: i.issue.number, repo: i.issue.repo },
    baseEnv: i.baseEnv,
    run: i.run ?? execRun,
    ...(i.fetch ? { fetch: i.fetch } : {}),
    ...(i.workRoot ? { workRoot: i.workRoot } : {}),
  });

export const reviewPlan = async (i: ReviewPlanInput): Promise<PlanReviewResult> => {
  if (!(i.timeoutSeconds > 0))
    throw new AppError('bad_request', 'The plan review timeout must be a positive number of seconds.');
  if (i.plan.trim() === '') throw new AppError('bad_request', 'There is no plan to review.');
  const cancelled = () => new AppError('cancelled', `The plan review of #${i.issue.number} was cancelled.`);
  const prompt = buildPlanReviewPrompt({
    issue: `${i.issue.repo}#${i.issue.number}`,
    title: i.issue.title,
    body: i.issue.body,
    plan: i.plan,
    size: i.size,
    nonce: randomBytes(9).toString('hex'),
  });
  const reviews: ReviewerVerdict[] = [];
  const failures: string[] = [];
  let unclear = false;
  for (const { entry } of reviewerOrder(i.roster, i.author)) {
    if (reviews.length >= wanted(i.size)) break;
    if (i.signal.aborted) throw cancelled();
    const answer = await ask(i, entry, prompt);
    if (!answer.ok) {
      failures.push(describeFailure({ entry: entry.name, reason: answer.reason }));
      i.logger?.warn({ reviewer: entry.name, failure: answer.reason }, 'plan reviewer failed');
      continue;
    }
    const parsed = parsePlanReview(answer.text);
    const findings = sanitizeModelText(parsed.findings || '- none', { maxChars: maxFindingsChars });
    if (parsed.verdict === 'unclear') {
      unclear = true;
      failures.push(`${entry.name} answered without a verdict`);
      continue;
    }
    reviews.push({ reviewer: entry.name, verdict: parsed.verdict, findings });
  }
  const has = (v: PlanVerdict) => reviews.some((r) => r.verdict === v);
  const verdict =
    reviews.length === 0
      ? unclear
        ? 'unclear'
        : 'no_review'
      : has('pivot')
        ? 'pivot'
        : has('blocked')
          ? 'blocked'
          : 'approved';
  i.logger?.info({ issue: i.issue.number, verdict, reviewers: reviews.length }, 'plan reviewed');
  return { verdict, reviews, failures };
};
