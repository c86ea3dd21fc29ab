import { describe, expect, it } from 'vitest';
import type { RunProgress } from '../store/run-store.ts';
import { reviewVerdictOf } from './review-steer.ts';

const at = '2026-12-01T10:00:00.000Z';
const review = (r: NonNullable<RunProgress['integrationReview']>): RunProgress => ({ integrationReview: r });

describe('reviewVerdictOf', () => {
  it('is absent before any review, and keeps clean and verdicts that filed work', () => {
    expect(reviewVerdictOf({})).toBeUndefined();
    expect(reviewVerdictOf(review({ verdict: 'clean', at, filed: 0 }))).toBe('clean');
    expect(reviewVerdictOf(review({ verdict: 'minor', at, filed: 2 }))).toBe('minor');
    expect(reviewVerdictOf(review({ verdict: 'blocking', at, filed: 1 }))).toBe('blocking');
  });

  it('calls a review unclear when nobody answered or it named nothing new to file', () => {
    expect(reviewVerdictOf(review({ verdict: 'no_review', at, filed: 0 }))).toBe('unclear');
    expect(reviewVerdictOf(review({ verdict: 'minor', at, filed: 0 }))).toBe('unclear');
    expect(reviewVerdictOf(review({ verdict: 'blocking', at, filed: 0 }))).toBe('unclear');
  });
});
