import { describe, expect, it } from 'vitest';
import { InProcessQueue } from './in-process-queue.ts';

describe('in-process queue', () => {
  it('forgets finished jobs and their singleton keys after an hour, so memory stays bounded', async () => {
    let t = 0;
    const q = new InProcessQueue({ now: () => t });
    const id = (await q.enqueue('q', {}, { singletonKey: 'k' }))!;
    await q.complete((await q.claim(['q'], 'a'))!, 'a');
    t += 30 * 60_000;
    await q.expireLeases();
    expect(await q.get({ queue: 'q', id })).toMatchObject({ state: 'completed' });
    expect(await q.enqueue('q', {}, { singletonKey: 'k' })).toBeNull();
    t += 31 * 60_000;
    await q.expireLeases();
    expect(await q.get({ queue: 'q', id })).toBeUndefined();
    expect(await q.enqueue('q', {}, { singletonKey: 'k' })).not.toBeNull();
  });

  it('keeps a job that is still queued or active however old', async () => {
    let t = 0;
    const q = new InProcessQueue({ now: () => t });
    const active = (await q.enqueue('q', {}, { leaseSeconds: 10 * 3600 }))!;
    await q.claim(['q'], 'a');
    const queued = (await q.enqueue('q', {}))!;
    t += 5 * 3600_000;
    await q.expireLeases();
    expect(await q.get({ queue: 'q', id: queued })).toMatchObject({ state: 'queued' });
    expect(await q.get({ queue: 'q', id: active })).toMatchObject({ state: 'active', holder: 'a' });
  });

  it('claims in enqueue order across the named queues; a retried job waits out its backoff, then keeps its place', async () => {
    let t = 0;
    const q = new InProcessQueue({ now: () => t });
    const a = (await q.enqueue('x', { n: 'a' }, { retryLimit: 1, retryDelaySeconds: 10 }))!;
    await q.enqueue('y', { n: 'b' });
    await q.enqueue('z', { n: 'not named' });
    const first = (await q.claim(['x', 'y'], 'r1'))!;
    expect(first.id).toBe(a);
    await q.fail(first, 'r1', 'boom');
    await q.enqueue('x', { n: 'c' });
    // a is back in x but hidden for 10 s: b (y) comes first, then c (x, enqueued after a).
    expect((await q.claim(['x', 'y'], 'r1'))!.payload).toEqual({ n: 'b' });
    expect((await q.claim(['x', 'y'], 'r1'))!.payload).toEqual({ n: 'c' });
    expect(await q.claim(['x', 'y'], 'r1')).toBeNull();
    t += 20_000;
    const again = (await q.claim(['y', 'x'], 'r2'))!;
    expect(again).toMatchObject({ id: a, retryCount: 1 });
    expect(await q.claim(['x', 'y'], 'r2')).toBeNull();
    expect((await q.claim(['z'], 'r2'))!.payload).toEqual({ n: 'not named' });
  });

  it('an expired lease puts the job back in its queue for the next claim', async () => {
    let t = 0;
    const q = new InProcessQueue({ now: () => t });
    const id = (await q.enqueue('q', {}, { leaseSeconds: 5, retryDelaySeconds: 0 }))!;
    await q.claim(['q'], 'dead');
    expect(await q.claim(['q'], 'live')).toBeNull();
    t += 6_000;
    expect(await q.claim(['q'], 'live')).toMatchObject({ id, holder: 'live', retryCount: 1 });
    await expect(q.heartbeat({ queue: 'q', id }, 'dead')).rejects.toThrow(/not leased/);
  });
});
