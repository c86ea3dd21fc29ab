import { describe, expect, it } from 'vitest';
import { attentionOf } from './attention.ts';

describe('attentionOf', () => {
  it('names an unclear integration review with its reason and both commands', () => {
    expect(
      attentionOf({
        state: 'review_unclear',
        progress: { reason: 'the integration review is unclear: no reviewer gave a verdict' },
      }),
    ).toEqual({
      state: 'review_unclear',
      reason: 'the integration review is unclear: no reviewer gave a verdict',
      command: '/blitz accept-review (or /blitz review to run it again)',
    });
  });

  it('names a blocked run, and a run parked by the budget probe, with /blitz resume', () => {
    expect(attentionOf({ state: 'blocked', progress: { reason: 'the build failed 3 times' } })).toEqual({
      state: 'blocked',
      reason: 'the build failed 3 times',
      command: '/blitz resume',
    });
    expect(
      attentionOf({
        state: 'paused',
        progress: { reason: 'the budget probe says park', budget: { status: 'ok', park: true } },
      }),
    ).toMatchObject({ state: 'parked', command: '/blitz resume' });
  });

  it('names a parked fleet and a parked plan run with their own resume command', () => {
    const parked = { state: 'paused', progress: { reason: 'model endpoint unreachable', park: {} } };
    expect(attentionOf({ ...parked, kind: 'fleet' })).toMatchObject({
      state: 'parked',
      command: '/ticket-fleet resume',
    });
    expect(attentionOf({ ...parked, kind: 'plan' })).toMatchObject({
      state: 'parked',
      command: '/plan-blitz resume',
    });
    expect(attentionOf({ ...parked, kind: 'blitz' })).toMatchObject({
      state: 'parked',
      command: '/blitz resume',
    });
  });

  it('names the retry a run blocked on its given-up issues continues with, unless the forge blocked it since', () => {
    // Before: every blocked run said `/blitz resume`, which only stops a given-up run blocked again.
    const gaveUp = {
      state: 'blocked',
      progress: {
        reason: 'nothing can run: acme/app#3 is held: 3 attempts failed; a person has to look.',
        continueWith: '/blitz retry #3',
      },
    };
    expect(attentionOf(gaveUp)).toEqual({
      state: 'blocked',
      reason: 'nothing can run: acme/app#3 is held: 3 attempts failed; a person has to look.',
      command: '/blitz retry #3',
    });
    expect(
      attentionOf({ ...gaveUp, progress: { ...gaveUp.progress, hardBlocker: { reason: 'HTTP 401' } } }),
    ).toMatchObject({ command: '/blitz resume' });
  });

  it('names the first held issue of a live run with /blitz retry, counting the others', () => {
    expect(
      attentionOf({ state: 'running', progress: {} }, [
        { number: 7, state: 'held', lastError: 'stalled after 6 nudges' },
        { number: 3, state: 'held' },
        { number: 4, state: 'working' },
      ]),
    ).toEqual({ state: 'needs_person', reason: '#3 is held (and 1 more held)', command: '/blitz retry #3' });
  });

  it('is null for a run that needs nobody, or is over', () => {
    expect(attentionOf({ state: 'running', progress: {} }, [{ number: 1, state: 'working' }])).toBeNull();
    expect(attentionOf({ state: 'done', progress: {} }, [{ number: 1, state: 'held' }])).toBeNull();
    expect(attentionOf({ state: 'paused', progress: { reason: 'paused by alice' } })).toBeNull();
  });
});
