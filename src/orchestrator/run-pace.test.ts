import { describe, expect, it } from 'vitest';
import { fullSpeed, type Pace } from '../forges/rate-budget.ts';
import { dispatchHeld, pacedLimit, paceReason, slowedLine, withoutHeldDispatches } from './run-pace.ts';

const half: Pace = {
  sessionFactor: 0.5,
  intervalFactor: 2,
  reason: 'core rate limit spent faster than it refills',
};
const spent: Pace = { sessionFactor: 0, intervalFactor: 4, reason: 'core rate limit nearly spent (1/5000)' };
const actions = [{ type: 'dispatch' }, { type: 'merge' }, { type: 'dispatch' }, { type: 'close_issue' }];

describe('run pace', () => {
  it('keeps the limit and every action at full speed or without a pace', () => {
    expect(pacedLimit(6, undefined)).toBe(6);
    expect(pacedLimit(6, fullSpeed)).toBe(6);
    expect(withoutHeldDispatches(actions, fullSpeed)).toEqual(actions);
    expect(paceReason(fullSpeed)).toBeUndefined();
  });

  it('runs fewer sessions near a limit, at least one', () => {
    expect(pacedLimit(6, half)).toBe(3);
    expect(pacedLimit(1, half)).toBe(1);
    expect(dispatchHeld(half)).toBe(false);
    expect(withoutHeldDispatches(actions, half)).toEqual(actions);
  });

  it('holds new workers (not merges or closes) while the budget is spent, keeping the limit itself', () => {
    expect(dispatchHeld(spent)).toBe(true);
    expect(pacedLimit(6, spent)).toBe(6);
    expect(withoutHeldDispatches(actions, spent).map((a) => a.type)).toEqual(['merge', 'close_issue']);
  });

  it('says why on one escaped dashboard line', () => {
    expect(slowedLine(paceReason(spent)!)).toBe(
      '**Slowed down:** core rate limit nearly spent &#40;1/5000&#41;.',
    );
  });
});
