// The SQLite store on real database files: its migrations, WAL, DATABASE_URL parsing, and the shared
// store suite (test/support/store-suite.ts) that the Postgres engine runs too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { migrate, readMigrations } from '../../src/store/migrate.ts';
import { openRunnerRegistry, openRunStore, openStore, parseDatabaseUrl } from '../../src/store/open-store.ts';
import { bookkeepingSql, failureSql, openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { NewDelivery } from '../../src/store/types.ts';
import { describeStoreSuite } from '../support/store-suite.ts';
import { attemptsBefore090, expectOlderSuperseded } from '../support/store-suite-ledger.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'blitz-store-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('migrations', () => {
  it('apply once, record each version, and re-running them is a no-op', () => {
    const db = new Database(join(tempDir(), 'm.db'));
    const all = readMigrations();
    expect(migrate(db, all)).toEqual(all.map((m) => m.version));
    expect(migrate(db, all)).toEqual([]);
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    expect(versions).toEqual(all.map((m) => m.version));
    db.close();
  });

  it('a migration another connection applied after this one read the versions is not applied twice', () => {
    const file = join(tempDir(), 'm.db');
    const first = new Database(file);
    const second = new Database(file);
    const plain = [{ version: 1, name: 'first', sql: 'CREATE TABLE t1 (x INTEGER)' }];
    let raced = false;
    // Read by `first` after it listed the applied versions: `second` (another process opening the same
    // file) applies the migration at that moment.
    const racing = [
      {
        version: 1,
        name: 'first',
        get sql() {
          if (!raced) {
            raced = true;
            expect(migrate(second, plain)).toEqual([1]);
          }
          return plain[0]!.sql;
        },
      },
    ];
    expect(migrate(first, racing)).toEqual([]);
    expect(raced).toBe(true);
    expect(first.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual([1]);
    first.close();
    second.close();
  });

  it('a failing migration leaves no half-applied table and is not recorded', () => {
    const db = new Database(':memory:');
    const bad = [
      { version: 1, name: 'broken', sql: 'CREATE TABLE half (x INTEGER); CREATE TABLE nonsense (' },
    ];
    expect(() => migrate(db, bad)).toThrow(/migration 1_broken failed/);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").all();
    expect(tables).toEqual([]);
    expect(db.prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBe(0);
  });

  it('090 closes all but the newest of two open attempts of one issue as superseded, then keeps one open', async () => {
    const file = join(tempDir(), 'old.db');
    const db = new Database(file);
    migrate(
      db,
      readMigrations().filter((m) => m.version < 90),
    );
    const insert = db.prepare(
      'INSERT INTO attempts (id, run_id, issue_repo, issue_number, open, started_at, record) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    for (const row of attemptsBefore090()) insert.run(...row);
    db.close();
    const runs = await openRunStore(`sqlite:${file}`);
    try {
      await expectOlderSuperseded(runs.ledger);
    } finally {
      await runs.close();
    }
  });

  it('adding a migration is one file: a new numbered file in the directory is picked up in order', () => {
    const dir = tempDir();
    writeFileSync(join(dir, '002_second.sql'), 'CREATE TABLE second (x INTEGER);');
    writeFileSync(join(dir, '001_first.sql'), 'CREATE TABLE first (x INTEGER);');
    writeFileSync(join(dir, 'README.md'), 'not a migration');
    expect(readMigrations(dir).map((m) => `${m.version}_${m.name}`)).toEqual(['1_first', '2_second']);
  });

  it('refuses two migrations with the same version', () => {
    const dir = tempDir();
    writeFileSync(join(dir, '001_a.sql'), 'SELECT 1;');
    writeFileSync(join(dir, '001_b.sql'), 'SELECT 1;');
    expect(() => readMigrations(dir)).toThrow(/share version 1/);
  });
});

describe('SQLite store', () => {
  it('runs in WAL mode on a file', async () => {
    const path = join(tempDir(), 'data', 'blitz.db');
    const store = openSqliteStore(path);
    await store.close();
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('finds a delivery by its id through the index for every lease, mark, failure count and hold', () => {
    const db = new Database(':memory:');
    migrate(db, readMigrations());
    const keyed = { ...bookkeepingSql, ...failureSql } as Record<string, string>;
    delete keyed.failed;
    const plans = Object.fromEntries(
      Object.entries(keyed).map(([name, sql]) => [
        name,
        db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...Array.from({ length: sql.split('?').length - 1 }, () => null))
          .map((r) => String((r as { detail: unknown }).detail))
          .join('; '),
      ]),
    );
    for (const plan of Object.values(plans)) expect(plan).toMatch(/^SEARCH deliveries USING INDEX/);
    expect(Object.keys(plans).sort()).toEqual(['attempts', 'count', 'hold', 'lease', 'markProcessed']);
    db.close();
  });

  it("a write SQLite refuses fails alone in its turn's shared commit; the sightings, intent and mark beside it land", async () => {
    const store = openSqliteStore(join(tempDir(), 'blitz.db'));
    const d = (deliveryId: string, event = 'issue_comment'): NewDelivery => ({
      forge: 'github',
      deliveryId,
      event,
      outcome: 'accepted',
      events: [],
    });
    await store.recordDelivery(d('done-before'));
    // One turn: good sightings, one without an event name (NOT NULL refuses it), an intent, a mark.
    const results = await Promise.allSettled([
      store.recordDelivery(d('n-1')),
      store.recordDelivery(d('bad', null as unknown as string)),
      store.addIntent({
        forge: 'github',
        repo: 'o/r',
        issueNumber: 1,
        command: { name: 'blitz', milestone: 'M1', dryRun: false },
        sender: 'alice',
        deliveryId: 'comment:1',
        seq: 0,
      }),
      store.markDeliveryProcessed('github', 'done-before'),
      store.recordDelivery(d('n-2')),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const rows = await store.listDeliveries({ forge: 'github' });
    expect(rows.map((r) => r.deliveryId)).toEqual(['done-before', 'n-1', 'n-2']);
    expect(rows[0]?.processedAt).toBeTypeOf('string');
    expect((await store.listIntents()).map((i) => i.deliveryId)).toEqual(['comment:1']);
    // Nothing of the refused write was kept: its id is still free.
    expect(await store.recordDelivery(d('bad'))).toEqual({ outcome: 'accepted' });
    await store.close();
  });

  it('a sighting the schema refuses fails; it is not taken for a duplicate of itself', async () => {
    const store = openSqliteStore(join(tempDir(), 'blitz.db'));
    // What is tried: an outcome outside the column's CHECK list, as a bug upstream would write it.
    const bogus = {
      forge: 'github',
      deliveryId: 'd-1',
      event: 'issues',
      outcome: 'bogus',
    } as unknown as NewDelivery;
    await expect(store.recordDelivery(bogus)).rejects.toThrow(/CHECK constraint failed/);
    expect(await store.listDeliveries({ forge: 'github' })).toEqual([]);
    // A real second sighting is still a duplicate.
    const ok: NewDelivery = {
      forge: 'github',
      deliveryId: 'd-1',
      event: 'issues',
      outcome: 'accepted',
      events: [],
    };
    expect(await store.recordDelivery(ok)).toEqual({ outcome: 'accepted' });
    expect(await store.recordDelivery(ok)).toEqual({ outcome: 'duplicate' });
    await store.close();
  });
});

// The shared suite: the same cases the Postgres engine runs (store-postgres.test.ts).
describeStoreSuite({
  name: 'sqlite',
  async freshDatabase() {
    const url = `sqlite:${join(tempDir(), 'blitz.db')}`;
    return {
      openStore: () => openStore(url),
      openRunStore: () => openRunStore(url),
      openRunnerRegistry: () => openRunnerRegistry(url),
    };
  },
});

describe('DATABASE_URL', () => {
  it('accepts sqlite:PATH and sqlite::memory:', async () => {
    expect(parseDatabaseUrl('sqlite:./data/blitz.db')).toEqual({ engine: 'sqlite', path: './data/blitz.db' });
    const store = await openStore('sqlite::memory:');
    expect(await store.ping()).toBe(true);
    await store.close();
  });

  it.each([
    ['an empty sqlite path', 'sqlite:', /needs a path/],
    ['an unknown scheme', 'mysql://x', /expected sqlite:PATH .* or postgres:\/\//],
    ['a postgres URL that does not parse', 'postgres://u:secret@host:port/db', /not a valid Postgres URL/],
    ['a postgres URL without a host', 'postgresql:///db', /has no host/],
    ['a schema that is not a plain name', 'postgres://h/db?schema=a;drop', /schema= must be/],
  ])('refuses %s with a clear config error', (_what, url, message) => {
    let caught: unknown;
    try {
      parseDatabaseUrl(url);
    } catch (err) {
      caught = err;
    }
    expect(isAppError(caught, 'config_invalid')).toBe(true);
    expect(String((caught as Error).message)).toMatch(message);
    // The URL may hold a password: the message never repeats it.
    expect(String((caught as Error).message)).not.toContain('secret');
  });

  it('accepts postgres:// and postgresql:// URLs, taking ?schema= out of the connection string', () => {
    expect(parseDatabaseUrl('postgres://bot:pw@db.internal:5432/blitz')).toEqual({
      engine: 'postgres',
      url: 'postgres://bot:pw@db.internal:5432/blitz',
    });
    expect(parseDatabaseUrl('postgresql://db.internal/blitz?schema=blitz&sslmode=require')).toEqual({
      engine: 'postgres',
      url: 'postgresql://db.internal/blitz?sslmode=require',
      schema: 'blitz',
    });
  });
});
