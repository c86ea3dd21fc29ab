import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGroupCommit, type GroupOptions } from './group-commit.ts';

/** A writer that echoes its batch once the test opens its gate; each batch is recorded as it goes out. */
const gatedEcho = (options: GroupOptions) => {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const echo = createGroupCommit(async (xs: readonly number[]) => {
    batches.push([...xs]);
    await new Promise<void>((r) => gates.push(r));
    return xs;
  }, options);
  return { batches, gates, echo };
};

describe('createGroupCommit', () => {
  it('this-turn: the calls of one turn go out in one write, each caller gets its own answer', async () => {
    const batches: number[][] = [];
    const double = createGroupCommit((xs: readonly number[]) => {
      batches.push([...xs]);
      return xs.map((x) => x * 2);
    }, 'this-turn');
    expect(await Promise.all([double(1), double(2), double(3)])).toEqual([2, 4, 6]);
    expect(await double(4)).toBe(8);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('while-writing: a lone call goes out at once; those made while it is in flight go out together next', async () => {
    const batches: number[][] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const echo = createGroupCommit(async (xs: readonly number[]) => {
      batches.push([...xs]);
      if (batches.length === 1) await gate;
      return xs;
    });
    const first = echo(1);
    const rest = [echo(2), echo(3)];
    expect(batches).toEqual([[1]]);
    release();
    expect(await Promise.all([first, ...rest])).toEqual([1, 2, 3]);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it('a refused batch is retried one item at a time: only the bad item fails', async () => {
    const write = createGroupCommit((xs: readonly number[]) => {
      if (xs.includes(13)) throw new Error('refused');
      return xs;
    }, 'this-turn');
    const results = await Promise.allSettled([write(12), write(13), write(14)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('inFlight: that many writes go out at once, later calls gather behind them, at most maxBatch a write', async () => {
    const { batches, gates, echo } = gatedEcho({ inFlight: 2, maxBatch: 2 });
    const all = Promise.all([1, 2, 3, 4, 5].map((x) => echo(x)));
    expect(batches).toEqual([[1], [2]]);
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1], [2], [3, 4]]);
    while (batches.length < 4 || gates.length > 0) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    expect(await all).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[1], [2], [3, 4], [5]]);
  });

  it('spareAt: a second write goes out only once that many calls wait; fewer ride with the first when it is back', async () => {
    const { batches, gates, echo } = gatedEcho({ inFlight: 2, spareAt: 3 });
    const early = [1, 2, 3].map((x) => echo(x));
    expect(batches).toEqual([[1]]);
    const late = [4, 5].map((x) => echo(x));
    expect(batches).toEqual([[1], [2, 3, 4]]);
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
    while (gates.length > 0) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all([...early, ...late])).toEqual([1, 2, 3, 4, 5]);
  });
  it('spareAt: a call made while the only other writer retries a refused batch item by item goes out at once', async () => {
    const batches: number[][] = [];
    const gates: { items: number[]; open: (ok: boolean) => void }[] = [];
    const echo = createGroupCommit(
      async (xs: readonly number[]) => {
        batches.push([...xs]);
        const ok = await new Promise<boolean>((open) => gates.push({ items: [...xs], open }));
        if (!ok) throw new Error('refused');
        return xs;
      },
      { inFlight: 2, spareAt: 2 },
    );
    const tick = () => new Promise((r) => setImmediate(r));
    const first = echo(1);
    const pair = Promise.allSettled([echo(2), echo(13)]);
    expect(batches).toEqual([[1], [2, 13]]);
    gates.shift()!.open(true);
    await first;
    gates.shift()!.open(false);
    await tick();
    expect(batches).toEqual([[1], [2, 13], [2]]);
    // The writer left is busy with one item after another of the refused batch, not with a batch that
    // will take this call when it is back: it must not wait behind all of them.
    const late = echo(5);
    expect(batches).toEqual([[1], [2, 13], [2], [5]]);
    while (gates.length > 0) {
      const g = gates.shift()!;
      g.open(!g.items.includes(13));
      await tick();
    }
    expect((await pair).map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(await late).toBe(5);
  });

  it('rejoin: a caller that writes again once answered joins the next write, not the one after', async () => {
    const run = async (rejoin: boolean) => {
      const { batches, gates, echo } = gatedEcho({ rejoin });
      // A lane: each answer sets its next call going, a few promise hops later.
      const lane = async (first: number) => {
        await echo(first);
        await Promise.resolve();
        return echo(first + 10);
      };
      let done = false;
      const all = Promise.all([lane(1), lane(2), echo(3)]).then(() => {
        done = true;
      });
      expect(batches).toEqual([[1]]);
      while (!done) {
        gates.shift()?.();
        await new Promise((r) => setImmediate(r));
      }
      await all;
      return batches;
    };
    expect(await run(false)).toEqual([[1], [2, 3], [11], [12]]);
    expect(await run(true)).toEqual([[1], [2, 3, 11], [12]]);
  });

  describe('rides', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('a rider starts no write of its own: it goes out with the next write another item starts', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const { batches, gates, echo } = gatedEcho({ rides: (x) => (x as number) < 0, rideMs: 20 });
      const riders = [echo(-1), echo(-2)];
      expect(batches).toEqual([]);
      await vi.advanceTimersByTimeAsync(10);
      expect(batches).toEqual([]);
      const item = echo(7);
      expect(batches).toEqual([[-1, -2, 7]]);
      gates.shift()!();
      expect(await Promise.all([...riders, item])).toEqual([-1, -2, 7]);
      // The timer armed for the riders finds nothing left to write.
      await vi.advanceTimersByTimeAsync(20);
      expect(batches).toEqual([[-1, -2, 7]]);
    });

    it('a rider made while a write is in flight goes out with the next one, as any item', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const { batches, gates, echo } = gatedEcho({ rides: (x) => (x as number) < 0 });
      const first = echo(1);
      const rider = echo(-1);
      expect(batches).toEqual([[1]]);
      gates.shift()!();
      await vi.advanceTimersByTimeAsync(0);
      expect(batches).toEqual([[1], [-1]]);
      gates.shift()!();
      expect(await Promise.all([first, rider])).toEqual([1, -1]);
    });

    it('riders nothing else comes for go out alone once rideMs has passed', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const { batches, gates, echo } = gatedEcho({ rides: (x) => (x as number) < 0, rideMs: 20 });
      const riders = [echo(-1), echo(-2)];
      await vi.advanceTimersByTimeAsync(19);
      expect(batches).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(batches).toEqual([[-1, -2]]);
      gates.shift()!();
      expect(await Promise.all(riders)).toEqual([-1, -2]);
    });
  });
});
