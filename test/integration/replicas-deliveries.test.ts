// Delivery leases between replicas on one database (SQLite file here; the lease itself is in the
// store suite on both engines): a replica that is processing a delivery keeps it, renewing its lease,
// so another replica's retry leaves it alone; once that replica died, its lease runs out and the
// other replica processes the delivery, once. Time is the test's: both replicas read one clock the
// test moves, and A's renewal timer fires when the test says; the renewals are watched on the row.
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
import { until } from '../support/until.ts';

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
    let started: () => void = () => {};
    const startedA = new Promise<void>((r) => {
      started = r;
    });
    // One clock for both replicas, moved by the test; A's renewal timer, fired by the test.
    let now = Date.parse('2026-03-01T12:00:00Z');
    const clock = { now: () => new Date(now) };
    const renewals: { ms: number; fn: () => void; stopped: boolean }[] = [];
    const every = (ms: number, fn: () => void) => {
      const timer = { ms, fn, stopped: false };
      renewals.push(timer);
      return {
        stop: () => {
          timer.stopped = true;
        },
      };
    };
    const a = {
      store: storeA,
      queue: createDeliveryQueue({ logger: silentLogger() }),
      process: async () => {
        started();
        await gate;
      },
      metrics: createMetrics(),
      logger: silentLogger(),
      holder: 'bot-a',
      leaseSeconds: 30,
      clock,
      every,
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
    await startedA;

    // A renews its lease a third of the way through it, while it works.
    const first = leaseOf();
    expect(first).toEqual({ holder: 'bot-a', until: new Date(now + 30_000).toISOString() });
    expect(renewals).toHaveLength(1);
    const [renewal] = renewals;
    expect(renewal!.ms).toBe(10_000);
    expect(await resumeUnprocessed(b)).toBe(0);
    const renewLater = async () => {
      const before = leaseOf().until;
      now += renewal!.ms;
      renewal!.fn();
      await until('the lease renewed', () => leaseOf().until !== before);
    };
    // Well past A's first lease: A has renewed it every 10 s meanwhile, so B's retries take nothing.
    for (let i = 0; i < 4; i++) await renewLater();
    expect(now).toBeGreaterThan(Date.parse(first.until!));
    expect(leaseOf()).toEqual({ holder: 'bot-a', until: new Date(now + 30_000).toISOString() });
    expect(await resumeUnprocessed(b)).toBe(0);
    expect(processedByB).toEqual([]);

    // A dies (its store is gone, so are its renewals); once its lease has run out, B takes the
    // delivery, once.
    await storeA.close();
    now += 29_000;
    expect(await resumeUnprocessed(b)).toBe(0);
    now += 2_000;
    expect(await resumeUnprocessed(b)).toBe(1);
    await b.queue.idle();
    expect(processedByB).toEqual(['d-1']);
    expect(await resumeUnprocessed(b)).toBe(0);
    // The delivery's row is marked processed on the store's own clock (not the test's); B's sighting
    // of the same delivery id is a row of its own, never processed.
    const rows = await storeB.listDeliveries({ deliveryId: 'd-1' });
    expect(rows.map((d) => [d.outcome, d.processedAt])).toEqual([
      ['accepted', expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)],
      ['duplicate', undefined],
    ]);
    // A's work ends (its store gone, it cannot record that): its renewal timer is stopped all the same.
    expect(renewal!.stopped).toBe(false);
    release();
    await a.queue.idle();
    expect(renewal!.stopped).toBe(true);
    raw.close();
    await storeB.close();
  }, 30_000);
});
