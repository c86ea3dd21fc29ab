// A review leg on one PR through the review module: the author is the worker's roster entry when the
// bot's worker wrote it, or a stand-in for a person's PR (any reviewer then counts as different);
// the worker's FINAL REPORT goes in as claims to check. The module posts the one comment.
import type { Forge, IssueRef } from '../../forges/types.ts';
import { type ReviewAuthor, type ReviewResult, reviewPullRequest } from '../../review/index.ts';
import type { FinalReport } from '../../runner/final-report.ts';
import type { AttemptRecord } from '../../runner/types.ts';
import { defaultMaxDiffBytes, type FleetDeps } from './fleet-context.ts';

/**
 * The worker's full FINAL REPORT (TESTS and REVIEW too), as the runner stored it in the ledger: the
 * log itself lives on the runner's host, which need not be this one.
 */
export const reportOf = (attempt: AttemptRecord): FinalReport | undefined =>
  attempt.finalReport ? { ...attempt.finalReport } : undefined;

const authorOf = (deps: FleetDeps, attempt: AttemptRecord | undefined, prAuthor: string): ReviewAuthor => {
  if (!attempt) return { name: `person:${prAuthor}`, tool: 'custom' };
  const entry = deps.config.roster.find((e) => e.name === attempt.rosterEntry);
  return {
    name: attempt.rosterEntry,
    tool: attempt.tool,
    ...(entry?.provider ? { provider: entry.provider } : {}),
  };
};

export const runReviewLeg = async (
  deps: FleetDeps,
  input: { forge: Forge; pr: IssueRef; attempt?: AttemptRecord; prAuthor?: string },
): Promise<ReviewResult> => {
  const report = input.attempt ? reportOf(input.attempt) : undefined;
  return reviewPullRequest({
    forge: input.forge,
    pr: input.pr,
    author: authorOf(deps, input.attempt, input.prAuthor ?? 'unknown'),
    ...(report ? { authorReport: report } : {}),
    roster: deps.config.roster,
    limits: {
      maxDiffBytes: deps.fleet?.maxDiffBytes ?? defaultMaxDiffBytes,
      timeoutSeconds: deps.config.reviewTimeoutSeconds,
    },
    baseEnv: deps.baseEnv,
    ollama: { host: deps.fleet?.ollamaHost },
    signal: AbortSignal.timeout(deps.config.reviewTimeoutSeconds * 1000 * 4),
    logger: deps.logger,
  });
};
