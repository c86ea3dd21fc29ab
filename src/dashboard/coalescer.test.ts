import { describe, expect, it } from 'vitest';
import { type Clock, createDashboardCoalescer, type TimerPort } from './coalescer.ts';

/** A clock and timers that move only when told to. */
class FakeTime implements Clock, TimerPort {
  t = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  set(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  get scheduled(): number {
    return this.timers.size;
  }
  /** Moves time forward, firing due timers in order and letting their promises settle. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const due = [...this.timers.entries()]
        .filter(([, x]) => x.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}

const settle = () => new Promise<void>((r) => setImmediate(r));

const setup = (publishImpl?: (runId: string, body: string) => Promise<void>) => {
  const time = new FakeTime();
  const edits: { at: number; runId: string; body: string }[] = [];
  const errors: string[] = [];
  const c = createDashboardCoalescer({
    publish: async (runId, body) => {
      edits.push({ at: time.now(), runId, body });
      if (publishImpl) await publishImpl(runId, body);
    },
    intervalMs: 10_000,
    clock: time,
    timers: time,
    onError: (runId, err) => errors.push(`${runId}: ${(err as Error).message}`),
  });
  return { time, edits, errors, c };
};

describe('dashboard coalescer', () => {
  it('publishes the first content at once', async () => {
    const { c, edits } = setup();
    c.update('r1', 'v1');
    await settle();
    expect(edits).toEqual([{ at: 0, runId: 'r1', body: 'v1' }]);
  });

  it('sends at most one edit per 10 s, and the latest content wins', async () => {
    const { c, edits, time } = setup();
    c.update('r1', 'v1');
    await settle();
    for (const [i, at] of [1_000, 3_000, 9_000].entries()) {
      await time.advance(at - time.now());
      c.update('r1', `v${i + 2}`);
    }
    await time.advance(10_000 - time.now());
    expect(edits.map((e) => [e.at, e.body])).toEqual([
      [0, 'v1'],
      [10_000, 'v4'],
    ]);
  });

  it('never edits one run twice within the interval under a stream of updates', async () => {
    const { c, edits, time } = setup();
    for (let i = 0; i < 200; i++) {
      c.update('r1', `v${i}`);
      await time.advance(700);
    }
    await time.advance(20_000);
    for (let i = 1; i < edits.length; i++)
      expect(edits[i]!.at - edits[i - 1]!.at).toBeGreaterThanOrEqual(10_000);
    expect(edits.at(-1)?.body).toBe('v199');
  });

  it('does not send content equal to what was last published', async () => {
    const { c, edits, time } = setup();
    c.update('r1', 'same');
    await settle();
    await time.advance(15_000);
    c.update('r1', 'same');
    await time.advance(15_000);
    expect(edits).toHaveLength(1);
  });

  it('keeps runs independent', async () => {
    const { c, edits } = setup();
    c.update('a', 'a1');
    c.update('b', 'b1');
    await settle();
    expect(edits.map((e) => e.runId)).toEqual(['a', 'b']);
  });

  it('flushes pending content at once on run end and forgets the timer', async () => {
    const { c, edits, time } = setup();
    c.update('r1', 'v1');
    await settle();
    await time.advance(2_000);
    c.update('r1', 'final');
    expect(c.pendingRuns()).toEqual(['r1']);
    await c.flush('r1');
    expect(edits.map((e) => [e.at, e.body])).toEqual([
      [0, 'v1'],
      [2_000, 'final'],
    ]);
    expect(time.scheduled).toBe(0);
    await time.advance(30_000);
    expect(edits).toHaveLength(2);
    expect(c.pendingRuns()).toEqual([]);
  });

  it('waits for a slow edit, then sends what arrived meanwhile at the next slot', async () => {
    let release!: () => void;
    const { c, edits, time } = setup((_r, body) =>
      body === 'v1' ? new Promise<void>((r) => (release = r)) : Promise.resolve(),
    );
    c.update('r1', 'v1');
    await settle();
    await time.advance(12_000);
    c.update('r1', 'v2');
    await time.advance(1_000);
    expect(edits).toHaveLength(1);
    release();
    await settle();
    await settle();
    expect(edits.map((e) => [e.at, e.body])).toEqual([
      [0, 'v1'],
      [13_000, 'v2'],
    ]);
  });

  it('reports a failed edit and retries it at the next slot without throwing', async () => {
    let fail = true;
    const { c, edits, errors, time } = setup(async () => {
      if (fail) throw new Error('forge down');
    });
    c.update('r1', 'v1');
    await settle();
    expect(errors).toEqual(['r1: forge down']);
    fail = false;
    await time.advance(10_000);
    expect(edits.map((e) => [e.at, e.body])).toEqual([
      [0, 'v1'],
      [10_000, 'v1'],
    ]);
    await time.advance(30_000);
    expect(edits).toHaveLength(2);
  });

  it('shares the edit budget: with two active runs each waits twice the interval', async () => {
    const { c, edits, time } = setup();
    c.update('a', 'a1');
    c.update('b', 'b1');
    await settle();
    c.update('a', 'a2');
    c.update('b', 'b2');
    await time.advance(10_000);
    expect(edits).toHaveLength(2);
    await time.advance(10_000);
    expect(edits.map((e) => [e.at, e.runId, e.body])).toEqual([
      [0, 'a', 'a1'],
      [0, 'b', 'b1'],
      [20_000, 'a', 'a2'],
      [20_000, 'b', 'b2'],
    ]);
  });

  it('a run quiet for 15 minutes no longer counts as active', async () => {
    const { c, edits, time } = setup();
    c.update('old', 'o1');
    await settle();
    await time.advance(16 * 60_000);
    c.update('a', 'a1');
    await settle();
    c.update('a', 'a2');
    await time.advance(10_000);
    expect(edits.map((e) => e.body)).toEqual(['o1', 'a1', 'a2']);
  });

  it('retries a failed edit no sooner than a second later, even with no interval', async () => {
    let fail = true;
    const time = new FakeTime();
    const sent: number[] = [];
    const c = createDashboardCoalescer({
      publish: async () => {
        sent.push(time.now());
        if (fail) throw new Error('forge down');
      },
      intervalMs: 0,
      clock: time,
      timers: time,
    });
    c.update('r1', 'v1');
    await settle();
    await c.settle();
    expect(sent).toEqual([0]);
    fail = false;
    await time.advance(1_000);
    expect(sent).toEqual([0, 1_000]);
  });

  it('settle waits for edits in flight and leaves timed ones to their slot', async () => {
    let release!: () => void;
    const { c, edits, time } = setup((_r, body) =>
      body === 'v1' ? new Promise<void>((r) => (release = r)) : Promise.resolve(),
    );
    c.update('r1', 'v1');
    await settle();
    let settled = false;
    const waiting = c.settle().then(() => {
      settled = true;
    });
    await settle();
    expect(settled).toBe(false);
    c.update('r1', 'v2');
    release();
    await waiting;
    expect(edits.map((e) => e.body)).toEqual(['v1']);
    expect(c.pendingRuns()).toEqual(['r1']);
    await time.advance(10_000);
    expect(edits.map((e) => e.body)).toEqual(['v1', 'v2']);
  });
});
