// The SQLite store's writer thread (store/sqlite-writer.ts) on real files: a write is answered only
// once committed, a refused write fails alone, a thread that dies fails what it had not answered with
// a named error (so a webhook is not answered "kept") and the next write starts a new one, and closing
// the store writes everything handed over before the thread ends.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { NewDelivery } from '../../src/store/types.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { createHarness, signedCommand } from '../support/intake-harness.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});
const dbFile = () => {
  const dir = tempDir('blitz-writer-');
  dirs.push(dir);
  return join(dir, 'blitz.db');
};
const crashOnce = new URL('../support/sqlite-writer-crash-once.mjs', import.meta.url);

const sighting = (deliveryId: string): NewDelivery => ({
  forge: 'github',
  deliveryId,
  event: 'issues',
  outcome: 'accepted',
  events: [],
});

const rows = (file: string): string[] => {
  const db = new Database(file, { readonly: true });
  const ids = db.prepare('SELECT delivery_id FROM deliveries ORDER BY id').pluck().all() as string[];
  db.close();
  return ids;
};

describe('SQLite writer thread', () => {
  it('closing the store writes every write handed over before it, then ends the thread', async () => {
    const file = dbFile();
    const store = openSqliteStore(file);
    const ids = Array.from({ length: 40 }, (_, i) => `drain-${i}`);
    // Handed over and not awaited: close() is called in the same turn.
    const writes = ids.map((id) => store.recordDelivery(sighting(id)));
    const marks = store.markDeliveryProcessed('github', 'drain-0');
    await store.close();
    // On disk when close() returns, each answered as kept.
    expect(rows(file)).toEqual(ids);
    expect(await Promise.all(writes)).toEqual(ids.map(() => ({ outcome: 'accepted' })));
    await marks;
    // Closed: a later write is refused by name, not lost.
    const late = await store.recordDelivery(sighting('late')).catch((e: unknown) => e);
    expect(isAppError(late, 'store_error')).toBe(true);
  });

  it('a thread that dies fails the writes it had not answered with a store_error; the next write starts a new thread', async () => {
    const file = dbFile();
    const store = openSqliteStore(file, { writerScript: crashOnce });
    await store.recordDelivery(sighting('before'));
    writeFileSync(`${file}.crash`, '');
    const lost = await Promise.allSettled([
      store.recordDelivery(sighting('in-crash-1')),
      store.recordDelivery(sighting('in-crash-2')),
    ]);
    for (const r of lost) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason;
      expect(isAppError(err, 'store_error')).toBe(true);
      expect(String(err.message)).toMatch(/writer thread stopped/);
    }
    // Nothing of the crashed batch was kept; the ids are still free and a new thread takes them.
    expect(rows(file)).toEqual(['before']);
    expect(await store.recordDelivery(sighting('in-crash-1'))).toEqual({ outcome: 'accepted' });
    expect(await store.recordDelivery(sighting('before'))).toEqual({ outcome: 'duplicate' });
    await store.close();
  });

  it('a write made after the thread died but before its death was seen goes to the next thread, not failed and then written', async () => {
    const file = dbFile();
    const store = openSqliteStore(file, { writerScript: crashOnce });
    // A listener on the thread's 'error' added before the writer's own: it makes a write in the turn the
    // death is reported, before the writer hears of it (a write of this turn, not handed over yet).
    let late: Promise<unknown> | undefined;
    const onWorker = (m: unknown) => {
      (m as { worker: Worker }).worker.once('error', () => {
        late = store.recordDelivery(sighting('after-crash')).then(
          (v) => ({ ok: v }),
          (e: unknown) => ({ failed: e }),
        );
      });
    };
    subscribe('worker_threads', onWorker);
    try {
      writeFileSync(`${file}.crash`, '');
      const lost = await store.recordDelivery(sighting('in-crash')).catch((e: unknown) => e);
      expect(isAppError(lost, 'store_error')).toBe(true);
      unsubscribe('worker_threads', onWorker);
      expect(late).toBeDefined();
      // Never handed to the dead thread: the next thread writes it and it is answered kept.
      expect(await late).toEqual({ ok: { outcome: 'accepted' } });
      await store.close();
      expect(rows(file)).toEqual(['after-crash']);
    } finally {
      unsubscribe('worker_threads', onWorker);
    }
  });

  it('over HTTP: a delivery whose write dies with the thread is answered 5xx, not 202; sent again it is taken once', async () => {
    const file = dbFile();
    const h = createHarness({
      roles: { alice: 'write' },
      store: openSqliteStore(file, { writerScript: crashOnce }),
    });
    writeFileSync(`${file}.crash`, '');
    const first = await h.post('/api/github/webhooks', signedCommand('crashed-1', 4100));
    expect(first.status).toBe(503);
    await h.queue.idle();
    expect(h.github.calls).toEqual([]);
    expect(h.lines.some((l) => l.msg === 'request failed')).toBe(true);
    // The forge delivers again: a new thread records it and it is processed once.
    const again = await h.post('/api/github/webhooks', signedCommand('crashed-1', 4100));
    expect(again.status).toBe(202);
    expect((await h.post('/api/github/webhooks', signedCommand('crashed-1', 4100))).status).toBe(200);
    await h.queue.idle();
    expect((await h.store.listIntents()).map((i) => i.deliveryId)).toEqual(['comment:4100']);
    expect(h.github.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(1);
    await h.store.close();
  });

  it('a write whose value cannot be copied to the thread fails alone with a store_error; the writes beside it land', async () => {
    const file = dbFile();
    const store = openSqliteStore(file);
    const intent = (deliveryId: string, command: unknown) =>
      store.addIntent({ forge: 'github', repo: 'o/r', command, sender: 'alice', deliveryId, seq: 0 });
    // One turn: a sighting, an intent whose command holds a function (a bug upstream), another intent.
    const results = await Promise.allSettled([
      store.recordDelivery(sighting('beside-1')),
      intent('comment:1', { name: 'blitz', run: () => undefined }),
      intent('comment:2', { name: 'blitz', milestone: 'M1' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(isAppError((results[1] as PromiseRejectedResult).reason, 'store_error')).toBe(true);
    expect(rows(file)).toEqual(['beside-1']);
    expect((await store.listIntents()).map((i) => i.deliveryId)).toEqual(['comment:2']);
    await store.close();
  });

  it('a lease, a failure count and a hold go through the thread in order with the sighting before them', async () => {
    const file = dbFile();
    const store = openSqliteStore(file);
    await store.recordDelivery(sighting('leased'));
    const now = '2026-01-01T00:00:00.000Z';
    const [leased, failures, held] = await Promise.all([
      store.leaseDelivery('github', 'leased', 'me', '2026-01-01T00:02:00.000Z', now),
      store.countDeliveryFailure('github', 'leased', 'forge said 500'),
      store.holdDelivery('github', 'leased', { retryAfter: '2026-01-01T00:01:00.000Z' }),
    ]);
    expect(leased).toBe(true);
    expect(failures).toBe(1);
    expect(held).toBeUndefined();
    expect(await store.listUnprocessedDeliveries(now)).toEqual([]);
    expect(await store.listUnprocessedDeliveries('2026-01-01T00:01:00.000Z')).toHaveLength(1);
    await store.close();
  });
});
