// Readiness, the one live gate of a blitz (seed 000 §3.7): once every workable issue is closed, build,
// then smoke, then ship, in that order; smoke and ship wait while the latest integration review is not
// clean. When the integration review is due is decided here too. Pure, like the rest of src/plan/.
import { decideShipPath } from '../ship/decide.ts';
import type { RunContext } from './run-context.ts';
import type { Action, IntegrationReviewView } from './snapshot.ts';
import { stop } from './stop.ts';

/** Build, smoke and ship, in order, for a run whose workable issues are all closed. */
export const readinessActions = (ctx: RunContext): Action[] => {
  const { snap } = ctx;
  const { build } = snap;
  if (snap.kind === 'fleet') return stop(ctx, 'done', 'every ticket is merged or closed');
  if (build.status === 'running') return [];
  if (build.status === 'failed') return stop(ctx, 'blocked', 'the build on the integration branch is red');
  if (build.status === 'none') return [{ type: 'run_build', covers: [] }];
  if (snap.smoke === 'none') return [{ type: 'run_smoke' }];
  if (snap.smoke === 'running') return [];
  if (snap.smoke === 'failed') return stop(ctx, 'blocked', 'the smoke check failed');
  const ship = decideShipPath({
    ...(snap.options.shipOverride ? { override: snap.options.shipOverride } : {}),
    ...(snap.options.shipPolicy ? { policy: snap.options.shipPolicy } : {}),
    milestone: { title: snap.milestoneTitle, description: snap.milestoneDescription },
    ...(snap.deployCommand ? { deployCommand: snap.deployCommand } : {}),
    labels: [...new Set(snap.issues.flatMap((i) => i.labels.map((l) => l.name)))].sort(),
    changedFiles: [...snap.changedFiles].sort(),
  });
  const reason = ship.reasons.join('; ');
  if (snap.ship === 'none') return [{ type: 'ship', path: ship.path, reason }];
  if (snap.ship === 'running') return [];
  if (snap.ship === 'failed') return stop(ctx, 'blocked', `shipping (${ship.path}) failed`);
  return stop(ctx, 'done', `every issue closed, build and smoke green, shipped (${ship.path})`);
};

const readinessTypes = new Set<Action['type']>(['run_build', 'run_smoke', 'ship']);

/**
 * Due after 3 merges, when merged work is about to be built (a wave's end) or gated, or when a writer
 * asked for it again (`/blitz review`).
 */
export const integrationReviewDue = (
  review: IntegrationReviewView | undefined,
  planned: readonly Action[],
): boolean => {
  if (!review) return false;
  if (review.requested) return true;
  const merged = review.mergedSince;
  return merged >= 3 || (merged > 0 && planned.some((a) => readinessTypes.has(a.type)));
};

/**
 * Why readiness waits on the integration review: its latest verdict is not clean and no writer accepted
 * it. Undefined: it does not wait (no review yet, clean, or accepted).
 */
export const reviewWithholdsReadiness = (review: IntegrationReviewView | undefined): string | undefined => {
  const r = review?.last;
  if (!r || r.verdict === 'clean' || r.accepted) return undefined;
  return r.filed > 0
    ? `integration review: ${r.verdict}; ${r.filed} finding(s) filed as issues in the milestone`
    : `integration review: ${r.verdict} and nothing new to file; a person must look at the integration branch`;
};

/** `planned` without smoke and ship while the latest integration review is not clean. */
export const gateOnReview = (review: IntegrationReviewView | undefined, planned: Action[]): Action[] =>
  reviewWithholdsReadiness(review) === undefined
    ? planned
    : planned.filter((a) => a.type !== 'run_smoke' && a.type !== 'ship');

/** The dashboard's line for the integration review (none when the latest one is clean). */
export const integrationReviewLine = (review: IntegrationReviewView | undefined): string | undefined =>
  !review
    ? 'integration review: not available (no review module wired)'
    : review.last
      ? reviewWithholdsReadiness(review)
      : 'integration review: none yet (runs after a wave or every 3 merged issues)';
