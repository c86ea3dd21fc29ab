import { describe, expect, it } from 'vitest';
import { type ChargeableAttempt, checkCaps, issueUsage } from './issue-caps.ts';

const attempt = (over: Partial<ChargeableAttempt> = {}): ChargeableAttempt => ({
  outcome: 'unsolved',
  tokens: { input: 1000, output: 500 },
  ...over,
});

describe('issueUsage', () => {
  it('charges neither environment failures nor cancelled attempts, and counts a resumed session once', () => {
    const u = issueUsage([
      attempt({ sessionId: 's1' }),
      attempt({ sessionId: 's1', outcome: 'stalled' }),
      attempt({ outcome: 'environment_failure', tokens: { input: 9e6, output: 9e6 } }),
      attempt({ outcome: 'cancelled' }),
      attempt({ outcome: undefined, sessionId: 's2' }),
    ]);
    expect(u).toEqual({ tokens: 4500, attempts: 3, sessions: 2 });
  });

  it('charges an attempt still running, and is all zero for none', () => {
    expect(issueUsage([attempt({ outcome: undefined })]).attempts).toBe(1);
    expect(issueUsage([])).toEqual({ tokens: 0, attempts: 0, sessions: 0 });
  });
});

describe('checkCaps', () => {
  const caps = { maxTokens: 100_000, maxAttempts: 5, maxSessions: 4 };

  it('is ok below 80 %, with no sentence', () => {
    expect(checkCaps({ tokens: 79_999, attempts: 3, sessions: 3 }, caps, '#12')).toMatchObject({
      level: 'ok',
      sentence: '',
    });
    expect(checkCaps({ tokens: 10 ** 9, attempts: 99, sessions: 99 }, {}, '#12').level).toBe('ok');
  });

  it('warns at 80 %, naming what and how much', () => {
    const c = checkCaps({ tokens: 80_000, attempts: 1, sessions: 1 }, caps, '#12');
    expect(c.level).toBe('warn');
    expect(c.sentence).toBe(
      '#12 has used 80,000 of 100,000 tokens (80 %) of its cap; it is held when it reaches it',
    );
    expect(c.key).toBe('caps:#12:warn:tokens');
  });

  it('holds at the cap, with the command that continues', () => {
    const c = checkCaps({ tokens: 90_000, attempts: 5, sessions: 2 }, caps, '#12');
    expect(c.level).toBe('over');
    expect(c.items[0]).toEqual({ what: 'attempts', used: 5, cap: 5, level: 'over' });
    expect(c.sentence).toContain('reached its cap (5 of 5 attempts (100 %))');
    expect(c.sentence).toContain('`/blitz retry #12` gives it a new allowance');
    expect(c.key).toBe('caps:#12:over:attempts');
  });
});
