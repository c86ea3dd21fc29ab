// PostgreSQL for tests: the server from PG_TEST_URL (default: this machine's, trust auth, database
// `test`), one fresh schema per test database, dropped afterwards. Without a server, Postgres tests
// are skipped with a printed reason locally and fail loudly when CI is set.
import { afterAll, beforeAll } from 'vitest';
import { createPgPool, redactUrl } from '../../src/store/pg-pool.ts';

export const pgTestUrl = (): string => process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** True when the server answers; false (after printing why) when it does not and CI is unset. */
export const postgresAvailable = async (): Promise<boolean> => {
  const pool = createPgPool(pgTestUrl(), { max: 1 });
  try {
    await pool.query('SELECT 1');
    return true;
  } catch (err) {
    const why = `PostgreSQL is not reachable at PG_TEST_URL (${redactUrl(pgTestUrl())}): ${err instanceof Error ? err.message : String(err)}`;
    if (process.env.CI) throw new Error(`${why}. CI needs it: run .ci/run, which starts it.`);
    console.warn(`skipping the PostgreSQL tests: ${why}`);
    return false;
  } finally {
    await pool.end();
  }
};

export interface TestSchemas {
  /** Creates an empty schema `t_<random>` and returns its name. */
  create(): Promise<string>;
  /** `PG_TEST_URL` with `?schema=NAME`, as an operator would write DATABASE_URL. */
  urlFor(schema: string): string;
  /** A pool on the test database (no schema set), for inspecting from outside the store. */
  admin: ReturnType<typeof createPgPool>;
  /** Drops every schema this helper created, and closes the admin pool. */
  dropAll(): Promise<void>;
}

export const testSchemas = (): TestSchemas => {
  const admin = createPgPool(pgTestUrl(), { max: 2 });
  const created: string[] = [];
  return {
    admin,
    async create() {
      const schema = `t_${Math.random().toString(36).slice(2, 12)}`;
      await admin.query(`CREATE SCHEMA ${schema}`);
      created.push(schema);
      return schema;
    },
    urlFor(schema) {
      const url = new URL(pgTestUrl());
      url.searchParams.set('schema', schema);
      return url.toString();
    },
    async dropAll() {
      for (const schema of created.splice(0)) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
};

/**
 * For a test file: whether PostgreSQL answers, and its schemas, made before the file's tests and all
 * dropped after them. `schemas()` only inside a test, and only when `available`.
 */
export const pgForFile = async (): Promise<{ available: boolean; schemas: () => TestSchemas }> => {
  const available = await postgresAvailable();
  let pg: TestSchemas | undefined;
  beforeAll(() => {
    if (available) pg = testSchemas();
  });
  afterAll(async () => {
    await pg?.dropAll();
  });
  return {
    available,
    schemas: () => {
      if (!pg) throw new Error('PostgreSQL schemas asked for outside a test, or without a server');
      return pg;
    },
  };
};
