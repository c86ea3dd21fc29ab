// The Postgres store on the real server (PG_TEST_URL, one fresh schema per test database): the shared
// store suite, the same migrations ending in the same tables and columns as SQLite, migrations run
// once and atomically, run writes sharing a transaction with a pg-boss job, and a database that
// cannot be reached refused in plain words.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { PgBossQueue } from '../../src/queue/pg-boss-queue.ts';
import { migrate, readMigrations } from '../../src/store/migrate.ts';
import { openRunnerRegistry, openRunStore, openStore } from '../../src/store/open-store.ts';
import { writeDeliveryBatch } from '../../src/store/pg-delivery-batch.ts';
import { migratePostgres } from '../../src/store/pg-migrate.ts';
import { createPgPool } from '../../src/store/pg-pool.ts';
import { openPostgresRunStore } from '../../src/store/postgres-run-store.ts';
import type { NewDelivery } from '../../src/store/types.ts';
import { tempDir } from '../support/git.ts';
import { pgTestUrl, postgresAvailable, testSchemas } from '../support/pg.ts';
import { describeStoreSuite } from '../support/store-suite.ts';
import { newRun } from '../support/store-suite-fixtures.ts';
import { attemptsBefore090, expectOlderSuperseded } from '../support/store-suite-ledger.ts';

const available = await postgresAvailable();

