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
});
