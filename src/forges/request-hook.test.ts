import { describe, expect, it } from 'vitest';
import { outcomeOfStatus, remainingOf, safeHook } from './request-hook.ts';

describe('forge request hook', () => {
  it('classes statuses as ok, 4xx, 5xx, and no status as a network failure', () => {
    expect([200, 204, 304, 404, 422, 429, 500, 503, undefined].map(outcomeOfStatus)).toEqual([
      'ok',
      'ok',
      'ok',
      '4xx',
      '4xx',
      '4xx',
      '5xx',
      '5xx',
      'network',
    ]);
  });

  it('reads the remaining rate limit only when it is a number', () => {
    expect([
      remainingOf('4999'),
      remainingOf(0),
      remainingOf(null),
      remainingOf('soon'),
      remainingOf('-1'),
    ]).toEqual([4999, 0, undefined, undefined, undefined]);
  });

  it('never lets a failing listener fail the request', () => {
    const seen: string[] = [];
    const hook = safeHook((r) => {
      seen.push(r.outcome);
      throw new Error('listener broke');
    });
    expect(() => hook({ outcome: 'ok' })).not.toThrow();
    expect(seen).toEqual(['ok']);
  });
});
