// Moved to review/review-leg.ts; kept for the importers another branch is reworking.
export { createReviewLeg, reviewAuthorOf } from '../review/review-leg.ts';
