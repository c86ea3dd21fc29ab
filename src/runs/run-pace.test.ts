import { describe, expect, it } from 'vitest';
import { slowedLine } from '../dashboard/render.ts';
import { fullSpeed, type Pace } from '../forges/rate-budget.ts';
import { dispatchHeld, pacedLimit, paceReason } from './run-pace.ts';

const half: Pace = {
  sessionFactor: 0.5,
  intervalFactor: 2,
  reason: 'core rate limit spent faster than it refills',
};
const spent: Pace = { sessionFactor: 0, intervalFactor: 4, reason: 'core rate limit nearly spent (1/5000)' };

describe('run pace', () => {
  it('keeps the limit and every action at full speed or without a pace', () => {
    expect(pacedLimit(6, undefined)).toBe(6);
    expect(pacedLimit(6, fullSpeed)).toBe(6);
    expect(dispatchHeld(fullSpeed)).toBe(false);
    expect(paceReason(fullSpeed)).toBeUndefined();
  });

  it('runs fewer sessions near a limit, at least one', () => {
    expect(pacedLimit(6, half)).toBe(3);
    expect(pacedLimit(1, half)).toBe(1);
    expect(dispatchHeld(half)).toBe(false);
  });

  it('holds new workers while the budget is spent, keeping the limit itself (not a park)', () => {
    expect(dispatchHeld(spent)).toBe(true);
    expect(pacedLimit(6, spent)).toBe(6);
  });

  it('says why on one escaped dashboard line', () => {
    expect(slowedLine(paceReason(spent)!)).toBe(
      '**Slowed down:** core rate limit nearly spent &#40;1/5000&#41;.',
    );
  });
});
