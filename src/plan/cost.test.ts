import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptCost,
  defaultPrices,
  formatCost,
  formatDollars,
  type Price,
  priceFor,
  priceTableOf,
  sumCosts,
  tokensCost,
} from './cost.ts';
import { defaultEntries } from './routing.ts';

const sonnet: Price = { input: 3_000_000, output: 15_000_000, cacheRead: 300_000, cacheWrite: 3_750_000 };

describe('tokensCost', () => {
  it('prices each kind of token at its own rate, in µ$', () => {
    // 1M in × $3 + 100k out × $15 + 400k read × $0.30 + 100k written × $3.75 = 3 + 1.5 + 0.12 + 0.375
    expect(
      tokensCost({ input: 1_000_000, output: 100_000, cache: 500_000, cacheWrite: 100_000 }, sonnet),
    ).toBe(4_995_000);
  });

  it('rounds half up once, at the µ$', () => {
    // 1 token at $3/M is 3 µ$; 1 token at $0.30/M is 0.3 µ$ → 0; 2 tokens at $0.75/M is 1.5 µ$ → 2.
    expect(tokensCost({ input: 1, output: 0 }, sonnet)).toBe(3);
    expect(tokensCost({ input: 0, output: 0, cache: 1, cacheWrite: 0 }, sonnet)).toBe(0);
    expect(tokensCost({ input: 2, output: 0 }, { input: 750_000, output: 0 })).toBe(2);
  });

  it('is unknown when cache tokens have no price, or were recorded without the split', () => {
    const noCache: Price = { input: 1_000_000, output: 2_000_000 };
    expect(tokensCost({ input: 10, output: 10, cache: 5, cacheWrite: 0 }, noCache)).toBeUndefined();
    expect(tokensCost({ input: 10, output: 10, cache: 5 }, sonnet)).toBeUndefined();
    expect(tokensCost({ input: 10, output: 10, cache: 0 }, noCache)).toBe(30);
  });

  it('is exact for any tokens: the integer sum of each kind, and never negative', () => {
    const price = fc.record({
      input: fc.integer({ min: 0, max: 100_000_000_000 }),
      output: fc.integer({ min: 0, max: 100_000_000_000 }),
      cacheRead: fc.integer({ min: 0, max: 100_000_000_000 }),
      cacheWrite: fc.integer({ min: 0, max: 100_000_000_000 }),
    });
    const count = fc.integer({ min: 0, max: 10_000_000_000 });
    fc.assert(
      fc.property(price, count, count, count, count, (p, input, output, read, written) => {
        const got = tokensCost({ input, output, cache: read + written, cacheWrite: written }, p);
        const exact =
          BigInt(input) * BigInt(p.input) +
          BigInt(output) * BigInt(p.output) +
          BigInt(read) * BigInt(p.cacheRead) +
          BigInt(written) * BigInt(p.cacheWrite);
        // Half up: got·10⁶ − exact lies in (−½·10⁶, ½·10⁶].
        const diff = BigInt(got!) * 1_000_000n - exact;
        expect(got).toBeGreaterThanOrEqual(0);
        expect(diff > -500_000n && diff <= 500_000n).toBe(true);
      }),
    );
  });

  it('grows with every kind of token (more tokens never cost less)', () => {
    const n = fc.integer({ min: 0, max: 1_000_000_000 });
    fc.assert(
      fc.property(n, n, n, n, fc.integer({ min: 1, max: 1_000_000 }), (i, o, r, w, more) => {
        const base = tokensCost({ input: i, output: o, cache: r + w, cacheWrite: w }, sonnet)!;
        expect(
          tokensCost({ input: i + more, output: o, cache: r + w, cacheWrite: w }, sonnet),
        ).toBeGreaterThanOrEqual(base);
        expect(
          tokensCost({ input: i, output: o + more, cache: r + w, cacheWrite: w }, sonnet),
        ).toBeGreaterThanOrEqual(base);
        expect(
          tokensCost({ input: i, output: o, cache: r + w + more, cacheWrite: w + more }, sonnet),
        ).toBeGreaterThanOrEqual(base);
      }),
    );
  });
});

