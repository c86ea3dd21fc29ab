// A review leg that produced no review, for blitz and fleet alike: counted on its PR, the PR is
// reviewed again on a later pass, up to plan/review-leg-failures.ts's bound; at the bound its verdict
// says `no review: <why>, N times` and the row stops waiting on the leg. What a person is told is the
// run kind's own (a blitz's warning, the fleet's /merge notice).
import { noReviewVerdict, reviewLegFailed } from '../plan/review-leg-failures.ts';
import type { Records } from '../runs/ports.ts';
import { writeOutcome } from '../runs/run-writer.ts';
import type { RunIssueRecord, RunRecord } from '../store/run-store.ts';
import { countReviewLegFailure, keepReviewVerdict } from './pr-feedback.ts';

/**
 * `why` is the leg's failure in the bot's words. Answers why the PR has no review once the bound is
 * reached (the PR then goes on without one), else undefined (the leg is asked again).
 */
export const settleFailedReviewLeg = async (
  deps: Records,
  ctx: { run: Pick<RunRecord, 'id'>; rows: ReadonlyMap<string, RunIssueRecord> },
  issue: { key: string; repo: string; number: number; pr: number },
  why: string,
): Promise<string | undefined> => {
  const at = { repo: issue.repo, number: issue.number };
  const row = ctx.rows.get(issue.key);
  const failed = reviewLegFailed(await countReviewLegFailure(deps, ctx.run.id, issue.key, issue.pr), why);
  if (failed.kind === 'askAgain') {
    await writeOutcome(deps.store, ctx.run.id, at, row, { kind: 'reviewNotPosted' });
    return undefined;
  }
  await keepReviewVerdict(deps, ctx.run.id, issue.key, noReviewVerdict(failed.missing));
  // Nothing claims a review happened: the row stays where it is, only no longer waiting on the leg.
  await writeOutcome(deps.store, ctx.run.id, at, row, { kind: 'reviewSkipped' });
  return failed.missing;
};
