// The embedded Store: one SQLite file (WAL, busy_timeout) through better-sqlite3. Synchronous driver
// behind the async port, so a Postgres engine can take its place without changing callers. Reads run
// on the caller's connection; writes on a writer thread with a connection of its own (sqlite-writer.ts).
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import type { ForgeKind } from '../forges/types.ts';
import { createGroupCommit } from './group-commit.ts';
import type { Migration } from './migrate.ts';
import { type IntakeWrite, type IntakeWriteSql, prepareIntakeWrites } from './sqlite-intake-writes.mjs';
import { BUSY_TIMEOUT_MS, openSqliteDatabase, opt } from './sqlite-open.ts';
import { createSqliteWriter, type SqliteWriter } from './sqlite-writer.ts';
import type { Delivery, Intent, NewIntent, Store } from './types.ts';

export const forgeKind = z.enum(['github', 'gitea']);

const deliveryRow = z.object({
  forge: forgeKind,
  delivery_id: z.string(),
  event: z.string(),
  action: z.string().nullable(),
  outcome: z.enum(['accepted', 'ignored', 'duplicate', 'rejected']),
  reason: z.string().nullable(),
  received_at: z.string(),
  processed_at: z.string().nullable(),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  failed_at: z.string().nullable(),
});

export const unprocessedRow = z.object({ forge: forgeKind, delivery_id: z.string(), events: z.string() });

const intentRow = z.object({
  id: z.number(),
  forge: forgeKind,
  repo: z.string(),
  issue_number: z.number().nullable(),
  command: z.string(),
  sender: z.string(),
  delivery_id: z.string(),
  seq: z.number(),
  status: z.string(),
  created_at: z.string(),
});

export const toDelivery = (raw: unknown): Delivery => {
  const r = deliveryRow.parse(raw);
  return {
    forge: r.forge,
    deliveryId: r.delivery_id,
    event: r.event,
    outcome: r.outcome,
    receivedAt: r.received_at,
    ...opt('action', r.action),
    ...opt('reason', r.reason),
    ...opt('processedAt', r.processed_at),
    attempts: r.attempts,
    ...opt('error', r.last_error),
    ...opt('failedAt', r.failed_at),
  };
};

/** The SQL of the unprocessed deliveries to resume, with the placeholder for "now" (`?` or `$1`). */
export const unprocessedSql = (now: string) =>
  `SELECT forge, delivery_id, events FROM deliveries
   WHERE outcome = 'accepted' AND processed_at IS NULL AND events IS NOT NULL AND failed_at IS NULL
   AND (retry_after IS NULL OR retry_after <= ${now}) ORDER BY id`;

/**
 * A delivery picked by its id names the partial unique index's predicate word for word
 * (`outcome IN ('accepted', 'ignored')`): SQLite uses a partial index only then, and without it every
 * lease, failure count and hold scans the whole table, which only grows.
 */
const byId = `forge = ? AND delivery_id = ? AND outcome IN ('accepted', 'ignored')`;

const failureSql = {
  count: `UPDATE deliveries SET attempts = attempts + 1, last_error = ?, lease_holder = NULL, lease_until = NULL
          WHERE ${byId} AND outcome = 'accepted' AND processed_at IS NULL`,
  attempts: `SELECT attempts FROM deliveries WHERE ${byId} AND outcome = 'accepted'`,
  hold: `UPDATE deliveries SET retry_after = ?, failed_at = ?
         WHERE ${byId} AND outcome = 'accepted' AND processed_at IS NULL`,
  failed: `SELECT * FROM deliveries WHERE failed_at IS NOT NULL ORDER BY failed_at DESC, id DESC LIMIT ?`,
};