describe('priceFor', () => {
  it('finds a model by its name, without its provider, or without its date suffix', () => {
    const table = priceTableOf({ 'qwen3-coder': { input: 0, output: 0 } });
    expect(priceFor(table, 'sonnet')).toEqual(defaultPrices.sonnet);
    expect(priceFor(table, 'anthropic/claude-sonnet-5-5')).toEqual(defaultPrices['claude-sonnet-5-5']);
    expect(priceFor(table, 'claude-sonnet-5-5-20260930')).toEqual(defaultPrices['claude-sonnet-5-5']);
    expect(priceFor(table, 'ollama_chat/qwen3-coder')).toEqual({ input: 0, output: 0 });
  });

  it('knows no price for an unknown model, no model, or a name of Object.prototype', () => {
    expect(priceFor(defaultPrices, 'gpt-9-turbo')).toBeUndefined();
    expect(priceFor(defaultPrices, undefined)).toBeUndefined();
    expect(priceFor(defaultPrices, 'constructor')).toBeUndefined();
  });

  it('prices every model of the built-in roster (plan/routing.ts defaultEntries), cache included', () => {
    const models = Object.values(defaultEntries).map((e) => e.model);
    expect(models).toEqual(['sonnet', 'opus', 'fable']);
    // A claude session is mostly cache reads: a built-in model without cache prices would make every
    // one of its attempts an unknown price.
    const session = { input: 1000, output: 1000, cache: 1_000_000, cacheWrite: 100_000 };
    // Cache read and 5-minute cache write in µ$ per million tokens: sonnet $0.20 / $2.50, opus $0.20 / $5,
    // fable $0.20 / $10.
    expect(
      models.map((model) => [
        model,
        priceFor(defaultPrices, model)?.cacheRead,
        priceFor(defaultPrices, model)?.cacheWrite,
      ]),
    ).toEqual([
      ['sonnet', 200_000, 2_500_000],
      ['opus', 200_000, 5_000_000],
      ['fable', 200_000, 10_000_000],
    ]);
    for (const model of models)
      expect(attemptCost(defaultPrices, { model, tokens: session }).unpriced, model).toBe(0);
    // Opus 5.5 (`opus`): $4 / $20, cache read $0.20, 5-minute cache write $5 per million tokens.
    expect(attemptCost(defaultPrices, { model: 'opus', tokens: session })).toEqual({
      micros: 4_000 + 20_000 + 180_000 + 500_000,
      unpriced: 0,
    });
  });

  it('takes the operator entry over a default, dollars to µ$', () => {
    const table = priceTableOf({ sonnet: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } });
    expect(table.sonnet).toEqual(sonnet);
    expect(table.fable).toEqual(defaultPrices.fable);
  });
});

describe('attemptCost and sums', () => {
  it('counts an attempt of an unknown model as unpriced, never as a number', () => {
    const tokens = { input: 1000, output: 100, cache: 0, cacheWrite: 0 };
    expect(attemptCost(defaultPrices, { model: 'mystery', tokens })).toEqual({ micros: 0, unpriced: 1 });
    expect(attemptCost(defaultPrices, { tokens })).toEqual({ micros: 0, unpriced: 1 });
    // No tokens reported: nothing to price.
    expect(attemptCost(defaultPrices, { model: 'mystery', tokens: { input: 0, output: 0 } })).toEqual({
      micros: 0,
      unpriced: 0,
    });
  });

  it('sums attempts so the issue total is the sum of the attempts shown', () => {
    const table = priceTableOf({ m: { input: 1, output: 1 } });
    const costs = [1, 2, 3].map((n) =>
      attemptCost(table, { model: 'm', tokens: { input: n * 1000, output: 0 } }),
    );
    expect(sumCosts(costs)).toEqual({ micros: 6000, unpriced: 0 });
  });
});

describe('formatting', () => {
  it('writes dollars and cents, rounded half up, with separators', () => {
    expect(formatDollars(0)).toBe('$0.00');
    expect(formatDollars(4_999)).toBe('<$0.01');
    expect(formatDollars(5_000)).toBe('$0.01');
    expect(formatDollars(415_000)).toBe('$0.42');
    expect(formatDollars(414_999)).toBe('$0.41');
    expect(formatDollars(1_234_567_890)).toBe('$1,234.57');
  });

  it('says unknown price instead of a number, and both when part is unknown', () => {
    expect(formatCost({ micros: 420_000, unpriced: 0 })).toBe('$0.42');
    expect(formatCost({ micros: 0, unpriced: 2 })).toBe('unknown price');
    expect(formatCost({ micros: 420_000, unpriced: 1 })).toBe('$0.42 + unknown price');
  });
});
