// The SQLite file is written by more than one connection (the intake's writer thread, the run store
// and its ledger on the event loop). A transaction that reads and then writes takes the write lock at
// its start: begun deferred, a commit by another connection between its read and its write fails it
// at once with SQLITE_BUSY (a stale snapshot cannot be upgraded; busy_timeout does not wait for it).
// Here the other connection writes from inside the transaction (a getter on the value the
// transaction spreads between its read and its write), which is the thread's commit at the worst time.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { attempt, newRun } from '../support/store-suite-fixtures.ts';

const dirs: string[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  for (const d of dirs.splice(0)) removeDir(d);
});

/** A run store on a fresh file, and a second connection to it that writes one row when asked. */
const world = async () => {
  const dir = tempDir('blitz-isolation-');
  dirs.push(dir);
  const file = join(dir, 'blitz.db');
  // The bot's store creates the schema (deliveries included) and runs its writer thread on the file.
  const store = openSqliteStore(file);
  closers.push(() => store.close());
  const runs = openSqliteRunStore(file);
  closers.push(() => runs.close());
  const other = new Database(file);
  other.pragma('busy_timeout = 0');
  closers.push(() => other.close());
  const insert = other.prepare(
    `INSERT INTO deliveries (forge, delivery_id, event, action, outcome, reason, received_at)
     VALUES ('github', ?, 'issues', NULL, 'accepted', NULL, '2026-01-01T00:00:00Z')`,
  );
  let n = 0;
  const outcomes: string[] = [];
  /** The other connection's write: kept, or refused because the transaction holds the write lock. */
  const writeBeside = () => {
    try {
      insert.run(`beside-${++n}`);
      outcomes.push('written');
    } catch (err) {
      outcomes.push((err as { code?: string }).code ?? 'error');
    }
  };
  return { runs, writeBeside, outcomes };
};

describe('SQLite transactions that read, then write, beside another writer', () => {
  it('an attempt update is not failed by a commit between its read and its write', async () => {
    const { runs, writeBeside, outcomes } = await world();
    await runs.ledger.create(attempt('a-1'));
    const patch = {
      get nudges() {
        writeBeside();
        return 1;
      },
    };
    const updated = await runs.ledger.update('a-1', patch as { nudges: number });
    expect(updated.nudges).toBe(1);
    // The other write waited its turn (busy_timeout 0 here: refused, not slipped in between).
    expect(outcomes).toEqual(['SQLITE_BUSY']);
    expect((await runs.ledger.get('a-1'))?.nudges).toBe(1);
  });

  it('a run is created even when another connection commits between the live-run check and the insert', async () => {
    const { runs, writeBeside, outcomes } = await world();
    const run = newRun('run-1');
    const created = await runs.createRun({
      ...run,
      get slug() {
        writeBeside();
        return run.slug;
      },
    });
    expect(created).toMatchObject({ created: true });
    expect(outcomes).toEqual(['SQLITE_BUSY']);
    expect((await runs.getRun('run-1'))?.slug).toBe('m1');
  });
});
