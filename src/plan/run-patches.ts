// The run patches the executor's steps write, decided here: which state a block, a stop, a park, an
// unclear review or a failed start puts the run in, given the run as it is at the write (the run writer
// hands the fresh record in under its version check). The orchestrator only writes what these return.
// Pure, like the rest of src/plan/.
import type { RunPatch, RunRecord } from '../store/run-store.ts';
import { type BlockCause, sameBlocker } from './block-cause.ts';
import { parkSentence, type RunPark } from './environment-park.ts';
import { maxSeen } from './park.ts';
import { pausePatch, resumePatch } from './pause.ts';
import { withoutReason, withReason } from './run-reason.ts';
import { canTransitionRun } from './states.ts';
import type { StopCause } from './stop-cause.ts';

type Fresh = Pick<RunRecord, 'state' | 'progress'>;

/**
 * `block`: BLOCKED on the hard blocker, when the state table allows it from where the run is; the same
 * cause kept already (in whatever words) writes nothing.
 */
export const blockPatch = (
  now: Fresh,
  b: { reason: string; cause: BlockCause; since: string },
): RunPatch | undefined => {
  const kept = now.progress.hardBlocker;
  const same = kept !== undefined && sameBlocker(kept.cause, b.cause);
  const state = canTransitionRun(now.state, 'blocked') ? 'blocked' : now.state;
  if (same && now.state === state) return undefined;
  const hardBlocker = same ? kept : { reason: b.reason, cause: b.cause, since: b.since };
  return {
    state,
    progress: withReason({ ...now.progress, hardBlocker }, 'hard_blocker', hardBlocker.reason),
  };
};

/**
 * `stop`: the run ends (or pauses, by the one pause rule) in `state`, saying why; the command and the
 * cause kept are this stop's own, an earlier stop's never outlive it.
 */
export const stopPatch = (
  fresh: Fresh,
  state: RunRecord['state'],
  reason: string,
  command: string | undefined,
  cause: StopCause,
): RunPatch => {
  const { continueWith: _earlier, stopKind: _kind, ...rest } = fresh.progress;
  const park = cause.kind === 'budget_park' ? { stopKind: cause.kind } : {};
  const progress = withReason(
    { ...rest, ...(command ? { continueWith: command } : {}), ...park, stopCause: cause },
    'stop',
    reason,
  );
  return state === 'paused' ? pausePatch(fresh, progress) : { state, progress };
};

/** `await_review`: the run waits on an unclear integration review, saying why (once). */
export const awaitReviewPatch = (now: Fresh, reason: string): RunPatch | undefined =>
  now.state === 'review_unclear'
    ? undefined
    : { state: 'review_unclear', progress: withReason(now.progress, 'review_unclear', reason) };

/** A run that could not start is cancelled, saying why. */
export const startFailedPatch = (now: Fresh, why: string): RunPatch => ({
  state: 'cancelled',
  progress: withReason(now.progress, 'start_failed', `it could not start: ${why}`),
});

/**
 * The run's park set (or lifted, `park` undefined) with the environment failures it has seen; `pause`
 * pauses the run on it, `resume` lets a paused run go on where its pause came from.
 */
export const parkPatch = (
  now: Fresh,
  park: RunPark | undefined,
  o: { seen?: string[]; run?: 'pause' | 'resume' },
): RunPatch => {
  // A lifted park takes its own words with it (a stop's since, or a hard blocker's, stay).
  const { park: _old, ...rest } = park ? now.progress : withoutReason(now.progress, 'park');
  const seen = o.seen ? { environmentSeen: o.seen.slice(-maxSeen) } : {};
  const progress = park
    ? withReason({ ...rest, park, ...seen }, 'park', parkSentence(park))
    : { ...rest, ...seen };
  // A budget stop the park took over is over with it.
  if (!park) delete progress.stopKind;
  // A blocked run stays blocked (the table has no blocked → paused): the park is kept beside it.
  if (o.run === 'pause' && canTransitionRun(now.state, 'paused')) return pausePatch(now, progress);
  if (o.run === 'resume' && now.state === 'paused') return resumePatch(now, progress);
  return { progress };
};

/**
 * `probe_park`, once the park's interrupted sessions were asked to resume (`resumed` of them, at `at`):
 * with any, they probe the endpoint and the park says since when; with none, the park lifts. Either
 * way a paused run goes on where its pause came from.
 */
export const probedParkPatch = (now: Fresh, park: RunPark, resumed: number, at: string): RunPatch =>
  parkPatch(now, resumed > 0 ? { ...park, probingSince: at } : undefined, { run: 'resume' });

/**
 * `/blitz review` (asked again) or `/blitz accept-review` (the latest integration review accepted, when
 * there is one): kept with who and when, and a run waiting on an unclear review goes on running.
 */
export const reviewSteerPatch = (
  now: Fresh,
  effect: 'rerun_review' | 'accept_review',
  mark: { by: string; at: string },
): RunPatch => {
  const review = now.progress.integrationReview;
  const progress =
    effect === 'accept_review' && review
      ? { ...now.progress, integrationReview: { ...review, accepted: mark } }
      : { ...now.progress, reviewRequested: mark };
  return { progress, ...(now.state === 'review_unclear' ? { state: 'running' } : {}) };
};
