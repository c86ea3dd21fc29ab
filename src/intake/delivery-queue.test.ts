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
});
