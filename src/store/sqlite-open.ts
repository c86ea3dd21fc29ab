// Opening a SQLite file the way every SQLite part of the store does (intake, runs, runner registry):
// the directory made, WAL, a busy timeout, foreign keys, the migrations applied, and one clear error.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../errors.ts';
import { type Migration, migrate, readMigrations } from './migrate.ts';

/** How long a connection waits for another's write lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Open (creating the directory and file if needed) and migrate one connection. `:memory:` for tests.
 * `what` names the part in the error, e.g. "SQLite store".
 */
export const openSqliteDatabase = (
  path: string,
  what: string,
  opts: { migrations?: Migration[] } = {},
): Database.Database => {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  try {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    // Each part opens its own connection to the file; they wait for one another rather than fail.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // With WAL, NORMAL never corrupts the file; a power cut may lose the last commits, which the
    // forge's redelivery and the reconcile loop heal.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, opts.migrations ?? readMigrations());
    return db;
  } catch (cause) {
    if (cause instanceof AppError) throw cause;
    throw new AppError('store_error', `cannot open the ${what} at ${path}`, {}, { cause });
  }
};

/** A nullable column as an optional field: present only when the row has a value. */
export const opt = <K extends string, V>(key: K, v: V | null): { [P in K]?: V } =>
  (v === null ? {} : { [key]: v }) as { [P in K]?: V };
