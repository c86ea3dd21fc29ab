// Schema migrations for the SQLite store: numbered `NNN_name.sql` files in ./migrations, applied in
// order, each inside a transaction, and recorded in `schema_migrations`. Adding a table is adding one
// file; nothing else in the code base issues CREATE statements.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { AppError } from '../errors.ts';

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

/** Apply the migrations not yet recorded; returns the versions applied (empty when up to date). */
export const migrate = (db: Database.Database, migrations: Migration[] = readMigrations()): number[] => {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const applied = new Set(
    db
      .prepare('SELECT version FROM schema_migrations')
      .pluck()
      .all()
      .map((v) => Number(v)),
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const done: number[] = [];
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    const apply = db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    });
    try {
      apply();
    } catch (cause) {
      throw new AppError('store_error', `migration ${m.version}_${m.name} failed`, {}, { cause });
    }
    done.push(m.version);
  }
  return done;
};
