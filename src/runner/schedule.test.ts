import { describe, expect, it } from 'vitest';
import { isStallPass } from './schedule.ts';

describe('supervision cadence', () => {
  it('runs a stall pass first, then only once stallCheckSeconds have passed', () => {
    expect(isStallPass(undefined, 0, 90)).toBe(true);
    expect(isStallPass(0, 15_000, 90)).toBe(false);
    expect(isStallPass(0, 89_999, 90)).toBe(false);
    expect(isStallPass(0, 90_000, 90)).toBe(true);
  });
});
