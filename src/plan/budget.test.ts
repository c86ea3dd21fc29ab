import { describe, expect, it } from 'vitest';
import { budgetOf } from './budget.ts';
import { sessionCap } from './wave.ts';

const caps = (probe: Parameters<typeof budgetOf>[0]) => ({
  maxSessions: 4,
  budget: budgetOf(probe, 4),
  machineLimit: 4,
  contended: false,
});

describe('budgetOf', () => {
  it('a probe that answered sets the cap; one that says park starts nothing', () => {
    expect(
      sessionCap(caps({ status: 'ok', recommendedMaxSessions: 3, preferMedium: false, park: false })),
    ).toBe(3);
    expect(
      sessionCap(caps({ status: 'ok', recommendedMaxSessions: 3, preferMedium: false, park: true })),
    ).toBe(0);
  });

  it('a failed, absent or not yet asked probe is unknown usage: one worker, saying why', () => {
    const failed = budgetOf({ status: 'failed', error: 'the probe exited with 1' }, 4);
    expect(failed.unknown).toEqual({ why: 'failed', error: 'the probe exited with 1' });
    expect(sessionCap(caps({ status: 'failed', error: 'x' }))).toBe(1);
    expect(sessionCap(caps({ status: 'absent' }))).toBe(1);
    expect(budgetOf({ status: 'absent' }, 4).unknown).toEqual({ why: 'absent' });
    expect(sessionCap(caps(undefined))).toBe(1);
  });

  it('keeps the reset time the probe named', () => {
    const resetAt = '2026-12-04T06:20:00.000Z';
    expect(
      budgetOf({ status: 'ok', recommendedMaxSessions: 0, preferMedium: false, park: true, resetAt }, 4),
    ).toMatchObject({ verdict: 'park', resetAt });
    expect(
      budgetOf({ status: 'ok', recommendedMaxSessions: 0, preferMedium: false, park: true }, 4),
    ).not.toHaveProperty('resetAt');
  });

  it('never raises the cap above maxSessions', () => {
    expect(budgetOf({ status: 'absent' }, 0).recommendedMaxSessions).toBe(0);
  });
});