/** The lease and the "processed" mark on SQLite (`?`: holder, until, forge, id, now, holder). */
export const bookkeepingSql = {
  markProcessed: `UPDATE deliveries SET processed_at = ?, events = NULL WHERE ${byId} AND processed_at IS NULL`,
  lease: `UPDATE deliveries SET lease_holder = ?, lease_until = ?
           WHERE ${byId} AND outcome = 'accepted' AND processed_at IS NULL
           AND (lease_holder IS NULL OR lease_until < ? OR lease_holder = ?)`,
};

/** The same statements with `$n` placeholders, for Postgres. */
export const pgFailureSql = Object.fromEntries(
  Object.entries(failureSql).map(([k, sql]) => {
    let n = 0;
    return [k, sql.replace(/\?/g, () => `$${++n}`)];
  }),
) as typeof failureSql;
export { failureSql };

export const toIntent = (raw: unknown): Intent => {
  const r = intentRow.parse(raw);
  return {
    id: r.id,
    forge: r.forge,
    repo: r.repo,
    command: JSON.parse(r.command),
    sender: r.sender,
    deliveryId: r.delivery_id,
    seq: r.seq,
    status: r.status,
    createdAt: r.created_at,
    ...opt('issueNumber', r.issue_number),
  };
};

/** The intent a new row holds: the values written, its id, and the status a new row starts in. */
export const newIntent = (i: NewIntent, id: number, createdAt: string): Intent => ({
  id,
  forge: i.forge,
  repo: i.repo,
  command: i.command,
  sender: i.sender,
  deliveryId: i.deliveryId,
  seq: i.seq,
  status: 'queued',
  createdAt,
  ...(i.issueNumber !== undefined ? { issueNumber: i.issueNumber } : {}),
});

/** The texts of the intake's writes (sqlite-intake-writes.mjs runs them, on the writer thread). */
export const intakeWriteSql: IntakeWriteSql = {
  // ON CONFLICT, not OR IGNORE: only a delivery id already seen is skipped; a row the schema refuses
  // (NOT NULL, CHECK) fails instead of passing for a duplicate.
  insertFirst: `INSERT INTO deliveries
       (forge, delivery_id, event, action, outcome, reason, received_at, events, lease_holder, lease_until)
     VALUES (@forge, @deliveryId, @event, @action, @outcome, @reason, @at, @events, @holder, @until)
     ON CONFLICT DO NOTHING`,
  insertAny: `INSERT INTO deliveries (forge, delivery_id, event, action, outcome, reason, received_at)
     VALUES (@forge, @deliveryId, @event, @action, @outcome, @reason, @at)`,
  insertIntent: `INSERT INTO intents (forge, repo, issue_number, command, sender, delivery_id, seq, created_at)
     VALUES (@forge, @repo, @issueNumber, @command, @sender, @deliveryId, @seq, @at)
     ON CONFLICT DO NOTHING`,
  selectIntent: 'SELECT * FROM intents WHERE forge = ? AND delivery_id = ? AND seq = ?',
  markProcessed: bookkeepingSql.markProcessed,
  lease: bookkeepingSql.lease,
  countFailure: failureSql.count,
  attempts: failureSql.attempts,
  hold: failureSql.hold,
};

/**
 * The writes on the opening thread, for an in-memory database (no other connection can reach it): the
 * writes of one turn of the event loop (sightings, intents, "processed" marks) share one transaction.
 */
const inlineWriter = (db: Database.Database): SqliteWriter => {
  const writes = prepareIntakeWrites(db, intakeWriteSql);
  const inTurn = createGroupCommit(writes.batch, 'this-turn');
  return {
    write(op, args) {
      const w = { op, args } as IntakeWrite;
      // Leases, failure counts and holds commit alone, at once, as they always did.
      if (op === 'lease' || op === 'failure' || op === 'hold') return Promise.resolve(writes.run(w) as never);
      return inTurn(w) as never;
    },
    async close() {},
  };
};

export interface SqliteStoreOptions {
  migrations?: Migration[];
  /**
   * Where the writes run: on a thread of their own (`thread`, the default for a file) or on the
   * caller's (`inline`, the only choice for `:memory:`).
   */
  writer?: 'thread' | 'inline';
  /** The writer thread's module (default sqlite-writer-worker.mjs; tests give one that fails on purpose). */
  writerScript?: URL;
}

