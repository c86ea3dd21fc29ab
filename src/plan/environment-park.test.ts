import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  afterProbe,
  backoffSeconds,
  defaultEnvironmentBackoff,
  type EnvironmentPark,
  parkOnEnvironmentFailure,
  parkSentence,
  probeDue,
} from './environment-park.ts';

const policy = { initialSeconds: 60, maxSeconds: 900 };
const t0 = new Date('2026-12-01T11:00:00.000Z');
const plus = (s: number) => new Date(t0.getTime() + s * 1000);
const down = { reason: 'model endpoint unreachable', at: t0, attemptId: 'a1' };

describe('backoffSeconds', () => {
  it('doubles from the first wait and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffSeconds(n, policy))).toEqual([60, 120, 240, 480, 900, 900]);
    expect(backoffSeconds(1, defaultEnvironmentBackoff)).toBe(60);
  });

  it('never waits less than the first wait nor more than the cap, for any count', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5, max: 10_000 }),
        fc.integer({ min: 1, max: 3600 }),
        fc.integer({ min: 1, max: 86_400 }),
        (n, initial, max) => {
          const s = backoffSeconds(n, { initialSeconds: initial, maxSeconds: max });
          expect(s).toBeGreaterThanOrEqual(initial);
          expect(s).toBeLessThanOrEqual(Math.max(initial, max));
          expect(Number.isFinite(s)).toBe(true);
        },
      ),
    );
  });
});

describe('a park over an outage', () => {
  it('parks at the first failure, probes after the first wait, and waits longer while still down', () => {
    const park = parkOnEnvironmentFailure(undefined, down, policy);
    expect(park).toEqual({
      reason: 'model endpoint unreachable',
      since: t0.toISOString(),
      failures: 1,
      interrupted: ['a1'],
      nextProbeAt: plus(60).toISOString(),
    });
    expect(probeDue(park, plus(59))).toBe(false);
    expect(probeDue(park, plus(60))).toBe(true);
    const again = afterProbe(park, { up: false, at: plus(60) }, policy);
    expect(again).toEqual({
      resume: false,
      park: { ...park, failures: 2, nextProbeAt: plus(180).toISOString() },
    });
  });

  it('resumes the interrupted attempts once the probe finds the endpoint back', () => {
    const park = parkOnEnvironmentFailure(undefined, down, policy);
    const second = parkOnEnvironmentFailure(park, { ...down, attemptId: 'a2', at: plus(5) }, policy);
    // A second worker failing on the same outage joins the park without doubling the wait.
    expect(second).toMatchObject({ failures: 1, interrupted: ['a1', 'a2'], nextProbeAt: park.nextProbeAt });
    expect(afterProbe(second, { up: true, at: plus(300) }, policy)).toEqual({
      resume: true,
      interrupted: ['a1', 'a2'],
      downSeconds: 300,
    });
  });
});

describe('a park over a spend limit with a reset time', () => {
  const reset = '2026-12-01T15:00:00.000Z';

  it('waits for the reset (and a little more) rather than probing before it', () => {
    const park = parkOnEnvironmentFailure(
      undefined,
      { ...down, reason: 'provider limit reached', resetAt: reset },
      policy,
    );
    expect(park).toMatchObject({ resetAt: reset, nextProbeAt: '2026-12-01T15:00:30.000Z' });
    expect(parkSentence(park)).toBe(
      'provider limit reached; the tool says it resets at 2026-12-01 15:00 UTC, and the run resumes by itself after that (no issue is charged)',
    );
    // Still limited after the reset: back to the backoff.
    const after = afterProbe(park, { up: false, at: new Date('2026-12-01T15:00:30.000Z') }, policy);
    expect(after).toMatchObject({
      resume: false,
      park: { failures: 2, nextProbeAt: '2026-12-01T15:02:30.000Z' },
    });
    expect(after.resume === false && 'resetAt' in after.park).toBe(false);
  });

  it('does not believe a reset in the past or more than eight days ahead', () => {
    for (const resetAt of ['2026-11-30T00:00:00.000Z', '2027-01-01T00:00:00.000Z', 'tomorrow']) {
      const park = parkOnEnvironmentFailure(undefined, { ...down, resetAt }, policy);
      expect(park.nextProbeAt, resetAt).toBe(plus(60).toISOString());
      expect(park.resetAt).toBeUndefined();
    }
  });

  it('names the next check in the sentence of a park without a reset', () => {
    const park: EnvironmentPark = parkOnEnvironmentFailure(undefined, down, policy);
    expect(parkSentence(park)).toContain('checks again at 2026-12-01 11:01 UTC (check 1');
  });
});
