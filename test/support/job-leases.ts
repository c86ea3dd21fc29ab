// Lease expiry without waiting for it: pg-boss's own tests move a job's times back instead of
// sleeping, and so do ours. `expireLeaseNow` backdates an active job's lease start past its lease,
// runs the queue's expiry (what a replica's maintenance does every few seconds) and makes the retry
// visible at once, as if the lease and the retry backoff had both run out.
import type pg from 'pg';
import type { PgBossQueue } from '../../src/queue/pg-boss-queue.ts';
import type { JobRef } from '../../src/queue/types.ts';

export const expireLeaseNow = async (
  admin: pg.Pool,
  queueSchema: string,
  queue: Pick<PgBossQueue, 'expireLeases'>,
  ref: JobRef,
): Promise<void> => {
  const job = `"${queueSchema}".job`;
  const { rowCount } = await admin.query(
    `UPDATE ${job} SET started_on = now() - expire_in - interval '1 second'
      WHERE name = $1 AND id = $2 AND state = 'active'`,
    [ref.queue, ref.id],
  );
  if (rowCount !== 1) throw new Error(`job ${ref.id} in ${ref.queue} is not active: no lease to expire`);
  await queue.expireLeases();
  await admin.query(`UPDATE ${job} SET start_after = now() WHERE name = $1 AND id = $2 AND state = 'retry'`, [
    ref.queue,
    ref.id,
  ]);
};

/**
 * Lets `ms` pass for every job of a pg-boss schema without sleeping: each job's times (created,
 * started, start after, completed) move back by `ms`, so leases run out and retry backoffs end as
 * they would once that much time had passed; a heartbeat after this sets its lease start to now.
 */
export const moveJobTimesBack = async (admin: pg.Pool, queueSchema: string, ms: number): Promise<void> => {
  const back = `- $1 * interval '1 millisecond'`;
  await admin.query(
    `UPDATE "${queueSchema}".job SET created_on = created_on ${back}, started_on = started_on ${back},
        start_after = start_after ${back}, completed_on = completed_on ${back}`,
    [ms],
  );
};
