// The review leg of a blitz PR through the review module: one advisory comment by a different model
// than the author where the roster allows; never an approval. A leg that could not post anything is
// reported as not posted, so the dashboard never claims a review that did not happen.
import type { BlitzConfig } from '../config/blitz-config.ts';
import type { Logger } from '../observability/logger.ts';
import { reviewPullRequest } from '../review/index.ts';
import type { ReviewLeg } from './context.ts';

const maxDiffBytes = 200_000;

export const createReviewLeg = (opts: {
  config: BlitzConfig;
  baseEnv: Record<string, string>;
  logger: Logger;
  ollamaHost?: string;
}): ReviewLeg => {
  return async ({ forge, repo, pr, reviewer, author: authorName, runId }) => {
    const author = opts.config.roster.find((e) => e.name === authorName);
    const ac = new AbortController();
    try {
      // The planner's pick goes first; the module falls back to the next reviewer on failure.
      const picked = opts.config.roster.find((e) => e.name === reviewer.entry.name);
      const roster = picked
        ? [picked, ...opts.config.roster.filter((e) => e !== picked)]
        : opts.config.roster;
      const result = await reviewPullRequest({
        forge,
        pr: { repo, number: pr },
        author: author
          ? {
              name: author.name,
              tool: author.tool,
              ...(author.provider ? { provider: author.provider } : {}),
            }
          : { name: 'unknown', tool: 'custom' },
        roster,
        limits: { maxDiffBytes, timeoutSeconds: opts.config.reviewTimeoutSeconds },
        baseEnv: opts.baseEnv,
        ...(opts.ollamaHost ? { ollama: { host: opts.ollamaHost } } : {}),
        signal: ac.signal,
        logger: opts.logger,
      });
      return {
        posted: result.verdict !== 'no_review',
        summary: `${result.verdict}${result.reviewer ? ` by ${result.reviewer}` : ''}`,
      };
    } catch (err) {
      opts.logger.warn({ runId, pr, err }, 'review leg failed');
      return { posted: false };
    }
  };
};
