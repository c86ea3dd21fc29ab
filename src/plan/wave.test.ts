import { describe, expect, it } from 'vitest';
import { issue, k } from '../../test/support/plan-arbitraries.ts';
import type { PlanIssue } from './types.ts';
import { keyOf } from './types.ts';
import type { Caps } from './wave.ts';
import { nextWave, orderForDispatch, sessionCap, slotsFree } from './wave.ts';

const caps = (over: Partial<Caps> = {}): Caps => ({
  maxSessions: 5,
  budget: { verdict: 'ok', recommendedMaxSessions: 4, preferMedium: false },
  machineLimit: 3,
  contended: false,
  ...over,
});
const map = (xs: PlanIssue[]) => new Map(xs.map((i) => [keyOf(i), i]));

describe('caps', () => {
  it('takes the lowest of maxSessions, the budget and the machine limit', () => {
    expect(sessionCap(caps())).toBe(3);
    expect(sessionCap(caps({ maxSessions: 2 }))).toBe(2);
    expect(
      sessionCap(caps({ budget: { verdict: 'ok', recommendedMaxSessions: 1, preferMedium: false } })),
    ).toBe(1);
  });
  it('park gives nothing, unknown usage one, a contended machine at most one', () => {
    expect(
      sessionCap(caps({ budget: { verdict: 'park', recommendedMaxSessions: 4, preferMedium: false } })),
    ).toBe(0);
    expect(
      sessionCap(caps({ budget: { verdict: 'ok', recommendedMaxSessions: null, preferMedium: false } })),
    ).toBe(1);
    expect(sessionCap(caps({ contended: true }))).toBe(1);
  });
  it('slots refill as soon as one frees', () => {
    expect(slotsFree(3, caps())).toBe(0);
    expect(slotsFree(2, caps())).toBe(1);
  });
});

describe('order', () => {
  it('orders by priority label, then oldest, then number', () => {
    const xs = [
      issue(1, { createdAt: '2026-01-03T00:00:00Z' }),
      issue(2, { labels: [{ name: 'priority/low' }], createdAt: '2026-01-01T00:00:00Z' }),
      issue(3, { labels: [{ name: 'P0' }], createdAt: '2026-01-05T00:00:00Z' }),
      issue(4, { createdAt: '2026-01-02T00:00:00Z' }),
      issue(5, { createdAt: '2026-01-02T00:00:00Z' }),
      issue(6, { labels: [{ name: 'priority/high' }], createdAt: '2026-01-09T00:00:00Z' }),
    ];
    expect(orderForDispatch(map(xs), xs.map(keyOf))).toEqual([k(3), k(6), k(4), k(5), k(1), k(2)]);
  });
});

describe('nextWave', () => {
  const xs = [issue(1), issue(2), issue(3), issue(4)];
  it('fills only the free slots, counting running workers', () => {
    const w = nextWave({ issues: map(xs), ready: [k(2), k(3), k(4)], running: [k(1)], caps: caps() });
    expect(w.map((m) => m.key)).toEqual([k(2), k(3)]);
  });
  it('skips an issue that names the same file as a running one and fences off folder overlaps', () => {
    const fences = new Map([
      [k(1), ['src/a.ts']],
      [k(2), ['src/a.ts']],
      [k(3), ['src/']],
      [k(4), ['src/b.ts']],
    ]);
    const w = nextWave({ issues: map(xs), ready: [k(2), k(3), k(4)], running: [k(1)], caps: caps(), fences });
    expect(w).toEqual([
      {
        key: k(3),
        fenceOff: [
          { path: 'src/a.ts', owner: k(1) },
          { path: 'src/b.ts', owner: k(4) },
        ],
      },
      { key: k(4), fenceOff: [{ path: 'src/b.ts', owner: k(3) }] },
    ]);
  });
});
