// Deliveries that arrive together are recorded in shared SQLite commits (store/group-commit.ts). What
// that must not change, over HTTP with a SQLite file: a 202 is answered only once its row is committed
// (another connection sees it), a commit the database refuses fails every request in it with a 5xx and
// keeps none of them, and repeats of one delivery id inside a batch are answered as duplicates.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { createHarness, signedCommand } from '../support/intake-harness.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const fileHarness = () => {
  const dir = tempDir('blitz-group-commit-');
  dirs.push(dir);
  const file = join(dir, 'blitz.db');
  const h = createHarness({ roles: { alice: 'write' }, store: openSqliteStore(file) });
  // A second connection to the same file: it sees only what was committed.
  const other = new Database(file, { readonly: false });
  return { h, file, other };
};

const rowCount = (db: Database.Database, id: string): number =>
  (db.prepare('SELECT count(*) AS n FROM deliveries WHERE delivery_id = ?').get(id) as { n: number }).n;

describe('deliveries arriving together (group commit over HTTP)', () => {
  it('each of 24 concurrent deliveries is answered 202 only once its row is committed, and each is processed once', async () => {
    const { h, other } = fileHarness();
    const ids = Array.from({ length: 24 }, (_, i) => `together-${i}`);
    const seenAtAnswer = await Promise.all(
      ids.map(async (id, i) => {
        const res = await h.post('/api/github/webhooks', signedCommand(id, 7000 + i));
        expect(res.status).toBe(202);
        // Read on another connection the moment the answer arrives: committed, not merely written.
        return rowCount(other, id);
      }),
    );
    expect(seenAtAnswer).toEqual(ids.map(() => 1));
    await h.queue.idle();
    expect((await h.store.listIntents()).map((i) => i.deliveryId).sort()).toEqual(
      ids.map((_, i) => `comment:${7000 + i}`).sort(),
    );
    expect(h.github.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(ids.length);
    other.close();
    await h.store.close();
  });

  it('a commit the database refuses fails every request in it with a 5xx and keeps none; sent again, each is taken once', async () => {
    const { h, other } = fileHarness();
    other.exec(`CREATE TRIGGER refuse_sightings BEFORE INSERT ON deliveries
                BEGIN SELECT RAISE(ABORT, 'disk says no'); END`);
    const ids = Array.from({ length: 12 }, (_, i) => `refused-${i}`);
    const first = await Promise.all(
      ids.map((id, i) => h.post('/api/github/webhooks', signedCommand(id, 8000 + i))),
    );
    expect(first.map((r) => r.status)).toEqual(ids.map(() => 503));
    await h.queue.idle();
    expect(await h.store.listDeliveries({ forge: 'github' })).toEqual([]);
    expect(await h.store.listIntents()).toEqual([]);
    expect(h.github.calls).toEqual([]);
    expect(h.lines.some((l) => l.msg === 'request failed')).toBe(true);

    // The forge delivers again once the database takes writes: nothing of the refused batch was kept.
    other.exec('DROP TRIGGER refuse_sightings');
    const again = await Promise.all(
      ids.map((id, i) => h.post('/api/github/webhooks', signedCommand(id, 8000 + i))),
    );
    expect(again.map((r) => r.status)).toEqual(ids.map(() => 202));
    await h.queue.idle();
    expect((await h.store.listDeliveries({ forge: 'github' })).map((d) => d.outcome)).toEqual(
      ids.map(() => 'accepted'),
    );
    expect(await h.store.listIntents()).toHaveLength(ids.length);
    other.close();
    await h.store.close();
  });

  it('repeats of one delivery id arriving together: one is taken and processed, the others are duplicates', async () => {
    const { h, other } = fileHarness();
    // Three ids, each sent four times at once, interleaved.
    const sends = Array.from({ length: 12 }, (_, i) => `repeat-${i % 3}`);
    const answers = await Promise.all(
      sends.map(async (id) => {
        const res = await h.post('/api/github/webhooks', signedCommand(id, 9000 + Number(id.slice(-1))));
        return { id, status: res.status, outcome: ((await res.json()) as { outcome: string }).outcome };
      }),
    );
    for (const id of ['repeat-0', 'repeat-1', 'repeat-2']) {
      const mine = answers.filter((a) => a.id === id);
      expect(mine.filter((a) => a.status === 202 && a.outcome === 'accepted')).toHaveLength(1);
      expect(mine.filter((a) => a.status === 200 && a.outcome === 'duplicate')).toHaveLength(3);
    }
    await h.queue.idle();
    expect(await h.store.listIntents()).toHaveLength(3);
    expect(h.github.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(3);
    const outcomes = (await h.store.listDeliveries({ forge: 'github' })).map((d) => d.outcome);
    expect(outcomes.filter((o) => o === 'accepted')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(9);
    other.close();
    await h.store.close();
  });
});
