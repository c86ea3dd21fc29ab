// The Store on PostgreSQL, for several bot replicas on one database. Same port, migrations and row
// mapping as SQLite (sqlite-store.ts); a delivery id is taken once by the unique index, whichever
// replica records it first, and the others get `duplicate`. Concurrent sightings are written in one
// statement per batch (pg-delivery-batch.ts), with the "processed" marks made meanwhile; leases, and
// marks when no sighting is written, in batches on a small pool whose commits do not wait for the WAL
// flush (pg-delivery-bookkeeping.ts).
import { AppError } from '../errors.ts';
import { createGroupCommit } from './group-commit.ts';
import { type Migration, readMigrations } from './migrate.ts';
import { writeDeliveryBatch } from './pg-delivery-batch.ts';
import { type LeaseRequest, writeLeaseBatch, writeMarkBatch } from './pg-delivery-bookkeeping.ts';
import { createDeliveryWrites } from './pg-delivery-writes.ts';
import { migratePostgres } from './pg-migrate.ts';
import { checkConnection, closeOnce, createPgPool, type PgOptions } from './pg-pool.ts';
import { pgFailureSql, toDelivery, toIntent, unprocessedRow, unprocessedSql } from './sqlite-store.ts';
import type { Store } from './types.ts';

/** Sighting batches written at once (each on its own pooled connection, each its own commit). */
const SIGHTING_BATCHES_IN_FLIGHT = 2;
/**
 * Sightings waiting before the second batch goes out beside the first (group-commit.ts `spareAt`):
 * two writers always busy cost a statement and a durable commit per round trip each, so a replica
 * given half the load (two behind a balancer) wrote twice the batches per sighting.
 */
const SIGHTINGS_FOR_A_SECOND_BATCH = 32;

/** An intent stored once per (forge, delivery, position): the new row (created) or the one already there. */
const addIntentSql = `
WITH added AS (
  INSERT INTO intents (forge, repo, issue_number, command, sender, delivery_id, seq, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING
  RETURNING *
)
SELECT true AS created, * FROM added
UNION ALL
SELECT false AS created, * FROM intents
 WHERE forge = $1 AND delivery_id = $6 AND seq = $7 AND NOT EXISTS (SELECT 1 FROM added)`;

/** Connect, check the server answers, migrate, and return the Store. */
export const openPostgresStore = async (
  url: string,
  opts: PgOptions & { migrations?: Migration[] } = {},
): Promise<Store> => {
  const pool = createPgPool(url, opts);
  try {
    await checkConnection(pool, url);
    await migratePostgres(pool, opts.migrations ?? readMigrations());
  } catch (err) {
    await pool.end().catch(() => {});
    throw err instanceof AppError
      ? err
      : new AppError('store_error', 'cannot open the Postgres store', {}, { cause: err });
  }
  // One round trip per batch of leases or marks (no BEGIN / SET LOCAL / COMMIT around it).
  const bookkeeping = createPgPool(url, { ...opts, max: 2, commit: 'relaxed' });
  const closePool = closeOnce(pool);
  const closeBookkeeping = closeOnce(bookkeeping);
  const close = async () => {
    await Promise.all([closePool(), closeBookkeeping()]);
  };
  // Two batches in flight under load: once enough sightings wait behind the batch being written, they
  // go out at once in a second, instead of waiting a whole round trip for the first to come back.
  // "Processed" marks ride in the next sighting batch (pg-delivery-writes.ts); alone, on bookkeeping.
  const deliveries = createDeliveryWrites(
    {
      sightings: (ds, marks) => writeDeliveryBatch(pool, ds, marks),
      marks: (refs) => writeMarkBatch(bookkeeping, refs),
    },
    { inFlight: SIGHTING_BATCHES_IN_FLIGHT, spareAt: SIGHTINGS_FOR_A_SECOND_BATCH },
  );
  const lease = createGroupCommit((ls: readonly LeaseRequest[]) => writeLeaseBatch(bookkeeping, ls));

  return {
    async recordDelivery(d) {
      return { outcome: await deliveries.record(d) };
    },
    markDeliveryProcessed(forge, deliveryId) {
      return deliveries.mark({ forge, deliveryId });
    },
    leaseDelivery(forge, deliveryId, holder, until, now) {
      return lease({ forge, deliveryId, holder, until, now });
    },
    async listUnprocessedDeliveries(now) {
      const { rows } = await pool.query(unprocessedSql('$1'), [now ?? '9999']);
      return rows.map((raw) => {
        const r = unprocessedRow.parse(raw);
        return { forge: r.forge, deliveryId: r.delivery_id, events: JSON.parse(r.events) };
      });
    },
    async countDeliveryFailure(forge, deliveryId, error) {
      await pool.query(pgFailureSql.count, [error, forge, deliveryId]);
      const { rows } = await pool.query(pgFailureSql.attempts, [forge, deliveryId]);
      return Number(rows[0]?.attempts ?? 0);
    },
    async holdDelivery(forge, deliveryId, hold) {
      const retryAfter = 'retryAfter' in hold ? hold.retryAfter : null;
      const failedAt = 'failedAt' in hold ? hold.failedAt : null;
      await pool.query(pgFailureSql.hold, [retryAfter, failedAt, forge, deliveryId]);
    },
    async listFailedDeliveries(limit = 50) {
      const { rows } = await pool.query(pgFailureSql.failed, [limit]);
      return rows.map(toDelivery);
    },
    async listDeliveries(filter = {}) {
      const { rows } = await pool.query(
        `SELECT * FROM deliveries WHERE ($1::text IS NULL OR forge = $1)
         AND ($2::text IS NULL OR delivery_id = $2) ORDER BY id`,
        [filter.forge ?? null, filter.deliveryId ?? null],
      );
      return rows.map(toDelivery);
    },
    async addIntent(i) {
      // One round trip: the insert, or the row that was there. A row another replica committed after
      // this statement began is not in its snapshot; then (rarely) it is read in a second one.
      const { rows } = await pool.query(addIntentSql, [
        i.forge,
        i.repo,
        i.issueNumber ?? null,
        JSON.stringify(i.command),
        i.sender,
        i.deliveryId,
        i.seq,
        new Date().toISOString(),
      ]);
      if (rows[0] !== undefined) return { created: rows[0].created === true, intent: toIntent(rows[0]) };
      const again = await pool.query(
        'SELECT * FROM intents WHERE forge = $1 AND delivery_id = $2 AND seq = $3',
        [i.forge, i.deliveryId, i.seq],
      );
      return { created: false, intent: toIntent(again.rows[0]) };
    },
    async listIntents(filter = {}) {
      const { rows } = await pool.query(
        `SELECT * FROM intents WHERE ($1::text IS NULL OR forge = $1) AND ($2::text IS NULL OR repo = $2)
         ORDER BY id`,
        [filter.forge ?? null, filter.repo ?? null],
      );
      return rows.map(toIntent);
    },
    async ping() {
      try {
        const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
        return rows[0]?.one === 1;
      } catch {
        return false;
      }
    },
    async pingWrite() {
      // The smallest real commit, on the pool whose commits wait for the WAL flush: a full disk or a
      // server that became read-only refuses it while `SELECT 1` still answers.
      await pool.query(
        `INSERT INTO store_probe (id, written_at) VALUES (1, $1)
           ON CONFLICT (id) DO UPDATE SET written_at = excluded.written_at`,
        [new Date().toISOString()],
      );
    },
    close,
  };
};
