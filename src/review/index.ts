// Review legs (seed 004 §4 step 2, §7): one advisory review comment per PR by a second model.
export { reviewMarker, reviewMarkerTag } from './comment.ts';
export { type PlanReviewResult, type ReviewPlanInput, reviewPlan } from './plan-review.ts';
export { type ReviewPullRequestInput, reviewPullRequest } from './review-pull-request.ts';
export type { ReviewAuthor, ReviewResult, ReviewRosterEntry, ReviewVerdict } from './types.ts';
