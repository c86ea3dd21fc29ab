// A PostgreSQL connection lost while a client is checked out fails that operation, never the process:
// real PostgreSQL behind the loopback proxy (test/support/tcp-proxy.ts), which the test cuts while a
// transaction is open, while the run lock is held and while a migration runs. Without the error
// listener on a checked-out client (pg-pool.ts checkout) pg emits an unhandled 'error' and vitest
// fails the file with it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.ts';
import { openRunStore, openStore } from '../../src/store/open-store.ts';
import { migratePostgres } from '../../src/store/pg-migrate.ts';
import { createPgPool, inTransaction } from '../../src/store/pg-pool.ts';
import type { PostgresRunStore } from '../../src/store/postgres-run-store.ts';
import { createStoreHealth } from '../../src/store/store-health.ts';
import { pgTestUrl, postgresAvailable, type TestSchemas, testSchemas } from '../support/pg.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { until } from '../support/until.ts';

const hasPg = await postgresAvailable();
let pg: TestSchemas;
let proxy: TcpProxy;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (!hasPg) return;
  pg = testSchemas();
  const target = new URL(pgTestUrl());
  proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) });
});
afterEach(async () => {
  proxy?.restore();
  for (const c of closers.splice(0).reverse()) await c().catch(() => {});
});
afterAll(async () => {
  if (!hasPg) return;
  await proxy.close();
  await pg.dropAll();
});

/** A schema reached through the proxy. */
const throughProxy = async () => proxy.urlThrough(pg.urlFor(await pg.create()));

/**
 * Advisory locks the server holds now on run `runId` of `schema` (pg-run-lock.ts's key; a bigint key is
 * classid:objid in pg_locks). Only that key: other test files running meanwhile hold locks of their own.
 */
const runLocksHeld = async (schema: string, runId: string): Promise<number> =>
  Number(
    (
      await pg.admin.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_locks
          WHERE locktype = 'advisory'
            AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('blitz:run:' || $1 || ':' || $2, 0)`,
        [schema, runId],
      )
    ).rows[0]?.n ?? 0,
  );

describe.runIf(hasPg)('a lost PostgreSQL connection fails the operation, not the process', () => {
  it('inTransaction: the connection dropped mid-transaction fails it; the pool works once back', async () => {
    const pool = createPgPool(await throughProxy(), { max: 2, connectionTimeoutMs: 2_000 });
    closers.push(() => pool.end());
    const pid = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(pid.rows[0]?.pid).toBeGreaterThan(0);
    const failed = inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      proxy.cut();
      // No query in flight while the server goes: pg reports it as an 'error' event on the client.
      await until('the server to drop the backend', async () => {
        const r = await pg.admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0]?.pid]);
        return r.rowCount === 0;
      });
      await client.query('SELECT 1');
    });
    await expect(failed).rejects.toThrow();
    proxy.restore();
    // The broken client was destroyed, not handed out again.
    await expect(inTransaction(pool, async (c) => (await c.query('SELECT 7 AS n')).rows[0]?.n)).resolves.toBe(
      7,
    );
  });

  it('the run lock: lost mid-pass fails the pass with store_error, and the server released the lock', async () => {
    const schema = await pg.create();
    const runs = await openRunStore(proxy.urlThrough(pg.urlFor(schema)));
    closers.push(() => runs.close());
    const advisoryLocksHeld = () => runLocksHeld(schema, 'run-1');
    const pass = runs.withRunLock('run-1', async () => {
      expect(await advisoryLocksHeld()).toBe(1);
      proxy.cut();
      // The pass does forge work meanwhile (no store query in flight); the lock's connection dies.
      await until('the server to release the run lock', async () => (await advisoryLocksHeld()) === 0);
      return 'done';
    });
    await expect(pass).rejects.toMatchObject({ code: 'store_error', message: /run lock of run-1 was lost/ });
    proxy.restore();
    // The next pass takes the lock again at once (the dead connection was not returned to the pool).
    await expect(runs.withRunLock('run-1', async () => advisoryLocksHeld())).resolves.toBe(1);
  });

  it('a shared transaction (a dispatch) whose connection drops fails, and nothing of it is written', async () => {
    const url = await throughProxy();
    const runs = (await openRunStore(url)) as PostgresRunStore;
    closers.push(() => runs.close());
    const write = runs.transaction(async (tx) => {
      await tx.executeSql('SELECT 1', []);
      proxy.cut();
      return tx.executeSql('SELECT 2', []);
    });
    await expect(write).rejects.toThrow();
    proxy.restore();
    await expect(
      runs.transaction(async (tx) => (await tx.executeSql('SELECT 3 AS n', [])).rows),
    ).resolves.toEqual([{ n: 3 }]);
  });

  it('a migration whose connection drops fails the start with a clear error, and is applied on the next', async () => {
    const url = await throughProxy();
    const pool = createPgPool(url.replace(/\?.*$/, ''), {
      schema: new URL(url).searchParams.get('schema') ?? undefined,
      max: 1,
      connectionTimeoutMs: 2_000,
    });
    closers.push(() => pool.end());
    const migrating = migratePostgres(pool, [{ version: 1, name: 'slow', sql: 'SELECT pg_sleep(30)' }]);
    await until('the migration to run on the server', async () => {
      const r = await pg.admin.query(
        "SELECT 1 FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%'",
      );
      return (r.rowCount ?? 0) > 0;
    });
    proxy.cut();
    await expect(migrating).rejects.toThrow(/migration 1/i);
    // The server learns of the drop only when it next writes to the socket (after the sleep): its
    // keepalive would end that backend; here the test does, as a second replica would wait for it.
    await pg.admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%'",
    );
    proxy.restore();
    await expect(migratePostgres(pool, [{ version: 1, name: 'quick', sql: 'SELECT 1' }])).resolves.toEqual([
      1,
    ]);
  });

  it('store health: an outage is seen, named on /healthz terms, backs off on its clock, and ends once back', async () => {
    const store = await openStore(await throughProxy());
    closers.push(() => store.close());
    let now = new Date('2026-12-06T22:00:00Z');
    const told: string[] = [];
    const health = createStoreHealth({
      engine: 'PostgreSQL',
      probe: () => store.ping(),
      logger: silentLogger(),
      clock: { now: () => now },
      backoff: { baseMs: 1_000, maxMs: 8_000 },
      notifyAfterMs: 30_000,
      onLongOutage: async (o) => void told.push(`down ${o.seconds}`),
      onRecovered: async (o) => void told.push(`back ${o.seconds}`),
    });
    await health.check();
    expect(health.status()).toEqual({ ok: true });
    proxy.cut();
    await health.check();
    expect(health.status()).toMatchObject({
      ok: false,
      reason: /^store: PostgreSQL unreachable/,
      downSeconds: 0,
    });
    expect(health.mayTry()).toBe(false);
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      waits.push(health.retryInMs());
      now = new Date(now.getTime() + health.retryInMs());
      await health.check();
    }
    // Bounded exponential: 1, 2, 4, 8, 8 seconds.
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 8_000]);
    expect(told).toEqual([]);
    now = new Date(now.getTime() + 8_000);
    await health.check();
    expect(told).toEqual(['down 31']);
    proxy.restore();
    now = new Date(now.getTime() + health.retryInMs());
    await health.check();
    expect(health.status()).toEqual({ ok: true });
    await until('the end told', async () => told.length === 2);
    expect(told).toEqual(['down 31', 'back 39']);
    expect(health.lastOutage()?.since.toISOString()).toBe('2026-12-06T22:00:00.000Z');
  });
});
