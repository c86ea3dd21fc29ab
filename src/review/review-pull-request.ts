// A review leg on one PR: pick the reviewer (the planner's review pick, then the next on failure),
// read the bounded diff, ask, and post ONE advisory comment, edited in place on a re-run. Never an
// approval, never "request changes": the only writes are the sticky comment.

import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { BoundedDiff, Forge, IssueRef, PullRequest } from '../forges/types.ts';
import { formatIssueRef, formatRepo } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import { run as execRun } from '../runner/exec.ts';
import type { FinalReport } from '../runner/final-report.ts';
import { askReviewer } from './ask-reviewer.ts';
import { describeFailure, type ReviewerFailure, renderReviewComment, reviewMarker } from './comment.ts';
import { buildReviewPrompt } from './prompt.ts';
import { reviewerOrder } from './reviewers.ts';
import type {
  ReviewAuthor,
  ReviewerAttempt,
  ReviewResult,
  ReviewRosterEntry,
  ReviewVerdict,
} from './types.ts';
import { parseReview } from './verdict.ts';

export interface ReviewPullRequestInput {
  forge: Forge;
  pr: IssueRef;
  /** The PR as the caller read it just now (the pass's feedback read): not read again. */
  pull?: PullRequest;
  /**
   * The PR's diff read without the forge (git in the bot's own clone), as the forge would serve it and
   * cut at the limit given; when it fails, the forge is asked.
   */
  readDiff?: (maxBytes: number) => Promise<BoundedDiff>;
  /** The PR's conversation held no comment just now: the review comment is posted without a look for it. */
  fresh?: boolean;
  author: ReviewAuthor;
  /** The authoring worker's FINAL REPORT (`parseFinalReport`), so the reviewer checks its claims. */
  authorReport?: FinalReport;
  roster: readonly ReviewRosterEntry[];
  limits: {
    /** The diff is cut here and the review says it is partial. */
    maxDiffBytes: number;
    /** Per reviewer (blitz.config.yml `reviewTimeoutSeconds`). */
    timeoutSeconds: number;
  };
  /** PATH, HOME and provider settings for CLI reviewers (config's `runnerBaseEnv`). */
  baseEnv: Record<string, string>;
  ollama?: { host: string | undefined };
  signal: AbortSignal;
  /** Injected for tests; defaults to the runner's `run`. */
  run?: typeof execRun;
  fetch?: typeof fetch;
  clock?: () => Date;
  /** Where reviewers' temp dirs go (default the OS temp dir). */
  workRoot?: string;
  logger?: Logger;
}

const ask = (
  input: ReviewPullRequestInput,
  entry: ReviewRosterEntry,
  prompt: string,
  placeholders: { branch: string; baseBranch: string; issue: number; repo: string },
): Promise<ReviewerAttempt> =>
  askReviewer(entry, prompt, {
    timeoutMs: input.limits.timeoutSeconds * 1000,
    signal: input.signal,
    ollamaHost: input.ollama?.host,
    placeholders,
    baseEnv: input.baseEnv,
    run: input.run ?? execRun,
    ...(input.fetch ? { fetch: input.fetch } : {}),
    ...(input.workRoot ? { workRoot: input.workRoot } : {}),
  });

const readDiffOf = async (input: ReviewPullRequestInput, log: Logger | undefined): Promise<BoundedDiff> => {
  const max = input.limits.maxDiffBytes;
  if (input.readDiff)
    try {
      return await input.readDiff(max);
    } catch (err) {
      log?.debug({ err }, 'PR diff not read from git; asking the forge');
    }
  return input.forge.getPullRequestDiff(input.pr, max);
};

export const reviewPullRequest = async (input: ReviewPullRequestInput): Promise<ReviewResult> => {
  const { forge, pr: ref } = input;
  if (!Number.isInteger(input.limits.maxDiffBytes) || input.limits.maxDiffBytes < 1)
    throw new AppError('bad_request', 'The review diff limit must be a positive whole number of bytes.');
  if (!(input.limits.timeoutSeconds > 0))
    throw new AppError('bad_request', 'The review timeout must be a positive number of seconds.');
  const cancelled = () => new AppError('cancelled', `The review of ${formatIssueRef(ref)} was cancelled.`);
  if (input.signal.aborted) throw cancelled();
  const log = input.logger?.child({ pr: formatIssueRef(ref) });
  const pull = input.pull ?? (await forge.getPullRequest(ref));
  const diff = await readDiffOf(input, log);

  const post = async (
    verdict: ReviewVerdict,
    rest: Omit<Parameters<typeof renderReviewComment>[0], 'verdict' | 'at'>,
    reviewer?: string,
  ): Promise<ReviewResult> => {
    const at = (input.clock?.() ?? new Date()).toISOString();
    const comment = renderReviewComment({ verdict, at, ...rest });
    await forge.upsertStickyComment(ref, reviewMarker, comment, input.fresh ? { fresh: true } : {});
    const fellBack = rest.failures.map(describeFailure);
    log?.info({ verdict, reviewer, fellBack: fellBack.length, truncated: diff.truncated }, 'review posted');
    return { verdict, comment, ...(reviewer ? { reviewer } : {}), fellBack };
  };

  if (diff.diff.trim() === '') return post('nothing_to_review', { failures: [], diff });

  const prompt = buildReviewPrompt({
    pr: formatIssueRef(ref),
    title: pull.title,
    body: pull.body,
    baseBranch: pull.base.ref,
    headBranch: pull.head.ref,
    diff,
    nonce: randomBytes(9).toString('hex'),
    ...(input.authorReport ? { authorReport: input.authorReport } : {}),
  });
  const placeholders = {
    branch: pull.head.ref,
    baseBranch: pull.base.ref,
    issue: ref.number,
    repo: formatRepo(ref.repo),
  };
  const failures: ReviewerFailure[] = [];
  for (const { entry, reason } of reviewerOrder(input.roster, input.author)) {
    if (input.signal.aborted) throw cancelled();
    log?.info({ reviewer: entry.name, tool: entry.tool, reason }, 'review leg started');
    const answer = await ask(input, entry, prompt, placeholders);
    if (!answer.ok) {
      log?.warn({ reviewer: entry.name, failure: answer.reason }, 'reviewer failed, trying the next');
      failures.push({
        entry: entry.name,
        reason: answer.reason,
        ...(answer.missing ? { missing: true } : {}),
      });
      continue;
    }
    const parsed = parseReview(answer.text);
    return post(parsed.verdict, { findings: parsed.findings, reviewer: entry, failures, diff }, entry.name);
  }
  const result = await post('no_review', { failures, diff });
  return failures.every((f) => f.missing) ? { ...result, noneAvailable: true } : result;
};
