// Transactions that many callers open at once (a dispatch each: its run issue row and its pg-boss job)
// share one. They are gathered while one is in flight (a second opens once half a full one waits, and
// one that comes back waits for the end of that turn, so the lanes its COMMIT set going join it), and run side by side on one pipelined
// connection (pg's `pipeline`: a query is written without waiting for the answer to the one before)
// between one BEGIN and one COMMIT: N dispatches of two statements cost about three round trips and
// one WAL flush in all, where one transaction each costs four round trips and a flush apiece. BEGIN
// leaves in one write with the first statements (the socket corked for that turn), COMMIT in a second. Each
// caller gets its answer only once the shared COMMIT is durable. A function that throws (a twin
// dispatch, a deadlock Postgres broke) rolls the shared transaction back; then each of its functions
// runs again in a transaction of its own, so that one fails alone and the others commit. A function
// may therefore run twice: it must only write through its `tx`.
import type pg from 'pg';
import { createGroupCommit } from './group-commit.ts';
import { checkout } from './pg-pool.ts';

/** Shared transactions in flight at once, each on its own connection. */
export const GROUP_TRANSACTIONS_IN_FLIGHT = 2;
/** Most functions in one shared transaction: its row locks are held until the last one ends. */
const MAX_SHARED = 64;
/**
 * Functions waiting before a second shared transaction opens beside the first (group-commit.ts
 * `spareAt`): two always open cost BEGIN, COMMIT and a WAL flush per round trip each, so a replica
 * given half the load wrote twice the transactions per dispatch.
 */
const WAITING_FOR_A_SECOND = MAX_SHARED / 2;

type Work<Tx> = (tx: Tx) => Promise<unknown>;

interface Corkable {
  cork(): void;
  uncork(): void;
}

/** The socket under a pooled connection, when pg shows it (pg corks it itself around each query). */
const socketOf = (client: pg.PoolClient): Corkable | undefined => {
  const stream = (client as unknown as { connection?: { stream?: Partial<Corkable> } }).connection?.stream;
  return typeof stream?.cork === 'function' && typeof stream.uncork === 'function'
    ? (stream as Corkable)
    : undefined;
};

/**
 * `pool` must be a pipelined one (`createPgPool(url, { pipeline: true })`); `wrap` makes a
 * transaction's view of its connection.
 */
export const createGroupTransaction = <Tx>(
  pool: pg.Pool,
  wrap: (client: pg.PoolClient) => Tx,
): (<T>(fn: (tx: Tx) => Promise<T>) => Promise<T>) => {
  const shared = async (fns: readonly Work<Tx>[]): Promise<unknown[]> => {
    // A connection that dies mid-transaction fails its statements (and so every function), never the process.
    const held = await checkout(pool);
    const { client } = held;
    let broken: Error | undefined;
    // BEGIN and the statements the functions send in this turn leave in ONE write: the socket is
    // corked until the turn's statements are flushed (pg-statement-batch.ts flushes them in a
    // setImmediate queued before ours), so the server reads them together instead of waking for BEGIN
    // alone. Statements sent later go out as they come.
    const socket = socketOf(client);
    socket?.cork();
    let corked = socket !== undefined;
    const uncork = () => {
      if (corked) {
        corked = false;
        socket!.uncork();
      }
    };
    try {
      // BEGIN goes out first, the functions' first statements right behind it, unanswered yet.
      const begin = client.query('BEGIN');
      const tx = wrap(client);
      const running = fns.map((fn) => fn(tx));
      setImmediate(uncork);
      const settled = await Promise.allSettled(running);
      uncork();
      await begin;
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) {
        await client.query('ROLLBACK').catch((err: Error) => {
          broken = err;
        });
        throw failed.reason;
      }
      await client.query('COMMIT');
      return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
    } catch (err) {
      uncork();
      // A COMMIT or BEGIN that failed leaves nothing written: roll back what may be open.
      if (!broken && !held.lost() && client.getTransactionStatus() !== 'I')
        await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      uncork();
      // A connection that cannot roll back is destroyed rather than handed out mid-transaction.
      held.release(broken);
    }
  };
  const run = createGroupCommit(shared, {
    gather: 'while-writing',
    inFlight: GROUP_TRANSACTIONS_IN_FLIGHT,
    spareAt: WAITING_FOR_A_SECOND,
    maxBatch: MAX_SHARED,
    // A dispatch's lane waits for its COMMIT, then goes on to its next delivery's dispatch in the
    // same turn: it joins the next shared transaction instead of the one after it.
    rejoin: true,
  });
  return <T>(fn: (tx: Tx) => Promise<T>) => run(fn) as Promise<T>;
};
