import { describe, expect, it } from 'vitest';
import { cronSlot, dispatchRunnerJob, enqueueCronTick } from './dispatch.ts';
import { InProcessQueue } from './in-process-queue.ts';

describe('cron ticks as singleton jobs', () => {
  it('puts two replicas ticking inside one slot on one job, and the next slot on another', async () => {
    const q = new InProcessQueue();
    const replicaA = await enqueueCronTick(q, 'reconcile', new Date('2026-01-01T00:05:01Z'), 60);
    const replicaB = await enqueueCronTick(q, 'reconcile', new Date('2026-01-01T00:05:59Z'), 60);
    const next = await enqueueCronTick(q, 'reconcile', new Date('2026-01-01T00:06:00Z'), 60);
    expect(replicaA).not.toBeNull();
    expect(replicaB).toBeNull();
    expect(next).not.toBeNull();
    expect((await q.claim(['cron/reconcile'], 'x'))?.payload).toEqual({ slot: '2026-01-01T00:05:00.000Z' });
  });

  it('names the slot by its start', () => {
    expect(cronSlot(new Date('2026-01-01T00:14:59.999Z'), 300)).toBe('2026-01-01T00:10:00.000Z');
  });
});

describe('dispatchRunnerJob', () => {
  it('sends a host-bound job to that host and refuses one without a host', async () => {
    const q = new InProcessQueue();
    await dispatchRunnerJob(q, { kind: 'cancel', attemptId: 'a1' }, { host: 'host-a' });
    expect(await q.claim(['host/host-b'], 'host-b')).toBeNull();
    expect((await q.claim(['host/host-a'], 'host-a'))?.payload).toEqual({ kind: 'cancel', attemptId: 'a1' });
    await expect(dispatchRunnerJob(q, { kind: 'cancel', attemptId: 'a1' })).rejects.toMatchObject({
      code: 'bad_request',
    });
  });
});
