// Statement batching in PostgreSQL's shared transactions (src/store/pg-statement-batch.ts) on the real
// server: what one turn sends goes out as one statement, a second write of a row runs after the first,
// a refused statement fails its batch, a pg-boss job written that way is the row pg-boss writes, and a
// shared transaction sends BEGIN with its first statements.
import type { Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.ts';
import { PgBossQueue } from '../../src/queue/pg-boss-queue.ts';
import type { SqlExecutor } from '../../src/queue/types.ts';
import { createGroupTransaction } from '../../src/store/pg-group-transaction.ts';
import { createPgPool, type Queryable } from '../../src/store/pg-pool.ts';
import { createStatementBatch, MAX_PER_STATEMENT } from '../../src/store/pg-statement-batch.ts';
import { pgTestUrl, postgresAvailable, testSchemas } from '../support/pg.ts';

const available = await postgresAvailable();

describe.skipIf(!available)('statement batches on Postgres', () => {
  const schemas = testSchemas();
  afterAll(() => schemas.dropAll());

  /** A pipelined connection on a fresh schema, and every statement text it was sent. */
  const connection = async () => {
    const schema = await schemas.create();
    const pool = createPgPool(pgTestUrl(), { schema, max: 1, pipeline: true });
    const client = await pool.connect();
    const sent: string[] = [];
    const counted: Queryable = {
      query: ((text: string, values?: unknown[]) => {
        sent.push(text);
        return client.query(text, values);
      }) as Queryable['query'],
    };
    const close = async () => {
      client.release();
      await pool.end();
    };
    return { schema, client, counted, sent, close };
  };

  const upsert =
    'INSERT INTO t (id, v) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v RETURNING *';

  it('sends one turn as one statement, and a second write of a row after the first', async () => {
    const c = await connection();
    try {
      await c.client.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
      c.sent.length = 0;
      const batch = createStatementBatch(c.counted);
      const answers = await Promise.all([
        batch.query(upsert, [1, 'a'], 't:1'),
        batch.query(upsert, [2, 'b'], 't:2'),
        batch.query(upsert, [1, 'c'], 't:1'),
        batch.query('SELECT count(*)::int AS n FROM t', []),
      ]);
      // Rows 1 and 2 in one statement; row 1's second write (and what came after it) in the next.
      expect(c.sent).toHaveLength(2);
      expect(answers.map((a) => a.rows)).toEqual([
        [{ id: 1, v: 'a' }],
        [{ id: 2, v: 'b' }],
        [{ id: 1, v: 'c' }],
        [{ n: 2 }],
      ]);
      expect((await c.client.query('SELECT id, v FROM t ORDER BY id')).rows).toEqual([
        { id: 1, v: 'c' },
        { id: 2, v: 'b' },
      ]);
      // A later turn is a statement of its own.
      await batch.query(upsert, [3, 'd'], 't:3');
      expect(c.sent).toHaveLength(3);
    } finally {
      await c.close();
    }
  });

  it('sends a large turn as prepared statements of at most MAX_PER_STATEMENT, in order, each shape parsed once', async () => {
    const c = await connection();
    try {
      await c.client.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
      c.sent.length = 0;
      const batch = createStatementBatch(c.counted);
      const turn = (v: string) =>
        Promise.all(
          Array.from({ length: 2 * MAX_PER_STATEMENT + 3 }, (_, i) =>
            batch.query(upsert, [i, `${v}${i}`], `t:${i}`),
          ),
        );
      const answers = await turn('a');
      expect(c.sent).toHaveLength(3);
      expect(answers.map((a) => a.rows)).toEqual(
        Array.from({ length: 2 * MAX_PER_STATEMENT + 3 }, (_, i) => [{ id: i, v: `a${i}` }]),
      );
      const prepared = async () =>
        (
          await c.client.query<{ name: string }>(
            "SELECT name FROM pg_prepared_statements WHERE name LIKE 'blitz-batch-%' ORDER BY name",
          )
        ).rows.map((r) => r.name);
      // Two shapes (a full piece, and the 4 statements left), each prepared once on this connection.
      const shapes = await prepared();
      expect(shapes).toHaveLength(2);
      await turn('b');
      expect(c.sent).toHaveLength(6);
      expect(await prepared()).toEqual(shapes);
      expect((await c.client.query('SELECT count(*)::int AS n FROM t WHERE v LIKE $1', ['b%'])).rows).toEqual(
        [{ n: 2 * MAX_PER_STATEMENT + 3 }],
      );
    } finally {
      await c.close();
    }
  });

  it('fails every statement of a batch the server refuses, and writes none of it', async () => {
    const c = await connection();
    try {
      await c.client.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
      const batch = createStatementBatch(c.counted);
      const answers = await Promise.allSettled([
        batch.query(upsert, [1, 'a'], 't:1'),
        batch.query(upsert, [2, null], 't:2'),
      ]);
      expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
      expect(String((answers[0] as PromiseRejectedResult).reason)).toMatch(/null value/);
      expect((await c.client.query('SELECT * FROM t')).rows).toEqual([]);
      // A text with a $ that is not a parameter could be renumbered wrongly: refused, never sent.
      const before = c.sent.length;
      await expect(batch.query("SELECT '$x' AS a", [])).rejects.toThrow(/cannot be batched/);
      expect(c.sent).toHaveLength(before);
    } finally {
      await c.close();
    }
  });

  it('writes a pg-boss job sent beside another statement as the row pg-boss writes itself', async () => {
    const c = await connection();
    const bossSchema = `${c.schema}_boss`;
    const queue = await PgBossQueue.open({
      connectionString: pgTestUrl(),
      schema: bossSchema,
      logger: silentLogger(),
    });
    try {
      await c.client.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
      await queue.ensureQueue('dispatch');
      const options = { retryLimit: 3, retryDelaySeconds: 7, leaseSeconds: 90 };
      const own = await queue.enqueue('dispatch', { issue: 1 }, { ...options, singletonKey: 'own' });

      await c.client.query('BEGIN');
      c.sent.length = 0;
      const batch = createStatementBatch(c.counted);
      const tx: SqlExecutor = {
        executeSql: async (text, values = []) => ({ rows: (await c.counted.query(text, values)).rows }),
        executeBatched: (text, values = []) => batch.query(text, values),
      };
      const [, batched, twin] = await Promise.all([
        batch.query(upsert, [1, 'a'], 't:1'),
        queue.enqueueInTransaction(tx, 'dispatch', { issue: 1 }, { ...options, singletonKey: 'batched' }),
        queue.enqueueInTransaction(tx, 'dispatch', { issue: 1 }, { ...options, singletonKey: 'batched' }),
      ]);
      await c.client.query('COMMIT');
      // The row, the job and its twin: one statement; the twin inserted nothing.
      expect(c.sent).toHaveLength(1);
      expect(batched).not.toBeNull();
      expect(twin).toBeNull();

      const { rows } = await c.client.query(
        `SELECT id, name, data, priority, state, retry_limit, retry_delay, retry_backoff, expire_in::text AS expire_in,
                (keep_until - start_after)::text AS kept, policy, dead_letter, singleton_on
           FROM ${bossSchema}.job ORDER BY singleton_key DESC`,
      );
      expect(rows.map((r) => r.id)).toEqual([own, batched]);
      const { id: _a, ...ownRow } = rows[0]!;
      const { id: _b, ...batchedRow } = rows[1]!;
      expect(batchedRow).toEqual(ownRow);
      expect(ownRow).toMatchObject({
        retry_limit: 3,
        retry_delay: 7,
        retry_backoff: true,
        expire_in: '00:01:30',
      });
    } finally {
      await queue.dropSchema(bossSchema);
      await queue.close();
      await c.close();
    }
  });

  it('a shared transaction writes BEGIN and its first turn of statements to the server at once, then COMMIT', async () => {
    const pool = createPgPool(pgTestUrl(), { schema: await schemas.create(), max: 1, pipeline: true });
    try {
      const client = await pool.connect();
      await client.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
      // Every time the connection's socket hands bytes to the kernel.
      const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
      let writes = 0;
      for (const m of ['_write', '_writev'] as const) {
        const own = socket[m] as (...args: unknown[]) => void;
        socket[m] = ((...args: unknown[]) => {
          writes++;
          own.apply(socket, args);
        }) as never;
      }
      client.release();
      const transaction = createGroupTransaction(pool, (c) => createStatementBatch(c));
      const rows = await transaction(async (tx) => {
        const [a, b] = await Promise.all([
          tx.query(upsert, [1, 'a'], 't:1'),
          tx.query(upsert, [2, 'b'], 't:2'),
        ]);
        return [...a.rows, ...b.rows];
      });
      expect(rows).toEqual([
        { id: 1, v: 'a' },
        { id: 2, v: 'b' },
      ]);
      // BEGIN with the statement, then COMMIT once the answers are back: two writes, not three.
      expect(writes).toBe(2);
    } finally {
      await pool.end();
    }
  });
});
