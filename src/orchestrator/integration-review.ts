// The integration review (seed 000 §3.5), when the planner says it is due (plan/readiness.ts): the
// accumulated diff, read with git in the bot's clone, is reviewed (review/integration-review.ts). Each
// finding becomes a milestone issue once (keyed by its text), wired as a blocker of the open issues the
// reviewer names; the verdict is kept for the dashboard.
import { oneLine } from '../dashboard/escape.ts';
import type { IssueRef } from '../forges/types.ts';
import { askIntegrationReview } from '../review/integration-review.ts';
import { sanitizeModelText } from '../review/sanitize.ts';
import { git } from '../runner/git.ts';
import { integrationWorktree } from '../runner/integration-git.ts';
import { integrationGitOf } from '../runner/worker-clone.ts';
import type { RunCtx } from '../runs/context.ts';
import type { Clock, Log, Records, Reviewers, Settings, Workers } from '../runs/ports.ts';
import { firstTime, setProgress } from '../runs/run-writer.ts';
import type { RunProgress } from '../store/run-store.ts';

const maxDiffBytes = 200_000;

/** The last review's answer, kept in the run's progress for the dashboard and the gate. */
export type IntegrationReviewRecord = NonNullable<RunProgress['integrationReview']>;

const diffOf = async (deps: Workers & Settings, ctx: RunCtx) => {
  const g = await integrationGitOf(deps, ctx);
  const base = ctx.defaultBranch;
  const path = await integrationWorktree(g, undefined, [base]);
  const full = await git(['diff', `origin/${base}...HEAD`], path, g.ctx);
  const totalBytes = Buffer.byteLength(full);
  const diff =
    totalBytes > maxDiffBytes ? Buffer.from(full).subarray(0, maxDiffBytes).toString('utf8') : full;
  return { diff, truncated: totalBytes > maxDiffBytes, totalBytes };
};

/** Runs one integration review; returns how many new issues it filed (the next pass plans them). */
export const runIntegrationReview = async (
  deps: Records & Workers & Clock & Log & Settings & Reviewers,
  ctx: RunCtx,
): Promise<number> => {
  const diff = await diffOf(deps, ctx);
  const openIssues = [...ctx.issues.values()].map((i) => ({ number: i.number, title: i.title }));
  const answer = await askIntegrationReview(
    {
      roster: deps.config.roster,
      timeoutSeconds: deps.config.reviewTimeoutSeconds,
      ollamaHost: deps.fleet?.ollamaHost,
      baseEnv: deps.baseEnv,
      logger: deps.logger,
    },
    ctx.run,
    { defaultBranch: ctx.defaultBranch, openIssues, diff },
  );
  const parsed = answer?.parsed;
  let filed = 0;
  if (parsed && (parsed.verdict === 'minor' || parsed.verdict === 'blocking')) {
    for (const f of parsed.findings) {
      const text = sanitizeModelText(f.text, { maxChars: 2_000 });
      // Recorded before the issue is created: a crash in between loses a finding rather than filing it twice.
      if (!(await firstTime(deps, ctx, `integration:${text.replace(/\s+/g, ' ').trim().toLowerCase()}`)))
        continue;
      const issue = await ctx.forge.createIssue(ctx.repo, {
        title: `Integration review: ${oneLine(text, 80)}`,
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
