// Readiness, the one live gate of a blitz (seed 000 §3.7): once every workable issue is closed, build,
// then smoke, then ship, in that order; a ship that found the integration branch moved since the build
// gates again (`regate`); smoke and ship wait while the latest integration review is not clean. When
// the integration review is due is decided here too. What one check's record means (green at which
// head, its words) is plan/gate-checks.ts, shared with the dashboard. Pure, like the rest of src/plan/.
import { decideShipPath } from '../ship/decide.ts';
import { checksClaim, defaultMaxSmokeFailures, smokeStep, verifiedBy } from './gate-checks.ts';
import type { RunContext } from './run-context.ts';
import type { Action, IntegrationReviewView } from './snapshot.ts';
import { verdictStateWords } from './state-words.ts';
import type { IntegrationReviewVerdict } from './states.ts';
import { stop } from './stop.ts';

/** Build, smoke and ship, in order, for a run whose workable issues are all closed. */
export const readinessActions = (ctx: RunContext): Action[] => {
  const { snap } = ctx;
  const { build } = snap;
  if (snap.kind === 'fleet')
    return stop(ctx, 'done', 'every ticket is merged or closed', { kind: 'finished' });
  if (build.status === 'running') return [];
  if (build.status === 'failed')
    return stop(
      ctx,
      'blocked',
      'the build on the integration branch is red',
      { kind: 'gate_red', gate: 'build' },
      { gate: 'build' },
    );
  if (build.status === 'none') return [{ type: 'run_build', covers: [] }];
  // It "passed" when no command was configured; one is now, so it runs: nothing claims a build that did not run.
  if (build.notConfigured && snap.buildConfigured) return [{ type: 'run_build', covers: [] }];
  // The gate counts only on the integration branch's current head: a commit since (a push by hand, a
  // late merge) sends the run back through build and smoke before anything ships.
  if (snap.integrationHead !== undefined && snap.integrationHead !== build.sha)
    return [
      {
        type: 'regate',
        reason: `the integration branch moved to ${snap.integrationHead.slice(0, 7)} since the gate ran on ${build.sha?.slice(0, 7) ?? 'an unknown commit'}`,
      },
    ];
  // The smoke check counts only green on the commit the build was green on; a red one is a finding
  // for another pass until its allowance is spent (plan/gate-checks.ts).
  const gate = snap.smokeGate ?? { configured: true, failures: 0, maxFailures: defaultMaxSmokeFailures };
  if (snap.smoke === 'passed' && gate.passedUnconfigured && gate.configured) return [{ type: 'run_smoke' }];
  const smoke = smokeStep(
    {
      status: snap.smoke,
      configured: gate.configured,
      failures: gate.failures,
      ...(gate.sha ? { sha: gate.sha } : {}),
    },
    build.sha,
    gate.maxFailures,
  );
  if (smoke.type === 'run') return [{ type: 'run_smoke' }];
  if (smoke.type === 'wait') return [];
  if (smoke.type === 'finding') return [{ type: 'smoke_finding' }];
  if (smoke.type === 'blocked')
    return stop(
      ctx,
      'blocked',
      smoke.reason,
      { kind: 'gate_red', gate: 'smoke', failures: gate.failures },
      { gate: 'smoke' },
    );
  const ship = decideShipPath({
    ...(snap.options.shipOverride ? { override: snap.options.shipOverride } : {}),
    ...(snap.options.shipPolicy ? { policy: snap.options.shipPolicy } : {}),
    milestone: { title: snap.milestoneTitle, description: snap.milestoneDescription },
    ...(snap.deployCommand ? { deployCommand: snap.deployCommand } : {}),
    labels: [...new Set(snap.issues.flatMap((i) => i.labels.map((l) => l.name)))].sort(),
    changedFiles: [...snap.changedFiles].sort(),
  });
  const reason = ship.reasons.join('; ');
  const gates = {
    build: {
      status: build.status,
      configured: snap.buildConfigured ?? true,
      ...(build.sha ? { sha: build.sha } : {}),
    },
    smoke: { status: snap.smoke, configured: gate.configured, ...(gate.sha ? { sha: gate.sha } : {}) },
  };
  // Checks required and none ran green: nothing ships; a person configures one and resumes.
  if (snap.ship === 'none' && snap.requireChecks && !verifiedBy(gates.build, gates.smoke))
    return stop(
      ctx,
      'blocked',
      `nothing verified this work (${checksClaim(gates)}) and checks are required (ship.requireChecks or --require-checks), so it was not shipped; add a build: or smoke: command to blitz.yml`,
      { kind: 'unverified' },
      { command: '/blitz resume' },
    );
  if (snap.ship === 'none') return [{ type: 'ship', path: ship.path, reason }];
  if (snap.ship === 'running') return [];
  if (snap.ship === 'failed')
    return stop(
      ctx,
      'blocked',
      `shipping (${ship.path}) failed`,
      { kind: 'gate_red', gate: 'ship', path: ship.path },
      { gate: 'ship' },
    );
  // Exactly what ran, on which commit, and what answered: never "green" for a check with no command.
  const checks = checksClaim({ ...gates, ship: { path: ship.path, ...snap.shipped } });
  return stop(ctx, 'done', `every issue closed, shipped (${ship.path}); ${checks}`, { kind: 'finished' });
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
    ? `integration review: ${verdictStateWords(r.verdict)}; ${r.filed} finding(s) filed as issues in the milestone`
    : `integration review: ${verdictStateWords(r.verdict)} and nothing new to file; a person must look at the integration branch`;
};

