// Webhook sightings on PostgreSQL, written in batches (group-commit.ts): ONE statement per batch,
// a multi-row insert that takes each id at most once and records the losers as `duplicate` beside it,
// so many concurrent webhooks cost one round trip, not three each. Every caller still awaits its own
// row before the webhook is answered: nothing is lost. The "processed" marks made while the batch
// before was in flight ride in the same statement (pg-delivery-writes.ts) and commit with it.
import type pg from 'pg';
import { byDelivery, type DeliveryRef } from './pg-delivery-bookkeeping.ts';
import type { DeliveryOutcome, NewDelivery } from './types.ts';

const columns =
  'forge, delivery_id, event, action, outcome, reason, received_at, events, lease_holder, lease_until';

/**
 * `$1…$10` are parallel text arrays: the first sighting of each id in the batch, `taking` (accepted or
 * ignored, may take the id) or not (rejected, or a repeat inside the batch: recorded as they are).
 * Rows are inserted in (forge, id) order so two replicas' batches never wait on each other in a cycle.
 * `$11…$13`: the marks (processed at, forges, ids), rows this replica processed, committed before.
 * The marks are written once every insert is done (the count of `taken` gates them): a batch waiting
 * on another replica's insert or mark of a row holds no mark of its own yet, so two batches never
 * wait on each other through their marks either.
 */
const batchSql = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                       $9::text[], $10::text[])
    AS t(forge, delivery_id, event, action, outcome, reason, received_at, events, lease_holder, lease_until)
), taken AS (
  INSERT INTO deliveries (${columns})
  SELECT ${columns} FROM input WHERE outcome IN ('accepted', 'ignored') ORDER BY forge, delivery_id
  ON CONFLICT DO NOTHING
  RETURNING forge, delivery_id
), sightings AS (
  INSERT INTO deliveries (${columns})
  SELECT forge, delivery_id, event, action, outcome, reason, received_at, events, NULL, NULL
    FROM input WHERE outcome NOT IN ('accepted', 'ignored')
  UNION ALL
  SELECT i.forge, i.delivery_id, i.event, i.action, 'duplicate', 'delivery id already seen', i.received_at, NULL,
         NULL, NULL
    FROM input i
   WHERE i.outcome IN ('accepted', 'ignored')
     AND NOT EXISTS (SELECT 1 FROM taken t WHERE t.forge = i.forge AND t.delivery_id = i.delivery_id)
  RETURNING 1
), marked AS (
  UPDATE deliveries d SET processed_at = $11, events = NULL
    FROM unnest($12::text[], $13::text[]) AS m(forge, delivery_id)
   WHERE d.forge = m.forge AND d.delivery_id = m.delivery_id
     AND d.outcome IN ('accepted', 'ignored') AND d.processed_at IS NULL
     AND (SELECT count(*) FROM taken) >= 0
  RETURNING 1
)
SELECT forge, delivery_id FROM taken`;

type Row = [
  string,
  string,
  string,
  string | null,
  string,
  string | null,
  string,
  string | null,
  string | null,
  string | null,
];

const rowOf = (d: NewDelivery, outcome: DeliveryOutcome, at: string): Row => [
  d.forge,
  d.deliveryId,
  d.event,
  d.action ?? null,
  outcome,
  outcome === 'duplicate' ? 'delivery id already seen' : (d.reason ?? null),
  at,
  outcome === 'accepted' && d.events ? JSON.stringify(d.events) : null,
  outcome === 'accepted' ? (d.lease?.holder ?? null) : null,
  outcome === 'accepted' ? (d.lease?.until ?? null) : null,
];

/**
 * Writes one batch, and marks `marks` processed (dropping their stored events) in the same statement;
 * resolves each sighting's outcome in the order given.
 */
export const writeDeliveryBatch = async (
  pool: Pick<pg.Pool, 'query'>,
  ds: readonly NewDelivery[],
  marks: readonly DeliveryRef[] = [],
): Promise<DeliveryOutcome[]> => {
  const at = new Date().toISOString();
  const seen = new Set<string>();
  // A repeat inside the batch is a duplicate sighting of the first; it never competes for the id.
  const planned: DeliveryOutcome[] = ds.map((d) => {
    if (d.outcome === 'rejected') return 'rejected';
    const key = `${d.forge}\u0000${d.deliveryId}`;
    if (seen.has(key)) return 'duplicate';
    seen.add(key);
    return d.outcome;
  });
  const rows = ds.map((d, i) => rowOf(d, planned[i]!, at));
  const params: unknown[] = Array.from({ length: 10 }, (_, c) => rows.map((r) => r[c]));
  const sorted = byDelivery(marks);
  params.push(
    at,
    sorted.map((m) => m.forge),
    sorted.map((m) => m.deliveryId),
  );
  // Named: each connection parses and plans the statement once, not on every batch.
  const { rows: won } = await pool.query<{ forge: string; delivery_id: string }>({
    name: 'blitz-delivery-batch',
    text: batchSql,
    values: params,
  });
  const taken = new Set(won.map((r) => `${r.forge}\u0000${r.delivery_id}`));
  return planned.map((o, i) =>
    o === 'accepted' || o === 'ignored'
      ? taken.has(`${ds[i]!.forge}\u0000${ds[i]!.deliveryId}`)
        ? o
        : 'duplicate'
      : o,
  );
};
