// Delivery leases and "processed" marks on PostgreSQL, one statement per batch of concurrent calls
// (group-commit.ts). Both are bookkeeping a crash may lose harmlessly (a lease runs out anyway, an
// unmarked delivery is replayed and its processing is idempotent), so they run on a pool whose
// commits do not wait for the WAL flush. Rows are visited in (forge, id) order, so two replicas'
// batches rarely wait on each other in a cycle; a deadlock PostgreSQL breaks is retried item by item.
import type pg from 'pg';
import type { ForgeKind } from '../forges/types.ts';

export interface LeaseRequest {
  forge: ForgeKind;
  deliveryId: string;
  holder: string;
  until: string;
  now: string;
}

export interface DeliveryRef {
  forge: ForgeKind;
  deliveryId: string;
}

const keyOf = (d: DeliveryRef): string => `${d.forge}\u0000${d.deliveryId}`;

/** `items` in (forge, id) order: the order every batch visits rows in. */
export const byDelivery = <T extends DeliveryRef>(items: readonly T[]): T[] =>
  [...items].sort((a, b) =>
    a.forge !== b.forge
      ? a.forge < b.forge
        ? -1
        : 1
      : a.deliveryId < b.deliveryId
        ? -1
        : a.deliveryId > b.deliveryId
          ? 1
          : 0,
  );

const leaseSql = `
UPDATE deliveries d SET lease_holder = l.holder, lease_until = l.until
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
    AS l(forge, delivery_id, holder, until, now)
 WHERE d.forge = l.forge AND d.delivery_id = l.delivery_id
   AND d.outcome = 'accepted' AND d.processed_at IS NULL
   AND (d.lease_holder IS NULL OR d.lease_until < l.now OR d.lease_holder = l.holder)
RETURNING d.forge, d.delivery_id`;

/**
 * Grants each lease request that finds its delivery unleased, run out, or already held by the same
 * holder. Two requests for one delivery in a batch are decided one after the other, in order.
 */
export const writeLeaseBatch = async (
  pool: Pick<pg.Pool, 'query'>,
  requests: readonly LeaseRequest[],
): Promise<boolean[]> => {
  const first = new Map<string, number>();
  const later: number[] = [];
  for (const [i, r] of requests.entries()) {
    if (first.has(keyOf(r))) later.push(i);
    else first.set(keyOf(r), i);
  }
  const now = byDelivery([...first.values()].map((i) => requests[i]!));
  const columns = [
    now.map((r) => r.forge),
    now.map((r) => r.deliveryId),
    now.map((r) => r.holder),
    now.map((r) => r.until),
    now.map((r) => r.now),
  ];
  const { rows } = await pool.query<{ forge: string; delivery_id: string }>({
    name: 'blitz-lease-batch',
    text: leaseSql,
    values: columns,
  });
  const granted = new Set(rows.map((r) => `${r.forge}\u0000${r.delivery_id}`));
  const answers = requests.map((r) => granted.has(keyOf(r)));
  if (later.length > 0) {
    const again = await writeLeaseBatch(
      pool,
      later.map((i) => requests[i]!),
    );
    for (const [j, i] of later.entries()) answers[i] = again[j]!;
  }
  return answers;
};

const markSql = `
UPDATE deliveries d SET processed_at = $1, events = NULL
  FROM unnest($2::text[], $3::text[]) AS m(forge, delivery_id)
 WHERE d.forge = m.forge AND d.delivery_id = m.delivery_id
   AND d.outcome IN ('accepted', 'ignored') AND d.processed_at IS NULL`;

/** Marks each delivery processed (a no-op for one already marked) and drops its stored events. */
export const writeMarkBatch = async (
  pool: Pick<pg.Pool, 'query'>,
  refs: readonly DeliveryRef[],
): Promise<undefined[]> => {
  const sorted = byDelivery(refs);
  await pool.query({
    name: 'blitz-mark-batch',
    text: markSql,
    values: [new Date().toISOString(), sorted.map((r) => r.forge), sorted.map((r) => r.deliveryId)],
  });
  return refs.map(() => undefined);
};
