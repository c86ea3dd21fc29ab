import { describe, expect, it } from 'vitest';
import { silentLogger } from '../observability/logger.ts';
import { createDeliveryQueue } from './delivery-queue.ts';

describe('delivery queue', () => {
  it('runs tasks after the enqueuing code has finished, one at a time, in order', async () => {
    const q = createDeliveryQueue({ logger: silentLogger() });
    const log: string[] = [];
    q.enqueue('a', async () => {
      log.push('a start');
      await new Promise((r) => setImmediate(r));
      log.push('a end');
    });
    q.enqueue('b', async () => {
      log.push('b');
    });
    log.push('enqueued');
    await q.idle();
    expect(log).toEqual(['enqueued', 'a start', 'a end', 'b']);
  });

  it('a failing task does not stop the ones after it', async () => {
    const q = createDeliveryQueue({ logger: silentLogger() });
    const done: string[] = [];
    q.enqueue('boom', async () => {
      throw new Error('boom');
    });
    q.enqueue('next', async () => {
      done.push('next');
    });
    await q.idle();
    expect(done).toEqual(['next']);
  });

  it('drain waits for queued work and refuses new tasks', async () => {
    const q = createDeliveryQueue({ logger: silentLogger() });
    const done: string[] = [];
    q.enqueue('first', async () => {
      done.push('first');
    });
    await q.drain();
    expect(done).toEqual(['first']);
    expect(q.enqueue('late', async () => void done.push('late'))).toBe(false);
    await q.idle();
    expect(done).toEqual(['first']);
  });

  it('runs the lanes side by side, each lane in order, never more lanes at once than allowed', async () => {
    const q = createDeliveryQueue({ logger: silentLogger(), concurrency: 2 });
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const step = (name: string) => async () => {
      log.push(`${name} start`);
      await new Promise<void>((r) => gates.set(name, r));
      log.push(`${name} end`);
    };
    q.enqueue('a1', step('a1'), 'repo-a');
    q.enqueue('a2', step('a2'), 'repo-a');
    q.enqueue('b1', step('b1'), 'repo-b');
    q.enqueue('c1', step('c1'), 'repo-c');
    const settled = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    await settled();
    // Two lanes at once: a1 and b1 started; a2 waits behind a1, c1 for a free slot.
    expect(log).toEqual(['a1 start', 'b1 start']);
    gates.get('b1')!();
    await settled();
    expect(log).toEqual(['a1 start', 'b1 start', 'b1 end', 'c1 start']);
    gates.get('a1')!();
    await settled();
    expect(log.slice(4)).toEqual(['a1 end', 'a2 start']);
    gates.get('a2')!();
    gates.get('c1')!();
    await q.idle();
    expect(log.filter((l) => l.endsWith('end')).sort()).toEqual(['a1 end', 'a2 end', 'b1 end', 'c1 end']);
    expect(q.size).toBe(0);
  });

  it('idle and drain wait for the work a task left behind, while its lane goes on', async () => {
    const q = createDeliveryQueue({ logger: silentLogger() });
    const log: string[] = [];
    let finishMark: () => void = () => {};
    q.enqueue(
      'first',
      async () => {
        q.track(new Promise<void>((r) => (finishMark = r)).then(() => void log.push('first marked')));
        log.push('first done');
      },
      'repo',
    );
    q.enqueue('second', async () => void log.push('second done'), 'repo');
    let idle = false;
    const idled = q.idle().then(() => {
      idle = true;
    });
    const drained = q.drain();
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['first done', 'second done']);
    expect(idle).toBe(false);
    finishMark();
    await Promise.all([idled, drained]);
    expect(log).toEqual(['first done', 'second done', 'first marked']);
  });

  it('left-behind work that fails is logged and does not hold idle', async () => {
    const q = createDeliveryQueue({ logger: silentLogger() });
    q.enqueue('a', async () => q.track(Promise.reject(new Error('mark refused'))));
    await q.idle();
    expect(q.size).toBe(0);
  });
});

describe('delivery queue: webhooks being answered come first', () => {
  /** A clock and one-shot timers the test moves by hand. */
  const manualTime = () => {
    let now = 0;
    const timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
    return {
      clock: { now: () => now },
      after: (ms: number, fn: () => void) => {
        const t = { at: now + ms, fn, cancelled: false };
        timers.push(t);
        return {
          cancel: () => {
            t.cancelled = true;
          },
        };
      },
      /** Moves the clock and fires the timers that came due. */
      advance(ms: number) {
        now += ms;
        for (const t of timers.splice(0).sort((a, b) => a.at - b.at)) {
          if (t.cancelled) continue;
          if (t.at <= now) t.fn();
          else timers.push(t);
        }
      },
    };
  };
  const settled = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };

  it('a task waits while a webhook is being answered and runs once the answer is out', async () => {
    const time = manualTime();
    const q = createDeliveryQueue({ logger: silentLogger(), maxDeferMs: 1000, ...time });
    const log: string[] = [];
    const answered = q.answering();
    q.enqueue('d1', async () => void log.push('d1'), 'repo');
    await settled();
    expect(log).toEqual([]);
    answered();
    answered(); // a second call changes nothing
    await q.idle();
    expect(log).toEqual(['d1']);
  });

  it('a delivery queued during a sustained burst is processed once its wait is over', async () => {
    const time = manualTime();
    const q = createDeliveryQueue({ logger: silentLogger(), maxDeferMs: 1000, ...time });
    const log: string[] = [];
    // Webhooks overlap without a gap: at every moment one is being answered.
    let current = q.answering();
    const nextWebhook = () => {
      const next = q.answering();
      current();
      current = next;
    };
    q.enqueue('d1', async () => void log.push('d1'), 'repo-a');
    time.advance(400);
    nextWebhook();
    q.enqueue('d2', async () => void log.push('d2'), 'repo-b');
    q.enqueue('d3', async () => void log.push('d3'), 'repo-a');
    await settled();
    expect(log).toEqual([]);
    time.advance(600); // d1 has waited its 1000 ms
    nextWebhook();
    await settled();
    expect(log).toEqual(['d1']);
    time.advance(400); // d2 and d3 have too
    nextWebhook();
    await settled();
    expect(log.sort()).toEqual(['d1', 'd2', 'd3']);
    current();
    await q.idle();
  });

  it('a lane put back to wait does not hold up an older task of another lane past its wait', async () => {
    const time = manualTime();
    const q = createDeliveryQueue({ logger: silentLogger(), maxDeferMs: 1000, ...time });
    const log: string[] = [];
    const answered = q.answering(); // one webhook in flight all along
    q.enqueue('a1', async () => void log.push('a1'), 'repo-a');
    time.advance(1);
    q.enqueue('b1', async () => void log.push('b1'), 'repo-b');
    time.advance(998);
    q.enqueue('a2', async () => void log.push('a2'), 'repo-a');
    time.advance(1); // a1 has waited its 1000 ms: it runs, and repo-a waits again for a2
    await settled();
    expect(log).toEqual(['a1']);
    time.advance(1); // so has b1, queued before a2
    await settled();
    expect(log).toEqual(['a1', 'b1']);
    answered();
    await q.idle();
    expect(log).toEqual(['a1', 'b1', 'a2']);
  });

  it('with no webhook in flight, tasks run at once', async () => {
    const time = manualTime();
    const q = createDeliveryQueue({ logger: silentLogger(), maxDeferMs: 1000, ...time });
    const log: string[] = [];
    q.enqueue('d1', async () => void log.push('d1'));
    await q.idle();
    expect(log).toEqual(['d1']);
  });
});
