import { describe, expect, it } from 'vitest';
import { priceTableOf } from './cost.ts';
import { type ChargeableAttempt, checkCaps, checkRunCost, issueCapsOf, issueUsage } from './issue-caps.ts';

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
    expect(u).toMatchObject({ tokens: 4500, attempts: 3, sessions: 2 });
    expect(u.spend).toHaveLength(3);
  });

  it('charges an attempt still running, and is all zero for none', () => {
    expect(issueUsage([attempt({ outcome: undefined })]).attempts).toBe(1);
    expect(issueUsage([])).toEqual({ tokens: 0, attempts: 0, sessions: 0, spend: [] });
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

describe('cost caps', () => {
  const prices = priceTableOf({ m: { input: 1000, output: 1000 } });
  // 120 tokens at $1000/M: $0.12 each.
  const spent = (n: number, model = 'm') =>
    issueUsage(Array.from({ length: n }, () => attempt({ model, tokens: { input: 100, output: 20 } })));

  it('reads dollars from the config as µ$, with the price table', () => {
    const caps = issueCapsOf({ maxCostPerIssue: 0.15, maxCostPerRun: 2 }, { m: { input: 1, output: 2 } });
    expect(caps).toMatchObject({ maxCost: 150_000, maxRunCost: 2_000_000 });
    expect(caps?.prices?.m).toEqual({ input: 1_000_000, output: 2_000_000 });
    // Token caps alone carry no table.
    expect(issueCapsOf({ maxTokensPerIssue: 5 })).toEqual({ maxTokens: 5 });
  });

  it("warns at 80 % of an issue's cost cap and holds it at the cap, in dollars", () => {
    const caps = { maxCost: 150_000, prices };
    const warn = checkCaps(spent(1), caps, '#1');
    expect(warn.level).toBe('warn');
    expect(warn.sentence).toBe('#1 has used $0.12 of $0.15 (80 %) of its cap; it is held when it reaches it');
    const over = checkCaps(spent(2), caps, '#1');
    expect(over.level).toBe('over');
    expect(over.sentence).toBe(
      '#1 reached its cap ($0.24 of $0.15 (160 %)) and is held; `/blitz retry #1` gives it a new allowance',
    );
    expect(over.key).toBe('caps:#1:over:cost');
  });

  it('counts no unknown price towards a cost cap', () => {
    expect(checkCaps(spent(5, 'mystery'), { maxCost: 1, prices }, '#1').level).toBe('ok');
  });

  it('holds the run at its cost cap, naming the retry that gives spend back', () => {
    expect(checkRunCost(100_000, 150_000).level).toBe('ok');
    expect(checkRunCost(120_000, 150_000).sentence).toBe(
      'the run has used $0.12 of $0.15 (80 %) of its cost cap; its issues are held when it reaches it',
    );
    expect(checkRunCost(240_000, 150_000, '#1').sentence).toBe(
      "the run reached its cost cap ($0.24 of $0.15 (160 %)) and every issue not running is held; `/blitz retry #1` gives that issue's spend back to the run",
    );
    expect(checkRunCost(240_000, 150_000).sentence).toContain('raise `runner.maxCostPerRun` to go on');
  });
});