describe.skipIf(!available)('Postgres store', () => {
  const schemas = testSchemas();
  afterAll(() => schemas.dropAll());

  describeStoreSuite({
    name: 'postgres',
    async freshDatabase() {
      const url = schemas.urlFor(await schemas.create());
      return {
        openStore: () => openStore(url),
        openRunStore: () => openRunStore(url),
        openRunnerRegistry: () => openRunnerRegistry(url),
      };
    },
  });

  const poolOn = async () => createPgPool(pgTestUrl(), { schema: await schemas.create(), max: 2 });

  describe('migrations on Postgres', () => {
    it('apply once, record each version, and re-running them is a no-op', async () => {
      const pool = await poolOn();
      try {
        const all = readMigrations();
        expect(await migratePostgres(pool, all)).toEqual(all.map((m) => m.version));
        expect(await migratePostgres(pool, all)).toEqual([]);
        const { rows } = await pool.query('SELECT version FROM schema_migrations ORDER BY version');
        expect(rows.map((r) => r.version)).toEqual(all.map((m) => m.version));
      } finally {
        await pool.end();
      }
    });

    it('090 closes all but the newest of two open attempts of one issue as superseded, then keeps one open', async () => {
      const schema = await schemas.create();
      const pool = createPgPool(pgTestUrl(), { schema, max: 1 });
      try {
        await migratePostgres(
          pool,
          readMigrations().filter((m) => m.version < 90),
        );
        for (const row of attemptsBefore090())
          await pool.query(
            'INSERT INTO attempts (id, run_id, issue_repo, issue_number, open, started_at, record) VALUES ($1, $2, $3, $4, $5, $6, $7)',
            row,
          );
      } finally {
        await pool.end();
      }
      const runs = await openPostgresRunStore(pgTestUrl(), { schema });
      try {
        await expectOlderSuperseded(runs.ledger);
      } finally {
        await runs.close();
      }
    });

    it('two replicas migrating one empty schema at once apply each migration once', async () => {
      const pool = await poolOn();
      const other = createPgPool(pgTestUrl(), {
        schema: (await pool.query('SELECT current_schema() AS s')).rows[0].s,
      });
      try {
        const all = readMigrations();
        const [a, b] = await Promise.all([migratePostgres(pool, all), migratePostgres(other, all)]);
        expect([...a, ...b].sort((x, y) => x - y)).toEqual(all.map((m) => m.version));
      } finally {
        await Promise.all([pool.end(), other.end()]);
      }
    });

    it('a failing migration leaves no half-applied table and is not recorded', async () => {
      const pool = await poolOn();
      try {
        const bad = [
          { version: 1, name: 'broken', sql: 'CREATE TABLE half (x INTEGER); CREATE TABLE nonsense (' },
        ];
        await expect(migratePostgres(pool, bad)).rejects.toThrow(/migration 1_broken failed/);
        const { rows } = await pool.query("SELECT to_regclass('half') AS t");
        expect(rows[0].t).toBeNull();
        expect((await pool.query('SELECT count(*) AS n FROM schema_migrations')).rows[0].n).toBe(0);
      } finally {
        await pool.end();
      }
    });

    it('a migration outside the portable subset is refused before anything runs', async () => {
      const pool = await poolOn();
      try {
        const bad = [
          { version: 1, name: 'fine', sql: 'CREATE TABLE fine (x INTEGER);' },
          { version: 2, name: 'sqlite_only', sql: 'INSERT OR IGNORE INTO fine (x) VALUES (1);' },
        ];
        await expect(migratePostgres(pool, bad)).rejects.toThrow(
          /2_sqlite_only is not portable: "INSERT OR IGNORE"/,
        );
        expect((await pool.query("SELECT to_regclass('fine') AS t")).rows[0].t).toBeNull();
      } finally {
        await pool.end();
      }
    });

    it('end with the same tables, columns, nullability and indexes as on SQLite', async () => {
      const sqlite = new Database(join(tempDir(), 'shape.db'));
      migrate(sqlite, readMigrations());
      const pool = await poolOn();
      try {
        await migratePostgres(pool, readMigrations());
        const fromSqlite = sqlite
          .prepare(
            `SELECT m.name AS tbl, p.name AS col, p.type AS type, p."notnull" OR p.pk AS required
             FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
          )
          .all() as { tbl: string; col: string; type: string; required: number }[];
        const { rows: fromPg } = await pool.query<{
          tbl: string;
          col: string;
          type: string;
          required: boolean;
        }>(
          `SELECT table_name AS tbl, column_name AS col, data_type AS type, is_nullable = 'NO' AS required
           FROM information_schema.columns WHERE table_schema = current_schema()`,
        );
        // TEXT is text on both; every SQLite INTEGER is a Postgres bigint (see dialect.ts).
        const family = (t: string) => (/int/i.test(t) ? 'integer' : t.toLowerCase());
        const shape = (rows: { tbl: string; col: string; type: string; required: unknown }[]) =>
          rows.map((r) => `${r.tbl}.${r.col} ${family(r.type)}${r.required ? ' not null' : ''}`).sort();
        expect(shape(fromPg)).toEqual(shape(fromSqlite));
        expect(shape(fromPg)).toContain('deliveries.delivery_id text not null');

        const sqliteIndexes = sqlite
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'",
          )
          .pluck()
          .all();
        const { rows: pgIndexes } = await pool.query<{ name: string }>(
          "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT LIKE '%\\_pkey' AND indexname NOT LIKE '%\\_key'",
        );
        expect(pgIndexes.map((r) => r.name).sort()).toEqual([...sqliteIndexes].sort());
      } finally {
        sqlite.close();
        await pool.end();
      }
    });
  });

  describe('run writes and a pg-boss job in one transaction', () => {
    it('a dispatch and its job commit together, and a failure after the enqueue leaves neither', async () => {
      const runs = await openPostgresRunStore(pgTestUrl(), { schema: await schemas.create() });
      const bossSchema = `${await schemas.create()}_boss`;
      const queue = await PgBossQueue.open({
        connectionString: pgTestUrl(),
        schema: bossSchema,
        logger: silentLogger(),
      });
      try {
        await runs.createRun(newRun('r1'));
        await queue.ensureQueue('dispatch');
        await expect(
          runs.transaction(async (tx) => {
            await tx.upsertRunIssue('r1', 'acme/app', 1, { state: 'dispatched' });
            await queue.enqueueInTransaction(tx, 'dispatch', { issue: 1 });
            throw new Error('crashed before commit');
          }),
        ).rejects.toThrow('crashed before commit');
        expect(await runs.listRunIssues('r1')).toEqual([]);
        expect(await queue.claim(['dispatch'], 'runner-a')).toBeNull();

        const jobId = await runs.transaction(async (tx) => {
          await tx.upsertRunIssue('r1', 'acme/app', 2, { state: 'dispatched' });
          return queue.enqueueInTransaction(tx, 'dispatch', { issue: 2 });
        });
        expect((await runs.listRunIssues('r1')).map((i) => [i.number, i.state])).toEqual([[2, 'dispatched']]);
        expect(await queue.claim(['dispatch'], 'runner-a')).toMatchObject({
          id: jobId,
          payload: { issue: 2 },
        });
      } finally {
        await queue.dropSchema(bossSchema);
        await queue.close();
        await runs.close();
      }
    });

    it("a guarded issue write in a shared transaction takes the row's stored state into account", async () => {
      const runs = await openPostgresRunStore(pgTestUrl(), { schema: await schemas.create() });
      try {
        await runs.createRun(newRun('r1'));
        await runs.upsertRunIssue('r1', 'acme/app', 1, { state: 'reviewed' });
        const moved = runs.transaction((tx) =>
          tx.upsertRunIssue('r1', 'acme/app', 1, { state: 'merged', mergedSha: 'abc' }, { state: 'pr_open' }),
        );
        await expect(moved).rejects.toMatchObject({
          code: 'conflict',
          expected: 'pr_open',
          found: 'reviewed',
        });
        expect((await runs.listRunIssues('r1')).map((i) => [i.state, i.mergedSha])).toEqual([
          ['reviewed', undefined],
        ]);
        const [a, b] = await runs.transaction((tx) =>
          Promise.all([
            tx.upsertRunIssue(
              'r1',
              'acme/app',
              1,
              { state: 'merged', mergedSha: 'abc' },
              { state: 'reviewed' },
            ),
            tx.upsertRunIssue('r1', 'acme/app', 2, { state: 'dispatched' }, { state: 'ready' }),
          ]),
        );
        expect([a.state, b.state]).toEqual(['merged', 'dispatched']);
      } finally {
        await runs.close();
      }
    });

    it('transactions opened at once share a commit; one that throws fails alone and the others commit', async () => {
      const runs = await openPostgresRunStore(pgTestUrl(), { schema: await schemas.create() });
      const bossSchema = `${await schemas.create()}_boss`;
      const queue = await PgBossQueue.open({
        connectionString: pgTestUrl(),
        schema: bossSchema,
        logger: silentLogger(),
      });
      const dispatch = (n: number, fail = false) =>
        runs.transaction(async (tx) => {
          await tx.upsertRunIssue('r1', 'acme/app', n, { state: 'dispatched' });
          const id = await queue.enqueueInTransaction(
            tx,
            'dispatch',
            { issue: n },
            { singletonKey: `i${n}` },
          );
          if (fail) throw new Error(`issue ${n} refused`);
          const { rows } = await tx.executeSql('SELECT txid_current()::text AS tx');
          return { id, tx: (rows[0] as { tx: string }).tx };
        });
      try {
        await runs.createRun(newRun('r1'));
        await queue.ensureQueue('dispatch');
        const shared = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => dispatch(n)));
        // Opened in one tick: fewer transactions than dispatches, every job sent.
        expect(new Set(shared.map((r) => r.tx)).size).toBeLessThan(6);
        expect(shared.every((r) => r.id !== null)).toBe(true);

        const mixed = await Promise.allSettled([7, 8, 9, 10, 11, 12].map((n) => dispatch(n, n === 10)));
        expect(mixed.map((r) => r.status)).toEqual([
          'fulfilled',
          'fulfilled',
          'fulfilled',
          'rejected',
          'fulfilled',
          'fulfilled',
        ]);
        const issues = (await runs.listRunIssues('r1')).map((i) => i.number);
        expect(issues).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12]);
        // The refused dispatch left no job; a twin of a committed one is still refused by its key.
        const twin = await runs.transaction((tx) =>
          queue.enqueueInTransaction(tx, 'dispatch', { issue: 7 }, { singletonKey: 'i7' }),
        );
        expect(twin).toBeNull();
        const jobs = [];
        for (let job = await queue.claim(['dispatch'], 'r'); job; job = await queue.claim(['dispatch'], 'r'))
          jobs.push((job.payload as { issue: number }).issue);
        expect(jobs.sort((a, b) => a - b)).toEqual(issues);
      } finally {
        await queue.dropSchema(bossSchema);
        await queue.close();
        await runs.close();
      }
    });
  });

  describe('delivery sightings written in batches', () => {
    it('a sighting PostgreSQL cannot store (a NUL in its action) fails alone; the others of its batch are recorded', async () => {
      const url = schemas.urlFor(await schemas.create());
      const store = await openStore(url);
      const d = (deliveryId: string, action?: string): NewDelivery => ({
        forge: 'github',
        deliveryId,
        event: 'issues',
        outcome: 'accepted',
        events: [],
        ...(action ? { action } : {}),
      });
      // Tried: an action text with a NUL byte, which PostgreSQL text refuses, among good sightings.
      const results = await Promise.allSettled([
        store.recordDelivery(d('first')),
        store.recordDelivery(d('n-1')),
        store.recordDelivery(d('bad', 'opened\u0000')),
        store.recordDelivery(d('n-2')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      const rows = await store.listDeliveries({ forge: 'github' });
      expect(rows.map((r) => r.deliveryId).sort()).toEqual(['first', 'n-1', 'n-2']);
      // The id was not taken: the genuine delivery is still accepted.
      expect(await store.recordDelivery(d('bad', 'opened'))).toEqual({ outcome: 'accepted' });
      await store.close();
    });

    it('marks riding in a sighting batch: processed with its commit, a repeat or an unknown id changes nothing', async () => {
      const pool = await poolOn();
      try {
        await migratePostgres(pool, readMigrations());
        const d = (deliveryId: string, outcome: NewDelivery['outcome'] = 'accepted'): NewDelivery => ({
          forge: 'github',
          deliveryId,
          event: 'issues',
          outcome,
          events: [{ kind: 'x' }] as never,
          ...(outcome === 'ignored' ? { reason: 'not ours' } : {}),
        });
        expect(await writeDeliveryBatch(pool, [d('a'), d('b'), d('i', 'ignored')])).toEqual([
          'accepted',
          'accepted',
          'ignored',
        ]);
        // b's mark rides beside a doubled sighting of b, which stays a duplicate.
        expect(await writeDeliveryBatch(pool, [d('b')], [{ forge: 'github', deliveryId: 'b' }])).toEqual([
          'duplicate',
        ]);
        const processedAt = async () =>
          Object.fromEntries(
            (
              await pool.query<{ delivery_id: string; processed_at: string | null; events: string | null }>(
                `SELECT delivery_id, processed_at, events FROM deliveries WHERE outcome <> 'duplicate'`,
              )
            ).rows.map((r) => [
              r.delivery_id,
              { processed: r.processed_at !== null, events: r.events !== null },
            ]),
          );
        expect(await processedAt()).toEqual({
          a: { processed: false, events: true },
          b: { processed: true, events: false },
          i: { processed: false, events: false },
        });
        const bAt = (
          await pool.query(
            `SELECT processed_at FROM deliveries WHERE delivery_id = 'b' AND outcome = 'accepted'`,
          )
        ).rows[0].processed_at;
        // The doubled delivery (a balancer sending `a` again) is a duplicate; its mark, b's repeated one
        // and one for an id never seen ride along; a new sighting is taken beside them.
        expect(
          await writeDeliveryBatch(
            pool,
            [d('a'), d('c')],
            [
              { forge: 'github', deliveryId: 'a' },
              { forge: 'github', deliveryId: 'b' },
              { forge: 'github', deliveryId: 'gone' },
              { forge: 'gitea', deliveryId: 'c' },
            ],
          ),
        ).toEqual(['duplicate', 'accepted']);
        expect(await processedAt()).toEqual({
          a: { processed: true, events: false },
          b: { processed: true, events: false },
          c: { processed: false, events: true },
          i: { processed: false, events: false },
        });
        const bAgain = (
          await pool.query(
            `SELECT processed_at FROM deliveries WHERE delivery_id = 'b' AND outcome = 'accepted'`,
          )
        ).rows[0].processed_at;
        expect(bAgain).toEqual(bAt);
      } finally {
        await pool.end();
      }
    });

    it('leases asked at once, two for one delivery among them, grant that delivery to the first asker only', async () => {
      const url = schemas.urlFor(await schemas.create());
      const store = await openStore(url);
      for (const id of ['a', 'b', 'c'])
        await store.recordDelivery({
          forge: 'gitea',
          deliveryId: id,
          event: 'issues',
          outcome: 'accepted',
          events: [],
        });
      const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
      // Asked in one tick: they go out in one or two batches, the repeat of `b` after its first ask.
      const granted = await Promise.all([
        store.leaseDelivery('gitea', 'a', 'A', t(30), t(0)),
        store.leaseDelivery('gitea', 'b', 'A', t(30), t(0)),
        store.leaseDelivery('gitea', 'b', 'B', t(30), t(0)),
        store.leaseDelivery('gitea', 'c', 'B', t(30), t(0)),
        store.leaseDelivery('gitea', 'gone', 'B', t(30), t(0)),
      ]);
      expect(granted).toEqual([true, true, false, true, false]);
      await Promise.all([
        store.markDeliveryProcessed('gitea', 'a'),
        store.markDeliveryProcessed('gitea', 'c'),
      ]);
      expect((await store.listUnprocessedDeliveries()).map((u) => u.deliveryId)).toEqual(['b']);
      await store.close();
    });
  });

  describe('bookkeeping commits', () => {
    it('a relaxed pool commits without waiting for the WAL flush; the default pool waits', async () => {
      const schema = await schemas.create();
      const relaxed = createPgPool(pgTestUrl(), { schema, max: 1, commit: 'relaxed' });
      const durable = createPgPool(pgTestUrl(), { schema, max: 1 });
      try {
        const setting = async (pool: typeof relaxed) =>
          (await pool.query<{ v: string }>("SELECT current_setting('synchronous_commit') AS v")).rows[0]?.v;
        expect(await setting(relaxed)).toBe('off');
        expect(await setting(durable)).toBe('on');
        // The schema setting still holds beside it.
        expect((await relaxed.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s).toBe(schema);
      } finally {
        await Promise.all([relaxed.end(), durable.end()]);
      }
    });
  });

  describe('run lock on Postgres', () => {
    it('more runs locked at once than connections: every holder still gets to query, none fails', async () => {
      const runs = await openPostgresRunStore(pgTestUrl(), { schema: await schemas.create(), max: 2 });
      try {
        await runs.createRun(newRun('r0'));
        const ids = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];
        const seen = await Promise.all(
          ids.map((id) => runs.withRunLock(id, async () => (await runs.getRun('r0'))?.id)),
        );
        expect(seen).toEqual(ids.map(() => 'r0'));
      } finally {
        await runs.close();
      }
    });
  });

  describe('DATABASE_URL on Postgres', () => {
    it('opens the Store and the RunStore on one schema, where each sees the other’s rows', async () => {
      const url = schemas.urlFor(await schemas.create());
      const store = await openStore(url);
      const runs = await openRunStore(url);
      try {
        const { intent } = await store.addIntent({
          forge: 'gitea',
          repo: 'o/r',
          command: { name: 'blitz' },
          sender: 'bob',
          deliveryId: 'd',
          seq: 0,
        });
        expect((await runs.listQueuedIntents()).map((i) => i.id)).toEqual([intent.id]);
      } finally {
        await Promise.all([store.close(), runs.close()]);
      }
    });

    it('a server that does not answer is a store_error naming the host, never the password', async () => {
      let caught: unknown;
      try {
        await openStore('postgres://bot:hunter2@127.0.0.1:1/blitz');
      } catch (err) {
        caught = err;
      }
      expect(isAppError(caught, 'store_error')).toBe(true);
      expect(String((caught as Error).message)).toMatch(
        /cannot reach Postgres at postgres:\/\/bot:\*\*\*@127\.0\.0\.1:1\/blitz/,
      );
      expect(String((caught as Error).message)).not.toContain('hunter2');
    });

    it('a database that does not exist is a store_error and creates nothing', async () => {
      const url = new URL(pgTestUrl());
      url.pathname = '/blitz_no_such_database';
      await expect(openRunStore(url.toString())).rejects.toMatchObject({
        code: 'store_error',
        message: expect.stringMatching(/does not exist/),
      });
      const { rows } = await schemas.admin.query(
        "SELECT 1 FROM pg_database WHERE datname = 'blitz_no_such_database'",
      );
      expect(rows).toEqual([]);
    });
  });
});
