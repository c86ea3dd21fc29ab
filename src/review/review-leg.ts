// The one review leg of every run kind: a PR goes to the review module (which posts ONE advisory
// comment, never an approval) with its author (the worker's roster entry, or a stand-in for a person's
// PR: any reviewer then counts as different) and the worker's FINAL REPORT as claims to check; the
// planner's reviewer pick, when there is one, is asked first.
import type { BlitzConfig } from '../config/blitz-config.ts';
import { isAppError } from '../errors.ts';
import type { BoundedDiff, Forge, IssueRef, PullRequest } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { ReviewPick } from '../plan/routing.ts';
import { verdictStateWords } from '../plan/state-words.ts';
import type { FinalReport } from '../runner/final-report.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { type ReviewAuthor, type ReviewResult, reviewPullRequest } from './index.ts';

export const defaultMaxDiffBytes = 200_000;

export interface ReviewLegPorts {
  config: Pick<BlitzConfig, 'roster' | 'reviewTimeoutSeconds'>;
  baseEnv: Record<string, string>;
  logger: Logger;
  /** The Ollama host (`OLLAMA_HOST`, from config/) for `ollama` reviewers. */
  ollamaHost?: string | undefined;
  maxDiffBytes?: number | undefined;
}

export interface ReviewLegInput {
  forge: Forge;
  pr: IssueRef;
  /** The PR as the pass read it (its feedback read): the leg does not read it again. */
  pull?: PullRequest;
  /** The PR's diff read with git in the bot's clone (the forge's read is the fallback). */
  readDiff?: (maxBytes: number) => Promise<BoundedDiff>;
  /** The PR's conversation held no comment when the pass read it: the leg's comment is posted unlooked-for. */
  fresh?: boolean;
  /** The bot's attempt that wrote the change; absent for a person's PR. */
  attempt?: AttemptRecord;
  /** The PR's author on the forge, named in the stand-in when no attempt wrote it. */
  prAuthor?: string;
  /** The planner's reviewer pick: asked first, then the module falls back to the next reviewer. */
  reviewer?: ReviewPick;
}

/**
 * The worker's full FINAL REPORT (TESTS and REVIEW too), as the runner stored it in the ledger: the
 * log itself lives on the runner's host, which need not be this one.
 */
export const reportOf = (attempt: AttemptRecord): FinalReport | undefined =>
  attempt.finalReport ? { ...attempt.finalReport } : undefined;

/** The author a review is of: the worker's roster entry, or a stand-in for a person's PR. */
export const reviewAuthorOf = (
  roster: ReviewLegPorts['config']['roster'],
  attempt: AttemptRecord | undefined,
  prAuthor: string,
): ReviewAuthor => {
  if (!attempt) return { name: `person:${prAuthor}`, tool: 'custom' };
  const entry = roster.find((e) => e.name === attempt.rosterEntry);
  return {
    name: attempt.rosterEntry,
    tool: attempt.tool,
    ...(entry?.provider ? { provider: entry.provider } : {}),
  };
};

export const runReviewLeg = async (p: ReviewLegPorts, input: ReviewLegInput): Promise<ReviewResult> => {
  const report = input.attempt ? reportOf(input.attempt) : undefined;
  const picked = input.reviewer && p.config.roster.find((e) => e.name === input.reviewer?.entry.name);
  const roster = picked ? [picked, ...p.config.roster.filter((e) => e !== picked)] : p.config.roster;
  return reviewPullRequest({
    forge: input.forge,
    pr: input.pr,
    ...(input.pull ? { pull: input.pull } : {}),
    ...(input.fresh ? { fresh: true } : {}),
    ...(input.readDiff ? { readDiff: input.readDiff } : {}),
    author: reviewAuthorOf(p.config.roster, input.attempt, input.prAuthor ?? 'unknown'),
    ...(report ? { authorReport: report } : {}),
    roster,
    limits: {
      maxDiffBytes: p.maxDiffBytes ?? defaultMaxDiffBytes,
      timeoutSeconds: p.config.reviewTimeoutSeconds,
    },
    baseEnv: p.baseEnv,
    ollama: { host: p.ollamaHost },
    signal: AbortSignal.timeout(p.config.reviewTimeoutSeconds * 1000 * 4),
    logger: p.logger,
  });
};

/** What a review leg answers: whether a comment was posted; a failed leg posted none and has no verdict. */
export interface ReviewLegAnswer {
  posted: boolean;
  summary?: string;
  verdict?: ReviewResult['verdict'];
  /**
   * Why no review was produced, in the bot's own words (never a reviewer's or forge's raw output):
   * every reviewer failed (`no_review`), or the leg itself failed (no verdict).
   */
  failure?: string;
  /** No reviewer could start on this host (none installed, or none in the roster): asking again cannot help. */
  unavailable?: true;
}

/** A failed leg's error in words for a person: its kind, never its message (which may quote a forge). */
export const reviewLegFailureWords = (err: unknown): string => {
  if (isAppError(err, 'cancelled') || isAppError(err, 'timeout')) return 'the review leg timed out';
  if (isAppError(err, 'rate_limited') || isAppError(err, 'forge_unavailable'))
    return 'the forge was unavailable to the review leg';
  if (isAppError(err, 'forbidden') || isAppError(err, 'unauthorized'))
    return 'the forge refused the review comment';
  return "the review leg failed (the bot's log has the error)";
};

/** The review port of every run kind. */
export type ReviewLeg = (input: ReviewLegInput & { runId: string }) => Promise<ReviewLegAnswer>;

/** The one review leg of a run's pass: a leg that fails is logged and answers with no verdict. */
export const createReviewLeg =
  (p: ReviewLegPorts): ReviewLeg =>
  async ({ runId, ...input }) => {
    try {
      const result = await runReviewLeg(p, input);
      return {
        posted: result.verdict !== 'no_review',
        summary: `${verdictStateWords(result.verdict)}${result.reviewer ? ` by ${result.reviewer}` : ''}`,
        verdict: result.verdict,
        ...(result.verdict === 'no_review'
          ? {
              failure:
                result.fellBack.length > 0
                  ? `every reviewer failed (${result.fellBack.join('; ')})`
                  : 'no reviewer was available',
            }
          : {}),
        ...(result.noneAvailable ? { unavailable: true } : {}),
      };
    } catch (err) {
      p.logger.warn({ runId, pr: input.pr.number, err }, 'review leg failed');
      return { posted: false, failure: reviewLegFailureWords(err) };
    }
  };
