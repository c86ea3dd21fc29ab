// The integration review's ask (seed 000 §3.5): the accumulated diff `default…blitz/<slug>` goes to the
// roster's reviewers in the review module's order until one answers, and that answer is read. Filing
// its findings and keeping the verdict on the run: orchestrator/integration-review.ts.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../observability/logger.ts';
import { run as execRun } from '../runner/exec.ts';
import type { RunRecord } from '../store/run-store.ts';
import { askReviewer } from './ask-reviewer.ts';
import {
  buildIntegrationReviewPrompt,
  type IntegrationPromptInput,
  type IntegrationReviewAnswer,
  parseIntegrationReview,
} from './integration-review-prompt.ts';
import { reviewerOrder } from './reviewers.ts';
import type { ReviewRosterEntry } from './types.ts';

export interface IntegrationReviewAsk {
  roster: readonly ReviewRosterEntry[];
  timeoutSeconds: number;
  ollamaHost: string | undefined;
  baseEnv: Record<string, string>;
  logger: Logger;
}

/** The first reviewer's answer, read; undefined when every reviewer failed. */
export const askIntegrationReview = async (
  p: IntegrationReviewAsk,
  run: Pick<RunRecord, 'id' | 'repo' | 'milestoneTitle' | 'integrationBranch' | 'triggerIssue'>,
  input: Pick<IntegrationPromptInput, 'defaultBranch' | 'openIssues' | 'diff'>,
): Promise<{ reviewer: string; parsed: IntegrationReviewAnswer } | undefined> => {
  const prompt = buildIntegrationReviewPrompt({
    ...input,
    milestone: run.milestoneTitle,
    integrationBranch: run.integrationBranch,
    nonce: randomBytes(9).toString('hex'),
  });
  const timeoutMs = p.timeoutSeconds * 1000;
  const placeholders = {
    branch: run.integrationBranch,
    baseBranch: input.defaultBranch,
    issue: run.triggerIssue ?? 0,
    repo: run.repo,
  };
  for (const { entry } of reviewerOrder(p.roster, { name: 'blitz-bot', tool: 'custom' })) {
    const got = await askReviewer(entry, prompt, {
      timeoutMs,
      signal: AbortSignal.timeout(timeoutMs + 5_000),
      ollamaHost: p.ollamaHost,
      placeholders,
      baseEnv: p.baseEnv,
      run: execRun,
    });
    if (got.ok) return { reviewer: entry.name, parsed: parseIntegrationReview(got.text) };
    p.logger.warn({ runId: run.id, reviewer: entry.name }, 'integration reviewer failed, trying the next');
  }
  return undefined;
};
