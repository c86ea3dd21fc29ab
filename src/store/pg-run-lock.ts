// One reconcile per run at a time across replicas: a session advisory lock keyed by a 64-bit hash of
// the schema and run id, held on its own connection for as long as the reconcile runs (a transaction
// lock would keep a transaction open across forge calls). If the replica dies, Postgres drops its
// connection and the lock with it. Not re-entrant: a holder asking again for the same run waits forever.
import type pg from 'pg';

const lockKey = "hashtextextended('blitz:run:' || coalesce(current_schema(), '') || ':' || $1, 0)";

export const createPgRunLock = (lockPool: pg.Pool) => {
  // Callers in this process queue here first, so waiting for a run costs no connection each.
  const local = new Map<string, Promise<void>>();

  const holdAdvisoryLock = async <T>(runId: string, fn: () => Promise<T>): Promise<T> => {
    const client = await lockPool.connect();
    let broken: Error | undefined;
    try {
      await client.query(`SELECT pg_advisory_lock(${lockKey})`, [runId]);
      try {
        return await fn();
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${lockKey})`, [runId]).catch((err: Error) => {
          broken = err;
        });
      }
    } finally {
      // A connection that could not unlock is destroyed, which releases the lock on the server.
      client.release(broken);
    }
  };

  return async <T>(runId: string, fn: () => Promise<T>): Promise<T> => {
    const previous = local.get(runId) ?? Promise.resolve();
    let release = (): void => {};
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = previous.then(() => mine);
    local.set(runId, tail);
    await previous;
    try {
      return await holdAdvisoryLock(runId, fn);
    } finally {
      release();
      if (local.get(runId) === tail) local.delete(runId);
    }
  };
};
