import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../store/run-store.ts';
import type { RunPark } from './environment-park.ts';
import {
  awaitReviewPatch,
  blockPatch,
  parkPatch,
  probedParkPatch,
  reviewSteerPatch,
  stopPatch,
} from './run-patches.ts';

const run = (state: RunRecord['state'], progress: RunRecord['progress'] = {} as RunRecord['progress']) => ({
  state,
  progress,
});
const refused = { kind: 'forge_refused', refusal: 'credentials', detail: 'Bad credentials' } as const;
const since = '2026-12-07T10:00:00.000Z';
const parkOf = (): RunPark => ({
  kind: 'environment',
  reason: 'model endpoint unreachable',
  since,
  failures: 1,
  nextProbeAt: since,
  interrupted: ['a1'],
});

describe('the run patches the executor writes', () => {
  it('a block moves a working run to blocked, and leaves a run the table does not let block where it is', () => {
    expect(blockPatch(run('running'), { reason: 'r', cause: refused, since })?.state).toBe('blocked');
    // Tried: a run already done; the table has no done → blocked, so only the blocker is kept.
    expect(blockPatch(run('done'), { reason: 'r', cause: refused, since })?.state).toBe('done');
  });

  it('the same blocker kept already writes nothing, in whatever words', () => {
    const kept = blockPatch(run('running'), { reason: 'r', cause: refused, since })!;
    const again = { ...refused, detail: 'Bad credentials (request 1)' };
    expect(blockPatch(run('blocked', kept.progress!), { reason: 'r2', cause: again, since })).toBeUndefined();
  });

  it('an unclear review is written once', () => {
    expect(awaitReviewPatch(run('running'), 'why')?.state).toBe('review_unclear');
    expect(awaitReviewPatch(run('review_unclear'), 'why')).toBeUndefined();
  });

  it('a paused stop remembers where it paused from, and keeps its cause', () => {
    const p = stopPatch(run('gating'), 'paused', 'park', undefined, { kind: 'budget_park' });
    expect(p).toMatchObject({
      state: 'paused',
      progress: { pausedFrom: 'gating', stopKind: 'budget_park', stopCause: { kind: 'budget_park' } },
    });
  });

  it('a probe with sessions resumed keeps the park, probing since then; with none the park lifts', () => {
    const park = parkPatch(run('gating'), parkOf(), { run: 'pause' });
    expect(park).toMatchObject({ state: 'paused', progress: { pausedFrom: 'gating' } });
    const parked = run('paused', park.progress!);
    const probing = probedParkPatch(parked, parkOf(), 2, since);
    expect(probing).toMatchObject({ state: 'gating', progress: { park: { probingSince: since } } });
    const lifted = probedParkPatch(parked, parkOf(), 0, since);
    expect(lifted.state).toBe('gating');
    expect(lifted.progress).not.toHaveProperty('park');
  });

  it('a review asked again or accepted takes the run out of review_unclear, and nowhere else', () => {
    const mark = { by: 'alice', at: since };
    const review = { verdict: 'no_review', at: since, filed: 0 } as const;
    const waiting = run('review_unclear', { integrationReview: review } as RunRecord['progress']);
    expect(reviewSteerPatch(waiting, 'accept_review', mark)).toStrictEqual({
      state: 'running',
      progress: { integrationReview: { ...review, accepted: mark } },
    });
    expect(reviewSteerPatch(waiting, 'rerun_review', mark)).toStrictEqual({
      state: 'running',
      progress: { integrationReview: review, reviewRequested: mark },
    });
    expect(reviewSteerPatch(run('gating'), 'accept_review', mark)).toStrictEqual({
      progress: { reviewRequested: mark },
    });
  });
});
