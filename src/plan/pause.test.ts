import { describe, expect, it } from 'vitest';
import { pausedFromOf, pausePatch, resumePatch, resumeStateOf } from './pause.ts';
import { activeRunStates } from './states.ts';

describe('the one pause rule', () => {
  it('a working state is remembered as it is; any other pauses to resume into running', () => {
    for (const s of activeRunStates) expect(pausedFromOf(s)).toBe(s);
    expect(pausedFromOf('review_unclear')).toBe('running');
    expect(pausedFromOf('blocked')).toBe('running');
  });

  it('going on returns where the pause came from; a kept state that is not a working one goes to running', () => {
    expect(resumeStateOf({ pausedFrom: 'shipping' })).toBe('shipping');
    expect(resumeStateOf({})).toBe('running');
    expect(resumeStateOf({ pausedFrom: 'blocked' })).toBe('running');
    expect(resumeStateOf({ pausedFrom: 'review_unclear' })).toBe('running');
  });

  it('a run paused twice keeps where the first pause came from', () => {
    const first = pausePatch({ state: 'gating', progress: { wave: 1 } });
    expect(first).toEqual({ state: 'paused', progress: { wave: 1, pausedFrom: 'gating' } });
    expect(pausePatch({ state: 'paused', progress: first.progress! })).toEqual(first);
  });

  it('the patch that goes on drops the memory of the pause and keeps the progress given', () => {
    expect(resumePatch({ progress: { pausedFrom: 'gating', wave: 2 } })).toEqual({
      state: 'gating',
      progress: { wave: 2 },
    });
    expect(
      resumePatch({ progress: { pausedFrom: 'gating' } }, { pausedFrom: 'gating', reason: 'r' }),
    ).toEqual({
      state: 'gating',
      progress: { reason: 'r' },
    });
  });
});