/**
 * Why the run waits for a person on the integration review, or undefined: the latest review filed
 * nothing to work on (no reviewer answered, no verdict, or "minor"/"blocking" naming nothing new) and
 * no writer accepted it. `/blitz accept-review` or `/blitz review` goes on.
 */
export const reviewUnclear = (review: IntegrationReviewView | undefined): string | undefined => {
  const r = review?.last;
  if (!r || r.verdict === 'clean' || r.accepted || r.filed > 0 || review?.requested) return undefined;
  return r.verdict === 'no_review' || r.verdict === 'unclear'
    ? 'the integration review is unclear: no reviewer gave a verdict on the integration branch'
    : `the integration review is unclear: the reviewer called it ${verdictStateWords(r.verdict)} but named nothing new to file`;
};

/**
 * The run's move into `review_unclear` when the gate is held by an unclear review (smoke or ship were
 * next): one notice keyed by the review, and the move that names the state and keeps its reason.
 */
export const reviewUnclearActions = (
  review: IntegrationReviewView | undefined,
  planned: readonly Action[],
  runState: string,
): Action[] => {
  const why = reviewUnclear(review);
  if (!why || !planned.some((a) => a.type === 'run_smoke' || a.type === 'ship')) return [];
  const command = '/blitz accept-review (or /blitz review to run it again)';
  return [
    {
      type: 'issue_notice',
      event: 'review_unclear',
      key: `notice:review_unclear:${review!.last!.at}`,
      message: `${why}; a person should read the integration branch`,
      command,
    },
    ...(runState === 'review_unclear' ? [] : [{ type: 'await_review' as const, reason: why }]),
  ];
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

/** The integration review as the planner and the dashboard see it, from the run's progress. */
export const reviewViewOf = (p: {
  integrationReview?: { verdict: IntegrationReviewVerdict; at: string; filed: number; accepted?: unknown };
  mergedSinceReview?: number;
  reviewRequested?: unknown;
}): IntegrationReviewView => {
  const last = p.integrationReview;
  return {
    mergedSince: p.mergedSinceReview ?? 0,
    ...(p.reviewRequested ? { requested: true } : {}),
    ...(last
      ? {
          last: {
            verdict: last.verdict,
            at: last.at,
            filed: last.filed,
            ...(last.accepted ? { accepted: true } : {}),
          },
        }
      : {}),
  };
};
