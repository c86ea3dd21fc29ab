// The SQLite store on a real database file: migrations, delivery dedupe, idempotent intents.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { migrate, readMigrations } from '../../src/store/migrate.ts';
import { openStore, parseDatabaseUrl } from '../../src/store/open-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';

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

  it('a delivery id is taken once; later sightings are recorded as duplicates', async () => {
    const store = openSqliteStore(':memory:');
    const d = { forge: 'github', deliveryId: 'abc', event: 'issue_comment', outcome: 'accepted' } as const;
    expect(await store.recordDelivery(d)).toEqual({ outcome: 'accepted' });
    expect(await store.recordDelivery(d)).toEqual({ outcome: 'duplicate' });
    expect(await store.recordDelivery({ ...d, forge: 'gitea' })).toEqual({ outcome: 'accepted' });
    const rows = await store.listDeliveries({ forge: 'github' });
    expect(rows.map((r) => r.outcome)).toEqual(['accepted', 'duplicate']);
  });

  it('a rejected sighting does not take the id, so a later genuine delivery is still accepted', async () => {
    const store = openSqliteStore(':memory:');
    const d = { forge: 'gitea', deliveryId: 'x1', event: 'issues' } as const;
    expect(await store.recordDelivery({ ...d, outcome: 'rejected', reason: 'schema' })).toEqual({
      outcome: 'rejected',
    });
    expect(await store.recordDelivery({ ...d, outcome: 'accepted' })).toEqual({ outcome: 'accepted' });
  });

  it('intents are idempotent on (forge, delivery, seq) and keep the command as data', async () => {
    const store = openSqliteStore(':memory:');
    const intent = {
      forge: 'github',
      repo: 'o/r',
      issueNumber: 3,
      command: { name: 'blitz', milestone: 'M1' },
      sender: 'alice',
      deliveryId: 'd1',
      seq: 0,
    } as const;
    const first = await store.addIntent(intent);
    const again = await store.addIntent(intent);
    expect(first.created).toBe(true);
    expect(again.created).toBe(false);
    expect(again.intent.id).toBe(first.intent.id);
    const list = await store.listIntents({ repo: 'o/r' });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      command: { name: 'blitz', milestone: 'M1' },
      status: 'queued',
      issueNumber: 3,
    });
  });

  it('keeps an accepted delivery’s events until it is processed, then drops them', async () => {
    const store = openSqliteStore(':memory:');
    const events = [{ kind: 'issue-closed', issueNumber: 3 }];
    await store.recordDelivery({
      forge: 'gitea',
      deliveryId: 'e1',
      event: 'issues',
      outcome: 'accepted',
      events,
    });
    await store.recordDelivery({ forge: 'gitea', deliveryId: 'e2', event: 'push', outcome: 'ignored' });
    expect(await store.listUnprocessedDeliveries()).toEqual([{ forge: 'gitea', deliveryId: 'e1', events }]);
    await store.markDeliveryProcessed('gitea', 'e1');
    expect(await store.listUnprocessedDeliveries()).toEqual([]);
  });

  it('marks a delivery processed and answers ping until closed', async () => {
    const store = openSqliteStore(':memory:');
    await store.recordDelivery({ forge: 'github', deliveryId: 'p', event: 'issues', outcome: 'accepted' });
    await store.markDeliveryProcessed('github', 'p');
    const [row] = await store.listDeliveries({ deliveryId: 'p' });
    expect(row?.processedAt).toBeTypeOf('string');
    expect(await store.ping()).toBe(true);
    await store.close();
    expect(await store.ping()).toBe(false);
  });
});

describe('DATABASE_URL', () => {
  it('accepts sqlite:PATH and sqlite::memory:', async () => {
    expect(parseDatabaseUrl('sqlite:./data/blitz.db')).toEqual({ engine: 'sqlite', path: './data/blitz.db' });
    const store = await openStore('sqlite::memory:');
    expect(await store.ping()).toBe(true);
    await store.close();
  });

  it.each([
    ['a postgres URL', 'postgres://u@localhost/db', /not supported yet/],
    ['an empty sqlite path', 'sqlite:', /needs a path/],
    ['an unknown scheme', 'mysql://x', /expected sqlite:PATH/],
  ])('refuses %s with a clear config error', (_what, url, message) => {
    let caught: unknown;
    try {
      parseDatabaseUrl(url);
    } catch (err) {
      caught = err;
    }
    expect(isAppError(caught, 'config_invalid')).toBe(true);
    expect(String((caught as Error).message)).toMatch(message);
  });
});
