// Delivery leases between replicas on one database (SQLite file here; the lease itself is in the
// store suite on both engines): a replica that is processing a delivery keeps it, renewing its lease,
// so another replica's retry leaves it alone; once that replica died, its lease runs out and the
// other replica processes the delivery, once. The renewals are watched on the row; the dead
// replica's lease is run out by moving its end back, not waited for.
import { join } from 'node:path';
import Database from 'better-sqlite3';
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
    // The lease as the row holds it (the test's own look at the file, beside the two stores).
    const raw = new Database(file);
    const leaseOf = () =>
      raw
        .prepare(
          "SELECT lease_holder AS holder, lease_until AS until FROM deliveries WHERE delivery_id = 'd-1'",
        )
        .get() as {
        holder: string | null;
        until: string | null;
      };
    expect((await createReceiver(a)(delivery)).status).toBe(202);
    expect((await createReceiver(b)(delivery)).status).toBe(200);
    while (!startedA) await sleep(20);

    // Past A's first lease: A has renewed it while it works, so B's retries take nothing.
    const first = leaseOf();
    expect(first.holder).toBe('bot-a');
    expect(await resumeUnprocessed(b)).toBe(0);
    while (Date.now() <= Date.parse(first.until!) || leaseOf().until === first.until) await sleep(50);
    expect(leaseOf()).toMatchObject({ holder: 'bot-a' });
    expect(Date.parse(leaseOf().until!)).toBeGreaterThan(Date.now());
    expect(await resumeUnprocessed(b)).toBe(0);
    expect(processedByB).toEqual([]);

    // A dies (its store is gone, so are its renewals); once its lease has run out (its end moved
    // into the past here), B takes the delivery, once.
    await storeA.close();
    raw
      .prepare("UPDATE deliveries SET lease_until = ? WHERE delivery_id = 'd-1'")
      .run(new Date(Date.now() - 1000).toISOString());
    expect(await resumeUnprocessed(b)).toBe(1);
    await b.queue.idle();
    expect(processedByB).toEqual(['d-1']);
    expect(await resumeUnprocessed(b)).toBe(0);
    expect((await storeB.listDeliveries({ deliveryId: 'd-1' }))[0]?.processedAt).toBeDefined();
    release();
    raw.close();
    await storeB.close();
  }, 30_000);
});
