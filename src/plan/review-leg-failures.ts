// A PR's review leg that produced no review (the forge refused its comment, it timed out, every
// reviewer failed) is asked again on a later pass, a bounded number of times; then the PR goes on
// without a review, and why is said in the bot's own words (never a reviewer's or the forge's output).
// Blitz and fleet count alike: the count is kept per PR (orchestrator/pr-feedback.ts), decided here.

/** Review legs that failed on one PR before the run stops asking and tells a person. */
export const maxReviewLegFailures = 3;

/** What comes of the `failures`-th failed leg on a PR: asked again, or no review, with why. */
export type ReviewLegFailed = { kind: 'askAgain' } | { kind: 'noReview'; missing: string };

/** `why` is the leg's failure in the bot's words (review/review-leg.ts `reviewLegFailureWords`). */
export const reviewLegFailed = (failures: number, why: string): ReviewLegFailed =>
  failures < maxReviewLegFailures
    ? { kind: 'askAgain' }
    : { kind: 'noReview', missing: `${why}, ${failures} times` };

/** The review verdict a PR with no review carries (its check, its dashboard row): `no review: <why>`. */
export const noReviewVerdict = (missing: string): string => `no review: ${missing}`;
