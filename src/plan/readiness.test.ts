import { describe, expect, it } from 'vitest';
import {
  gateOnReview,
  integrationReviewDue,
  integrationReviewLine,
  reviewViewOf,
  reviewWithholdsReadiness,
} from './readiness.ts';
import type { Action } from './snapshot.ts';

const at = '2026-01-01T00:00:00Z';
const build: Action = { type: 'run_build', covers: [] };
const smoke: Action = { type: 'run_smoke' };
const ship: Action = { type: 'ship', path: 'local', reason: 'no deploy' };

describe('integration review schedule', () => {
  it('is due after 3 merges, or after any merge when a build or the gate is next', () => {
    expect(integrationReviewDue({ mergedSince: 3 }, [])).toBe(true);
    expect(integrationReviewDue({ mergedSince: 1 }, [])).toBe(false);
    expect(integrationReviewDue({ mergedSince: 1 }, [build])).toBe(true);
    expect(integrationReviewDue({ mergedSince: 0 }, [smoke])).toBe(false);
  });

  it('is due when a writer asked for it again', () => {
    expect(integrationReviewDue({ mergedSince: 0, requested: true }, [])).toBe(true);
  });

  it('is never due without a review module', () => {
    expect(integrationReviewDue(undefined, [build])).toBe(false);
  });
});

describe('readiness gate on the integration review', () => {
  it('holds readiness until the latest review is clean', () => {
    expect(reviewWithholdsReadiness({ mergedSince: 0 })).toBeUndefined();
    expect(
      reviewWithholdsReadiness({ mergedSince: 0, last: { verdict: 'clean', at, filed: 0 } }),
    ).toBeUndefined();
    expect(reviewWithholdsReadiness({ mergedSince: 0, last: { verdict: 'minor', at, filed: 2 } })).toContain(
      '2 finding(s) filed',
    );
    expect(
      reviewWithholdsReadiness({ mergedSince: 0, last: { verdict: 'no_review', at, filed: 0 } }),
    ).toContain('integration review: no review and nothing new to file');
    expect(
      reviewWithholdsReadiness({
        mergedSince: 0,
        last: { verdict: 'unclear', at, filed: 0, accepted: true },
      }),
    ).toBeUndefined();
  });

  it('withholds smoke and ship, not the build, while the review is not clean', () => {
    const unclean = { mergedSince: 0, last: { verdict: 'blocking' as const, at, filed: 1 } };
    expect(gateOnReview(unclean, [build, smoke, ship])).toEqual([build]);
    expect(gateOnReview({ mergedSince: 0 }, [smoke])).toEqual([smoke]);
    expect(gateOnReview(undefined, [ship])).toEqual([ship]);
  });

  it('gives the dashboard one line from the same data', () => {
    expect(integrationReviewLine(undefined)).toMatch(/not available/);
    expect(integrationReviewLine({ mergedSince: 1 })).toMatch(/none yet/);
    expect(
      integrationReviewLine({ mergedSince: 0, last: { verdict: 'clean', at, filed: 0 } }),
    ).toBeUndefined();
  });
});

describe('the integration review as the planner sees it', () => {
  it('is read from the run: merged since, a request, the last verdict and whether it was accepted', () => {
    expect(reviewViewOf({})).toEqual({ mergedSince: 0 });
    expect(
      reviewViewOf({
        mergedSinceReview: 2,
        reviewRequested: { by: 'alice', at },
        integrationReview: { verdict: 'blocking', at, filed: 1, accepted: { by: 'bob', at } },
      }),
    ).toEqual({
      mergedSince: 2,
      requested: true,
      last: { verdict: 'blocking', at, filed: 1, accepted: true },
    });
  });
});
