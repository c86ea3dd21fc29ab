import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../store/run-store.ts';
import { awaitReviewPatch, blockPatch, stopPatch } from './run-patches.ts';

const run = (state: RunRecord['state'], progress: RunRecord['progress'] = {} as RunRecord['progress']) => ({
  state,
  progress,
});
const refused = { kind: 'forge_refused', refusal: 'credentials', detail: 'Bad credentials' } as const;
const since = '2026-12-07T10:00:00.000Z';

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
});
