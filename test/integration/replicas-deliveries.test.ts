// Delivery leases between replicas on one database (SQLite file here; the lease itself is in the
// store suite on both engines): a replica that is processing a delivery keeps it, renewing its lease,
// so another replica's retry leaves it alone; once that replica died, its lease runs out and the
// other replica processes the delivery, once.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDeliveryQueue } from '../../src/intake/delivery-queue.ts';
import type { Received } from '../../src/intake/receive.ts';
import { createReceiver, resumeUnprocessed } from '../../src/intake/receive.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { tempDir } from '../support/git.ts';
import { sleep } from './runner-harness.ts';

const delivery: Received = {
  forge: 'gitea',
  deliveryId: 'd-1',
  event: 'issues',
  payload: { action: 'milestoned' },
  normalize: () => ({ outcome: 'accepted', events: [] }),
};

describe('a delivery processed by one replica of two', () => {
  it('is not replayed by the other while its replica lives, and is replayed once after it died', async () => {
    const file = join(tempDir('blitz-deliveries-'), 'blitz.db');
    const storeA = openSqliteStore(file);
    const storeB = openSqliteStore(file);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let startedA = false;
    const a = {
      store: storeA,
      queue: createDeliveryQueue({ logger: silentLogger() }),
      process: async () => {
        startedA = true;
        await gate;
      },
      metrics: createMetrics(),
      logger: silentLogger(),
      holder: 'bot-a',
      leaseSeconds: 1,
    };
    const processedByB: string[] = [];
    const b = {
      ...a,
      store: storeB,
      queue: createDeliveryQueue({ logger: silentLogger() }),
      process: async (w: { deliveryId: string }) => {
        processedByB.push(w.deliveryId);
      },
      holder: 'bot-b',
    };
    expect((await createReceiver(a)(delivery)).status).toBe(202);
    expect((await createReceiver(b)(delivery)).status).toBe(200);
    while (!startedA) await sleep(20);

    // Longer than one lease: A renews it while it works, so B's retries take nothing.
    for (let i = 0; i < 3; i++) {
      expect(await resumeUnprocessed(b)).toBe(0);
      await sleep(600);
    }
    expect(processedByB).toEqual([]);

    // A dies (its store is gone, so are its renewals); after its lease, B takes the delivery, once.
    await storeA.close();
    await sleep(1300);
    expect(await resumeUnprocessed(b)).toBe(1);
    await b.queue.idle();
    expect(processedByB).toEqual(['d-1']);
    expect(await resumeUnprocessed(b)).toBe(0);
    expect((await storeB.listDeliveries({ deliveryId: 'd-1' }))[0]?.processedAt).toBeDefined();
    release();
    await storeB.close();
  }, 30_000);
});
