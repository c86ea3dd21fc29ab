import { describe, expect, it } from 'vitest';
import {
  appliedSkew,
  clockSkewOf,
  onBotClock,
  resultOnBotClock,
  skewShown,
  skewWords,
} from './clock-skew.ts';
import type { AttemptResult } from './schema.ts';

const bot = new Date('2026-01-01T12:00:00.000Z');

describe('a runner’s clock against the bot’s', () => {
  it('takes the offset from the clock a request carries, and none from a missing, unreadable or absurd one', () => {
    expect(clockSkewOf('2026-01-01T11:50:00.000Z', bot)).toBe(-600_000);
    expect(clockSkewOf('2026-01-01T12:03:30.000Z', bot)).toBe(210_000);
    expect(clockSkewOf(undefined, bot)).toBeUndefined();
    expect(clockSkewOf('yesterday-ish', bot)).toBeUndefined();
    expect(clockSkewOf('1970-01-01T00:00:00.000Z', bot)).toBeUndefined();
  });

  it('moves a report’s times onto the bot’s clock, and leaves an unreadable one as written', () => {
    const r = {
      launchedAt: '2026-01-01T11:50:00.000Z',
      startedAt: '2026-01-01T11:49:00.000Z',
      endedAt: '2026-01-01T11:55:00.000Z',
      failureCause: { kind: 'environment', cause: 'provider_limit', resetAt: '2026-01-01T13:50:00.000Z' },
    } as AttemptResult;
    expect(resultOnBotClock(r, -600_000)).toMatchObject({
      launchedAt: '2026-01-01T12:00:00.000Z',
      startedAt: '2026-01-01T11:59:00.000Z',
      endedAt: '2026-01-01T12:05:00.000Z',
      // The reset time the runner read off its tool, against its own clock.
      failureCause: { kind: 'environment', cause: 'provider_limit', resetAt: '2026-01-01T14:00:00.000Z' },
    });
    expect(resultOnBotClock(r, undefined)).toBe(r);
    // A request's travel time is no offset.
    expect(appliedSkew(-40)).toBeUndefined();
    expect(appliedSkew(-600_000)).toBe(-600_000);
    expect(onBotClock('not a time', -600_000)).toBe('not a time');
  });

  it('shows an offset past a minute, in words', () => {
    expect(skewShown(59_000)).toBe(false);
    expect(skewShown(undefined)).toBe(false);
    expect(skewShown(-61_000)).toBe(true);
    expect(skewWords(-600_000)).toBe("10 min behind the bot's clock");
    expect(skewWords(250_000)).toBe("4 min 10 s ahead of the bot's clock");
  });
});
