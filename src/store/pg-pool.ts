// The Postgres connection pool both Postgres stores use: 64-bit integers read as numbers, an optional
// schema set on every connection, a transaction helper, and errors that never show the password.
import pg from 'pg';
import { AppError } from '../errors.ts';

export interface PgOptions {
  /** Schema for every table (`search_path` on each pooled connection); default: the server's. */
  schema?: string;
  /** Connections in the pool (default 10). */
  max?: number;
  /** How long to wait for a free connection before failing (default 10 s; 0 waits as long as it takes). */
  connectionTimeoutMs?: number;
}

/**
 * `relaxed`: every commit on these connections returns without waiting for its WAL flush
 * (`synchronous_commit = off` for the session), for bookkeeping that a crash may lose harmlessly.
 */
export type PoolCommit = 'durable' | 'relaxed';

const INT8_OID = 20;
const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

// Our BIGINT columns hold forge ids and counters, all far below 2^53; a larger value is refused
// rather than silently rounded.
const parseInt8 = (text: string): number => {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new AppError('store_error', `integer ${text} is beyond 2^53`);
  return n;
};

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** `postgres://user:***@host/db`: the URL as it may appear in an error or a log. */
export const redactUrl = (url: string): string =>
  url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*:)[^@]*@/, '$1***@');

/**
 * `pipeline`: a connection writes each query without waiting for the answer to the one before (for
 * statements that do not depend on each other's results, e.g. several transactions' work in one).
 */
export const createPgPool = (
  url: string,
  opts: PgOptions & { commit?: PoolCommit; pipeline?: boolean } = {},
): pg.Pool => {
  if (opts.schema !== undefined && !schemaName.test(opts.schema)) {
    throw new AppError('config_invalid', `Postgres schema "${opts.schema}" is not a plain lower-case name`);
  }
  const settings = [
    ...(opts.schema ? [`-c search_path=${opts.schema}`] : []),
    ...(opts.commit === 'relaxed' ? ['-c synchronous_commit=off'] : []),
  ];
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 10_000,
    // TCP keepalive: a connection held a long time (the run lock) learns that the network dropped it.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types,
    ...(opts.pipeline ? { pipeline: true } : {}),
    ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
  });
  // An idle client losing its server (a restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
};

/** Fails with a clear `store_error` when the server cannot be reached or refuses us. */
export const checkConnection = async (pool: pg.Pool, url: string): Promise<void> => {
  try {
    await pool.query('SELECT 1');
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new AppError('store_error', `cannot reach Postgres at ${redactUrl(url)}: ${why}`, {}, { cause });
  }
};

export type Queryable = Pick<pg.PoolClient, 'query'>;

/** A client checked out of a pool with its own error listener (see `checkout`). */
export interface CheckedOut {
  client: pg.PoolClient;
  /** The error its connection died of while checked out, if it did. */
  lost(): Error | undefined;
  /** Resolves with that error when the connection dies; never rejects. */
  whenLost: Promise<Error>;
  /** Back to the pool; destroyed instead when `broken` is given or the connection was lost. */
  release(broken?: Error): void;
}

/**
 * `pool.connect()` with an 'error' listener on the client for as long as it is checked out. pg-pool
 * takes its own listener off a client it hands out, and a connection that dies then (the server
 * restarts, the network drops) emits 'error' on the client: without a listener that is an uncaught
 * exception that ends the process. Here it fails the caller's pending query (pg does that) and is
 * kept, so the client is destroyed on release instead of going back to the pool.
 */
export const checkout = async (pool: pg.Pool): Promise<CheckedOut> => {
  const client = await pool.connect();
  let lost: Error | undefined;
  let onLost: (err: Error) => void = () => {};
  const whenLost = new Promise<Error>((resolve) => {
    onLost = resolve;
  });
  const listener = (err: Error) => {
    lost ??= err;
    onLost(err);
  };
  client.on('error', listener);
  let released = false;
  return {
    client,
    lost: () => lost,
    whenLost,
    release(broken) {
      if (released) return;
      released = true;
      client.off('error', listener);
      // Late errors of a destroyed connection must not reach an empty listener list either.
      if (broken ?? lost) client.on('error', () => {});
      client.release(broken ?? lost);
    },
  };
};

/** Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
export const inTransaction = async <T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> => {
  const held = await checkout(pool);
  const { client } = held;
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => {
      broken = rollbackErr;
    });
    throw err;
  } finally {
    // A connection that cannot roll back is destroyed rather than handed out mid-transaction.
    held.release(broken);
  }
};

/** A Postgres unique violation (SQLSTATE 23505). */
export const isUniqueViolation = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && 'code' in err && err.code === '23505';

/** `pool.end()` once; later calls are no-ops, as for the SQLite stores. */
export const closeOnce = (pool: pg.Pool): (() => Promise<void>) => {
  let closing: Promise<void> | undefined;
  return () => (closing ??= pool.end());
};
