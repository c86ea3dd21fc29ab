// The loopback proxy the store-outage tests cut and restore: real PostgreSQL behind it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgPool } from '../../src/store/pg-pool.ts';
import { pgTestUrl, postgresAvailable } from '../support/pg.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const hasPg = await postgresAvailable();

describe.skipIf(!hasPg)('tcp proxy in front of PostgreSQL', () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    const target = new URL(pgTestUrl());
    proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) });
  });
  afterAll(() => proxy.close());

  it('passes queries, drops open connections and refuses new ones when cut, and passes again restored', async () => {
    const pool = createPgPool(proxy.urlThrough(pgTestUrl()), { max: 1, connectionTimeoutMs: 2_000 });
    try {
      expect((await pool.query<{ n: number }>('SELECT 1 AS n')).rows[0]?.n).toBe(1);
      expect(proxy.stats.open).toBe(1);
      proxy.cut();
      expect(proxy.stats.open).toBe(0);
      await expect(pool.query('SELECT 1')).rejects.toThrow();
      await expect(pool.query('SELECT 1')).rejects.toThrow();
      expect(proxy.stats.refused).toBeGreaterThan(0);
      proxy.restore();
      expect((await pool.query<{ n: number }>('SELECT 2 AS n')).rows[0]?.n).toBe(2);
    } finally {
      await pool.end();
    }
  });
});
