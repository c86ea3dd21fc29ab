import { describe, expect, it } from 'vitest';
import { createBudgetTracker, pace, pacedSessions } from './rate-budget.ts';

const now = Date.parse('2026-12-01T12:00:00Z');
const window = (remaining: number, resetInMin: number, limit = 5000) => ({
  limit,
  remaining,
  resetAt: now + resetInMin * 60_000,
  seenAt: now,
});

describe('pace', () => {
  it('runs at full speed while the budget lasts longer than the window', () => {
    const p = pace({ now, windows: { core: window(4000, 30) }, writesLastMinute: 0, writesLastHour: 0 });
    expect(p).toEqual({ sessionFactor: 1, intervalFactor: 1, reason: '' });
  });

  it('slows in proportion when the budget is spent faster than the window refills', () => {
    // 25 % left with 50 % of the hour to go: half speed, twice the interval.
    const p = pace({ now, windows: { core: window(1250, 30) }, writesLastMinute: 0, writesLastHour: 0 });
    expect(p.sessionFactor).toBe(0.5);
    expect(p.intervalFactor).toBe(2);
    expect(p.until).toBe(now + 30 * 60_000);
    expect(p.reason).toMatch(/core rate limit spent faster than it refills \(1250\/5000, resets in 30 min\)/);
  });

  it('starts no new session under 10 % of the budget, until the reset', () => {
    const p = pace({ now, windows: { graphql: window(300, 12) }, writesLastMinute: 0, writesLastHour: 0 });
    expect(p.sessionFactor).toBe(0);
    expect(p.until).toBe(now + 12 * 60_000);
    expect(p.reason).toContain('graphql rate limit nearly spent (300/5000)');
    expect(pacedSessions(8, p)).toBe(0);
  });

  it('ignores a window whose reset has passed (the budget is full again)', () => {
    const p = pace({ now, windows: { core: window(0, -1) }, writesLastMinute: 0, writesLastHour: 0 });
    expect(p.sessionFactor).toBe(1);
  });

  it('halves near the secondary limit and stops at it', () => {
    const near = pace({ now, windows: {}, writesLastMinute: 61, writesLastHour: 100 });
    expect(near.sessionFactor).toBe(0.5);
    expect(near.reason).toContain('61/80 a minute');
    const atHour = pace({ now, windows: {}, writesLastMinute: 3, writesLastHour: 500 });
    expect(atHour.sessionFactor).toBe(0);
    expect(atHour.reason).toContain('500/500 this hour');
    expect(pacedSessions(8, near)).toBe(4);
  });

  it('the most severe reason wins', () => {
    const p = pace({
      now,
      windows: { core: window(1250, 30), graphql: window(100, 5) },
      writesLastMinute: 70,
      writesLastHour: 0,
    });
    expect(p.sessionFactor).toBe(0);
    expect(p.reason).toContain('graphql');
  });

  it('holds new sessions while a rate-limit refusal waits out its Retry-After, then runs at full speed', () => {
    const refused = { until: now + 90_000, retryAfterSeconds: 90, limit: 'secondary' as const };
    const p = pace({ now, windows: {}, writesLastMinute: 0, writesLastHour: 0, refused });
    expect(p).toMatchObject({ sessionFactor: 0, intervalFactor: 4, until: now + 90_000 });
    expect(p.reason).toBe(
      'the forge refused a request at its secondary rate limit (retry after 90 s): no new sessions until it lifts in 2 min',
    );
    const later = pace({ now: now + 90_000, windows: {}, writesLastMinute: 0, writesLastHour: 0, refused });
    expect(later.sessionFactor).toBe(1);
  });

  it('never asks for fewer than one session unless it says zero', () => {
    expect(pacedSessions(2, { sessionFactor: 0.25, intervalFactor: 4, reason: 'x' })).toBe(1);
  });
});

describe('budget tracker', () => {
  it('keeps the last rate-limit headers per key and resource and counts successful writes', () => {
    let t = now;
    const tracker = createBudgetTracker({ now: () => t });
    const headers = (resource: string, remaining: number) => ({
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String((now + 600_000) / 1000),
      'x-ratelimit-resource': resource,
    });
    tracker.observe('github:1', { method: 'GET', status: 200, rateHeaders: headers('core', 4990) });
    tracker.observe('github:1', { method: 'POST', status: 200, rateHeaders: headers('graphql', 4001) });
    tracker.observe('github:1', {
      method: 'POST',
      status: 200,
      mutation: true,
      rateHeaders: headers('graphql', 4000),
    });
    tracker.observe('github:1', { method: 'POST', status: 201, rateHeaders: headers('core', 4989) });
    tracker.observe('github:1', { method: 'PATCH', status: 422, rateHeaders: headers('core', 4988) });
    tracker.observe('github:2', { method: 'GET', status: 200, rateHeaders: { 'x-ratelimit-limit': 'soon' } });
    const s = tracker.snapshot('github:1')!;
    expect(s.resources.core).toMatchObject({ remaining: 4988, limit: 5000, resetAt: now + 600_000 });
    expect(s.resources.graphql?.remaining).toBe(4000);
    // The REST POST and the GraphQL mutation; not the GraphQL query, nor the refused PATCH.
    expect(s.writesLastMinute).toBe(2);
    expect(tracker.snapshot('github:2')?.resources).toEqual({});
    t += 61_000;
    expect(tracker.snapshot('github:1')).toMatchObject({ writesLastMinute: 0, writesLastHour: 2 });
    t += 3_600_000;
    expect(tracker.snapshot('github:1')?.writesLastHour).toBe(0);
    expect(tracker.all().map((x) => x.key)).toEqual(['github:1', 'github:2']);
    expect(tracker.paceOf('unknown').sessionFactor).toBe(1);
  });
  it('keeps a 429 or a 403 with Retry-After as a refusal until then; a 403 without one is not a limit', () => {
    let t = now;
    const tracker = createBudgetTracker({ now: () => t });
    tracker.observe('github:1', { method: 'GET', status: 403 });
    expect(tracker.snapshot('github:1')?.refused).toBeUndefined();
    tracker.observe('github:1', { method: 'POST', status: 403, retryAfter: 60 });
    expect(tracker.snapshot('github:1')?.refused).toEqual({
      until: now + 60_000,
      retryAfterSeconds: 60,
      limit: 'secondary',
    });
    // A shorter wait heard later does not cut the longer one short; a waited-out retry says its limit.
    tracker.observe('github:1', { method: 'GET', retryAfter: 5, limit: 'primary' });
    expect(tracker.snapshot('github:1')?.refused?.until).toBe(now + 60_000);
    expect(tracker.paceOf('github:1')).toMatchObject({ sessionFactor: 0, until: now + 60_000 });
    tracker.observe('github:1', {
      method: 'GET',
      status: 429,
      retryAfter: 600,
      rateHeaders: { 'x-ratelimit-remaining': '0' },
    });
    expect(tracker.snapshot('github:1')?.refused).toMatchObject({ until: now + 600_000, limit: 'primary' });
    t += 600_000;
    expect(tracker.snapshot('github:1')?.refused).toBeUndefined();
    expect(tracker.paceOf('github:1').sessionFactor).toBe(1);
  });
});