/** Open (creating the directory and file if needed) and migrate a SQLite store. `:memory:` for tests. */
export const openSqliteStore = (path: string, opts: SqliteStoreOptions = {}): Store => {
  const db = openSqliteDatabase(path, 'SQLite store', opts);
  // Writes (sightings, intents, marks, leases, failures) go to the writer thread: its commits and
  // statements run beside the event loop, which keeps this connection for reads.
  const writer =
    path === ':memory:' || opts.writer === 'inline'
      ? inlineWriter(db)
      : createSqliteWriter(path, intakeWriteSql, opts.writerScript ? { script: opts.writerScript } : {});
  const write = writer.write;

  return {
    async recordDelivery(d) {
      return { outcome: await write('record', d) };
    },
    async markDeliveryProcessed(forge: ForgeKind, deliveryId: string) {
      await write('mark', { forge, deliveryId });
    },
    async leaseDelivery(forge, deliveryId, holder, until, now) {
      return write('lease', { forge, deliveryId, holder, until, now });
    },
    async listUnprocessedDeliveries(now) {
      const rows = db.prepare(unprocessedSql('?')).all(now ?? '9999');
      return rows.map((raw) => {
        const r = unprocessedRow.parse(raw);
        return { forge: r.forge, deliveryId: r.delivery_id, events: JSON.parse(r.events) };
      });
    },
    async countDeliveryFailure(forge, deliveryId, error) {
      return write('failure', { forge, deliveryId, error });
    },
    async holdDelivery(forge, deliveryId, hold) {
      const retryAfter = 'retryAfter' in hold ? hold.retryAfter : null;
      const failedAt = 'failedAt' in hold ? hold.failedAt : null;
      await write('hold', { forge, deliveryId, retryAfter, failedAt });
    },
    async listFailedDeliveries(limit = 50) {
      return db.prepare(failureSql.failed).all(limit).map(toDelivery);
    },
    async listDeliveries(filter = {}) {
      return db
        .prepare(
          `SELECT * FROM deliveries WHERE (@forge IS NULL OR forge = @forge)
           AND (@deliveryId IS NULL OR delivery_id = @deliveryId) ORDER BY id`,
        )
        .all({ forge: filter.forge ?? null, deliveryId: filter.deliveryId ?? null })
        .map(toDelivery);
    },
    async addIntent(i: NewIntent) {
      const done = await write('intent', i);
      // A new row is what was just written: no read back. A repeated one is read as it was stored.
      if (done.created) return { created: true, intent: newIntent(i, done.id, done.at) };
      return { created: false, intent: toIntent(done.row) };
    },
    async listIntents(filter = {}) {
      return db
        .prepare(
          `SELECT * FROM intents WHERE (@forge IS NULL OR forge = @forge) AND (@repo IS NULL OR repo = @repo)
           ORDER BY id`,
        )
        .all({ forge: filter.forge ?? null, repo: filter.repo ?? null })
        .map(toIntent);
    },
    async ping() {
      try {
        return db.prepare('SELECT 1').pluck().get() === 1;
      } catch {
        return false;
      }
    },
    async pingWrite() {
      // The smallest real commit: the header's user_version (unused) rewritten with its own value
      // appends a WAL frame, so a full disk or another holder of the write lock refuses it. Without
      // waiting out the busy timeout: the health asks again on its backoff, and /healthz asks too.
      const version = db.pragma('user_version', { simple: true });
      if (typeof version !== 'number')
        throw new AppError('store_error', 'SQLite user_version is not a number');
      db.pragma('busy_timeout = 0');
      try {
        db.pragma(`user_version = ${version}`);
      } finally {
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    },
    async close() {
      try {
        await writer.close();
      } finally {
        if (db.open) db.close();
      }
    },
  };
};
