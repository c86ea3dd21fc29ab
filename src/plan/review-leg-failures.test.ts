import { describe, expect, it } from 'vitest';
import { maxReviewLegFailures, noReviewVerdict, reviewLegFailed } from './review-leg-failures.ts';

describe('a review leg that produced no review', () => {
  it('is asked again below the bound', () => {
    for (let n = 1; n < maxReviewLegFailures; n++)
      expect(reviewLegFailed(n, 'the review leg timed out')).toStrictEqual({ kind: 'askAgain' });
  });

  it('at the bound gives no review, saying why and how many times', () => {
    expect(reviewLegFailed(maxReviewLegFailures, 'the forge refused the review comment')).toStrictEqual({
      kind: 'noReview',
      missing: `the forge refused the review comment, ${maxReviewLegFailures} times`,
    });
    // A count kept past the bound (a leg run again meanwhile) still gives no review, with its count.
    expect(reviewLegFailed(maxReviewLegFailures + 1, 'the review leg timed out')).toStrictEqual({
      kind: 'noReview',
      missing: `the review leg timed out, ${maxReviewLegFailures + 1} times`,
    });
  });

  it('words its verdict as the bot says it', () => {
    expect(noReviewVerdict('the review leg timed out, 3 times')).toBe(
      'no review: the review leg timed out, 3 times',
    );
  });
});
