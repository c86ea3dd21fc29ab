// One reconcile per run at a time across replicas: a session advisory lock keyed by a 64-bit hash of
// the schema and run id, held on its own connection for as long as the reconcile runs (a transaction
// lock would keep a transaction open across forge calls). If the replica dies, Postgres drops its
// connection and the lock with it. Not re-entrant: a holder asking again for the same run waits forever.
// If the connection dies while the lock is held (the server or the network went away), the lock is
// gone with it: the holder's work is not taken as done. Once it settles, withRunLock fails with a
// `store_error` whatever it returned, so its caller treats the pass as failed and a later pass redoes
// it (run writes name the version they read, so a pass that lost the lock cannot overwrite a newer one).
import type pg from 'pg';
import { AppError } from '../errors.ts';
import { checkout } from './pg-pool.ts';

const lockKey = "hashtextextended('blitz:run:' || coalesce(current_schema(), '') || ':' || $1, 0)";

export const createPgRunLock = (lockPool: pg.Pool) => {
  // Callers in this process queue here first, so waiting for a run costs no connection each.
  const local = new Map<string, Promise<void>>();

  const holdAdvisoryLock = async <T>(runId: string, fn: () => Promise<T>): Promise<T> => {
    const held = await checkout(lockPool);
    const { client } = held;
    let broken: Error | undefined;
    try {
      await client.query(`SELECT pg_advisory_lock(${lockKey})`, [runId]);
      let result: T;
      try {
        result = await fn();
      } finally {
        if (!held.lost())
          await client.query(`SELECT pg_advisory_unlock(${lockKey})`, [runId]).catch((err: Error) => {
            broken = err;
          });
      }
      const lost = held.lost();
      if (lost)
        throw new AppError(
          'store_error',
          `the run lock of ${runId} was lost mid-pass (${lost.message}); the pass is not taken as done`,
          {},
          { cause: lost },
        );
      return result;
    } finally {
      // A connection that could not unlock is destroyed, which releases the lock on the server.
      held.release(broken);
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
