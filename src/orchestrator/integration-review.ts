// The integration review (seed 000 §3.5): when the planner says it is due (src/plan/readiness.ts:
// after a wave, every 3 merged issues, before the readiness gate), the accumulated diff
// `default…blitz/<slug>` is reviewed for cross-issue drift by the review module's reviewer order. Each finding becomes a milestone issue once (keyed by its text),
// wired as a blocker of the open issues the reviewer names; the verdict is kept for the dashboard.

import { randomBytes } from 'node:crypto';
import type { IssueRef } from '../forges/types.ts';
import { askReviewer } from '../review/ask-reviewer.ts';
import { buildIntegrationReviewPrompt, parseIntegrationReview } from '../review/integration-review-prompt.ts';
import { reviewerOrder } from '../review/reviewers.ts';
import { sanitizeModelText } from '../review/sanitize.ts';
import type { ReviewerAttempt, ReviewRosterEntry } from '../review/types.ts';
import { run as execRun } from '../runner/exec.ts';
import { git } from '../runner/git.ts';
import { integrationWorktree } from '../runner/integration-git.ts';
import type { RunProgress } from '../store/run-store.ts';
import type { RunCtx } from './context.ts';
import { integrationGitOf } from './dispatch-attempt.ts';
import type { Clock, Log, Records, Reviewers, Settings, Workers } from './ports.ts';
import { firstTime, setProgress } from './run-writer.ts';

const maxDiffBytes = 200_000;
const maxTitle = 80;

/** The last review's answer, kept in the run's progress for the dashboard and the gate. */
export type IntegrationReviewRecord = NonNullable<RunProgress['integrationReview']>;

const diffOf = async (deps: Workers & Settings, ctx: RunCtx) => {
  const g = await integrationGitOf(deps, ctx);
  const path = await integrationWorktree(g);
  const base = ctx.defaultBranch;
  await git(['fetch', '--quiet', 'origin', `+refs/heads/${base}:refs/remotes/origin/${base}`], path, g.ctx);
  const full = await git(['diff', `origin/${base}...HEAD`], path, g.ctx);
  const totalBytes = Buffer.byteLength(full);
  const diff =
    totalBytes > maxDiffBytes ? Buffer.from(full).subarray(0, maxDiffBytes).toString('utf8') : full;
  return { diff, truncated: totalBytes > maxDiffBytes, totalBytes };
};

const ask = (deps: Settings & Reviewers, ctx: RunCtx, entry: ReviewRosterEntry, prompt: string) => {
  const timeoutMs = deps.config.reviewTimeoutSeconds * 1000;
  return askReviewer(entry, prompt, {
    timeoutMs,
    signal: AbortSignal.timeout(timeoutMs + 5_000),
    ollamaHost: deps.fleet?.ollamaHost,
    placeholders: {
      branch: ctx.run.integrationBranch,
      baseBranch: ctx.defaultBranch,
      issue: ctx.run.triggerIssue ?? 0,
      repo: ctx.run.repo,
    },
    baseEnv: deps.baseEnv,
    run: execRun,
  });
};

const titleOf = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxTitle ? `${flat.slice(0, maxTitle - 1)}…` : flat;
};

/** Runs one integration review; returns how many new issues it filed (the next pass plans them). */
export const runIntegrationReview = async (
  deps: Records & Workers & Clock & Log & Settings & Reviewers,
  ctx: RunCtx,
): Promise<number> => {
  const diff = await diffOf(deps, ctx);
  const openIssues = [...ctx.issues.values()].map((i) => ({ number: i.number, title: i.title }));
  const prompt = buildIntegrationReviewPrompt({
    milestone: ctx.run.milestoneTitle,
    defaultBranch: ctx.defaultBranch,
    integrationBranch: ctx.run.integrationBranch,
    openIssues,
    diff,
    nonce: randomBytes(9).toString('hex'),
  });
  let answer: { text: string; reviewer: string } | undefined;
  for (const { entry } of reviewerOrder(deps.config.roster, { name: 'blitz-bot', tool: 'custom' })) {
    const got: ReviewerAttempt = await ask(deps, ctx, entry, prompt);
    if (got.ok) {
      answer = { text: got.text, reviewer: entry.name };
      break;
    }
    deps.logger.warn(
      { runId: ctx.run.id, reviewer: entry.name },
      'integration reviewer failed, trying the next',
    );
  }
  const parsed = answer ? parseIntegrationReview(answer.text) : undefined;
  let filed = 0;
  if (parsed && (parsed.verdict === 'minor' || parsed.verdict === 'blocking')) {
    for (const f of parsed.findings) {
      const text = sanitizeModelText(f.text, { maxChars: 2_000 });
      // Recorded before the issue is created: a crash in between loses a finding rather than filing it twice.
      if (!(await firstTime(deps, ctx, `integration:${text.replace(/\s+/g, ' ').trim().toLowerCase()}`)))
        continue;
      const issue = await ctx.forge.createIssue(ctx.repo, {
        title: `Integration review: ${titleOf(text)}`,
        body: `Found by the integration review (${answer!.reviewer}) of \`${ctx.run.integrationBranch}\` during the blitz of ${ctx.run.milestoneTitle}:\n\n${text}`,
        milestone: ctx.run.milestoneNumber,
      });
      filed++;
      // Kept for the planner, which dispatches findings before unrelated new issues (plan/findings-first.ts).
      await setProgress(deps, ctx, (p) => ({
        reviewFindings: [...(p.reviewFindings ?? []), issue.ref.number],
      }));
      for (const n of f.blocks) {
        const blocked: IssueRef = { repo: ctx.repo, number: n };
        if (openIssues.some((o) => o.number === n)) await ctx.forge.addBlockedBy(blocked, issue.ref);
      }
    }
  }
  const record: IntegrationReviewRecord = {
    verdict: parsed ? parsed.verdict : 'no_review',
    at: deps.clock.now().toISOString(),
    filed,
    ...(answer ? { reviewer: answer.reviewer } : {}),
  };
  await setProgress(deps, ctx, {
    mergedSinceReview: 0,
    integrationReview: record,
    reviewRequested: undefined,
  });
  deps.logger.info({ runId: ctx.run.id, verdict: record.verdict, filed }, 'integration review done');
  return filed;
};
