// PostgreSQL that answers but refuses writes is an outage only a write ends: real PostgreSQL, a store
// in its own schema, and a trigger the test puts on the probe's table that refuses every write the way
// the server does when its disk is full (SQLSTATE 53100, "No space left on device") or when it was made
// read-only (25006). `SELECT 1` still answers meanwhile, so before the write probe the health saw the
// store back at the next probe while every write kept failing; now it stays down, named, until a write
// commits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createStoreHealth, writeProbeOf } from '../../src/store/store-health.ts';
import { postgresAvailable, type TestSchemas, testSchemas } from '../support/pg.ts';

const hasPg = await postgresAvailable();
let pg: TestSchemas;
beforeAll(() => {
  if (hasPg) pg = testSchemas();
});
afterAll(async () => {
  if (hasPg) await pg.dropAll();
});

/** Makes every write to the probe's row fail in `schema` with SQLSTATE `code` and `message`. */
const refuseWrites = async (schema: string, code: string, message: string): Promise<void> => {
  await pg.admin.query(
    `CREATE FUNCTION ${schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION '${message}' USING ERRCODE = '${code}'; END $$`,
  );
  await pg.admin.query(
    `CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON ${schema}.store_probe
       FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`,
  );
};
const allowWrites = async (schema: string): Promise<void> => {
  await pg.admin.query(`DROP TRIGGER refuse ON ${schema}.store_probe`);
  await pg.admin.query(`DROP FUNCTION ${schema}.refuse()`);
};

describe.runIf(hasPg)('PostgreSQL refusing writes', () => {
  it.each([
    ['disk full', '53100', 'could not extend file "base/16384/2619": No space left on device'],
    ['read-only', '25006', 'cannot execute INSERT in a read-only transaction'],
  ])(
    '%s: SELECT 1 answers, the write probe does not, and the outage ends only when a write commits',
    async (_what, code, message) => {
      const schema = await pg.create();
      const store = await openStore(pg.urlFor(schema));
      try {
        let now = new Date('2026-12-07T10:00:00Z');
        const health = createStoreHealth({
          engine: 'PostgreSQL',
          probe: () => store.ping(),
          writeProbe: writeProbeOf(store),
          logger: silentLogger(),
          clock: { now: () => now },
          backoff: { baseMs: 1_000, maxMs: 1_000 },
        });
        await expect(writeProbeOf(store)()).resolves.toBeUndefined();
        const { rows } = await pg.admin.query<{ n: number | string }>(
          `SELECT count(*) AS n FROM ${schema}.store_probe`,
        );
        expect(Number(rows[0]?.n)).toBe(1);

        await refuseWrites(schema, code, message);
        // What a reconcile pass's write meets: the server's own error, which the health names `refused`.
        const err = await writeProbeOf(store)().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code, message });
        expect(health.failed(err)).toBe(true);
        expect(health.status()).toMatchObject({
          ok: false,
          fault: 'refused',
          reason: expect.stringContaining(message),
        });
        expect(await store.ping()).toBe(true);

        // Probes past the backoff: the read answers but the write probe decides, so the outage stays.
        for (let i = 0; i < 3; i++) {
          now = new Date(now.getTime() + 1_000);
          await health.check();
          expect(health.status()).toMatchObject({ ok: false, fault: 'refused' });
        }

        await allowWrites(schema);
        now = new Date(now.getTime() + 1_000);
        await health.check();
        expect(health.status()).toEqual({ ok: true });
        expect(health.lastOutage()).toEqual({
          since: new Date('2026-12-07T10:00:00Z'),
          until: new Date('2026-12-07T10:00:04Z'),
        });
      } finally {
        await store.close();
      }
    },
  );
});
