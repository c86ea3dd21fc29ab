// Schema migrations for both store engines: numbered `NNN_name.sql` files in ./migrations, applied in
// order, each inside a transaction, and recorded in `schema_migrations`. Adding a table is adding one
// file; nothing else in the code base issues CREATE statements. SQLite applies them here (`migrate`);
// Postgres in pg-migrate.ts, through the same reading, ordering and translation.
//
// THE RULE FOR A NEW MIGRATION (it must run unchanged on SQLite and on Postgres):
// - Types: INTEGER (64-bit on both: Postgres gets BIGINT), BIGINT, TEXT. JSON is TEXT; timestamps are
//   ISO-8601 TEXT written by the code; flags are INTEGER 0/1. No BOOLEAN, TIMESTAMP, JSON, SERIAL,
//   VARCHAR, REAL or BLOB.
// - An auto-numbered key is `id INTEGER PRIMARY KEY AUTOINCREMENT` (Postgres: an identity column).
// - Plain DDL both share: CREATE TABLE / CREATE [UNIQUE] INDEX (partial indexes with WHERE are fine),
//   ALTER TABLE … ADD COLUMN, REFERENCES … ON DELETE CASCADE, CHECK, DEFAULT constants.
// - Data changes: INSERT … ON CONFLICT DO NOTHING, never INSERT OR IGNORE; no PRAGMA, no datetime().
// - Never edit a migration that has shipped: add the next number.
// dialect.ts refuses the known non-portable spellings, and the store test suite runs every migration on
// both engines and compares the resulting tables and columns.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { AppError } from '../errors.ts';
import { type Dialect, translateMigration } from './dialect.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const defaultMigrationsDir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

const fileName = /^(\d+)_([a-z0-9_-]+)\.sql$/;

/** Read the migrations of a directory, sorted by version; two files with one version is an error. */
export const readMigrations = (dir: string = defaultMigrationsDir): Migration[] => {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir)) {
    const m = fileName.exec(file);
    if (!m) continue;
    migrations.push({ version: Number(m[1]), name: m[2]!, sql: readFileSync(join(dir, file), 'utf8') });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new AppError('store_error', `two migrations share version ${migrations[i]!.version}`);
    }
  }
  return migrations;
};

/** Written the same on both engines (not translated: the version is a plain key, not an identity). */
export const schemaMigrationsDdl =
  'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)';

/** The migrations still to apply, in order, each with the SQL its engine runs. */
export const pendingMigrations = (
  applied: Iterable<number>,
  migrations: Migration[],
  dialect: Dialect,
): (Migration & { run: string })[] => {
  const done = new Set(applied);
  return migrations
    .filter((m) => !done.has(m.version))
    .map((m) => ({ ...m, run: translateMigration(`${m.version}_${m.name}`, m.sql, dialect) }));
};

export const migrationFailed = (m: Migration, cause: unknown): AppError =>
  cause instanceof AppError
    ? cause
    : new AppError('store_error', `migration ${m.version}_${m.name} failed`, {}, { cause });

/** Apply the migrations not yet recorded; returns the versions applied (empty when up to date). */
export const migrate = (db: Database.Database, migrations: Migration[] = readMigrations()): number[] => {
  db.exec(schemaMigrationsDdl);
  const applied = db
    .prepare('SELECT version FROM schema_migrations')
    .pluck()
    .all()
    .map((v) => Number(v));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const recorded = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').pluck();
  const done: number[] = [];
  for (const m of pendingMigrations(applied, migrations, 'sqlite')) {
    // IMMEDIATE, and the version looked up again inside: another process opening the same file may
    // have applied it since the list above was read (it would fail here with "already exists").
    const apply = db.transaction((): boolean => {
      if (recorded.get(m.version) !== undefined) return false;
      db.exec(m.run);
      record.run(m.version, m.name, new Date().toISOString());
      return true;
    });
    let ran: boolean;
    try {
      ran = apply.immediate();
    } catch (cause) {
      throw migrationFailed(m, cause);
    }
    if (ran) done.push(m.version);
  }
  return done;
};
