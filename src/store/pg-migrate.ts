// Applies the store's migrations to Postgres: the same files, order and bookkeeping as SQLite
// (migrate.ts), translated by dialect.ts. Replicas starting together take turns on an advisory lock
// keyed by the schema, so each migration runs once.
import type pg from 'pg';
import {
  type Migration,
  migrationFailed,
  pendingMigrations,
  readMigrations,
  schemaMigrationsDdl,
} from './migrate.ts';
import { checkout } from './pg-pool.ts';

/** Apply the migrations not yet recorded; returns the versions applied (empty when up to date). */
export const migratePostgres = async (
  pool: pg.Pool,
  migrations: Migration[] = readMigrations(),
): Promise<number[]> => {
  const held = await checkout(pool);
  const { client } = held;
  let broken: Error | undefined;
  try {
    await client.query(
      "SELECT pg_advisory_lock(hashtextextended('blitz:migrate:' || coalesce(current_schema(), ''), 0))",
    );
    try {
      await client.query(schemaMigrationsDdl);
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const done: number[] = [];
      for (const m of pendingMigrations(
        rows.map((r) => r.version),
        migrations,
        'postgres',
      )) {
        try {
          await client.query('BEGIN');
          await client.query(m.run);
          await client.query(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
            [m.version, m.name, new Date().toISOString()],
          );
          await client.query('COMMIT');
        } catch (cause) {
          await client.query('ROLLBACK').catch(() => {});
          throw migrationFailed(m, cause);
        }
        done.push(m.version);
      }
      return done;
    } finally {
      await client
        .query(
          "SELECT pg_advisory_unlock(hashtextextended('blitz:migrate:' || coalesce(current_schema(), ''), 0))",
        )
        .catch((err: Error) => {
          broken = err;
        });
    }
  } finally {
    // A connection that could not unlock is dropped, which releases the lock with it.
    held.release(broken);
  }
};
