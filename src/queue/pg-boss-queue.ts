// The PostgreSQL queue engine on pg-boss 10: its send and tables, `expireInSeconds` as the lease and
// its retry/backoff. pg-boss knows no holder, so the holder's name rides in the job's `output` column
// while it is active; claim (pg-boss's fetch plus the holder, one statement), heartbeat, complete and
// fail are guarded UPDATEs of its job table that mirror its own SQL.
import { createHash } from 'node:crypto';
import PgBoss from 'pg-boss';
import { AppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import {
  type DroppedJob,
  defaultEnqueue,
  type EnqueueOptions,
  type JobInfo,
  type JobQueue,
  type JobRef,
  type JobState,
  type LeasedJob,
  type SqlExecutor,
} from './types.ts';

export interface PgBossQueueOptions {
  connectionString: string;
  /** Postgres schema pg-boss keeps its tables in (one per test file in tests). */
  schema?: string;
  logger: Logger;
  /** How often a replica looks for expired leases (pg-boss maintenance); default 5 s. */
  maintenanceIntervalSeconds?: number;
  /** Waits `ms` between tries of a queue creation that failed (tests: no real waiting). */
  pause?: (ms: number) => Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** A singleton key becomes the job id, so a second send is pg-boss's ON CONFLICT DO NOTHING. */
export const singletonJobId = (queue: string, key: string): string => {
  const h = createHash('sha256').update(`${queue}\u0000${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

const stateOf = (s: string): JobState =>
  s === 'active'
    ? 'active'
    : s === 'completed'
      ? 'completed'
      : s === 'created' || s === 'retry'
        ? 'queued'
        : 'failed';

const holderOf = (output: unknown): string | undefined =>
  typeof output === 'object' && output !== null && 'holder' in output && typeof output.holder === 'string'
    ? output.holder
    : undefined;

/** What the holder passed to complete (or its error), without the holder envelope. */
const unwrapOutput = (o: unknown): unknown => {
  if (typeof o !== 'object' || o === null) return o;
  if ('output' in o) return o.output;
  if ('error' in o) return { error: o.error };
  return o;
};

/** pg's interval object ({ hours, minutes, seconds }) in seconds. */
const intervalSeconds = (v: unknown): number => {
  const i = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  const n = (k: string) => (typeof i[k] === 'number' ? (i[k] as number) : 0);
  return n('hours') * 3600 + n('minutes') * 60 + n('seconds');
};

const droppedOf = (raw: unknown): DroppedJob => {
  const r = raw as { name: string; id: string; data: unknown; state: string };
  return { queue: r.name, id: r.id, payload: r.data, state: stateOf(r.state) };
};

export class PgBossQueue implements JobQueue {
  readonly engine = 'postgres' as const;
  private readonly known = new Set<string>();
  /** Queues being created now, so concurrent callers share one creation. */
  private readonly making = new Map<string, Promise<void>>();
  private readonly table: string;
  private readonly jobState: string;

  private constructor(
    private readonly boss: PgBoss,
    schema: string,
    private readonly pause: (ms: number) => Promise<void>,
  ) {
    this.table = `"${schema}".job`;
    this.jobState = `"${schema}".job_state`;
  }

  static async open(o: PgBossQueueOptions): Promise<PgBossQueue> {
    const schema = o.schema ?? 'pgboss';
    if (!/^[a-z_][a-z0-9_]{0,49}$/.test(schema)) {
      throw new AppError('config_invalid', `queue schema "${schema}": use lower-case letters, digits and _`);
    }
    const boss = new PgBoss({
      connectionString: o.connectionString,
      schema,
      schedule: false,
      supervise: true,
      maintenanceIntervalSeconds: o.maintenanceIntervalSeconds ?? 5,
    });
    boss.on('error', (err) => o.logger.warn({ err }, 'job queue maintenance failed'));
    try {
      await boss.start();
    } catch (cause) {
      throw new AppError('store_error', 'cannot start the PostgreSQL job queue', {}, { cause });
    }
    return new PgBossQueue(boss, schema, o.pause ?? sleep);
  }

  enqueue(queue: string, payload: unknown, opts: EnqueueOptions = {}): Promise<string | null> {
    return this.send(undefined, queue, payload, opts);
  }

  /**
   * Enqueues inside the caller's transaction (pg-boss's `db` option): a rolled-back transaction
   * leaves no job, a committed one exactly one. The queue itself is created beforehand, outside it.
   */
  enqueueInTransaction(
    tx: SqlExecutor,
    queue: string,
    payload: unknown,
    opts: EnqueueOptions = {},
  ): Promise<string | null> {
    return this.send(tx, queue, payload, opts);
  }

  /**
   * Creates the queue if missing (a send to an unknown queue would silently insert nothing). Callers
   * asking for the same queue while it is being made share that one creation: a replica's first
   * simultaneous dispatches would otherwise each run pg-boss's DDL and wait on each other's locks.
   */
  ensureQueue(queue: string): Promise<void> {
    if (this.known.has(queue)) return Promise.resolve();
    const making = this.making.get(queue);
    if (making) return making;
    const made = this.createQueue(queue).then(
      () => {
        this.known.add(queue);
        this.making.delete(queue);
      },
      (err: unknown) => {
        // Not remembered: the next caller tries again.
        this.making.delete(queue);
        throw err;
      },
    );
    this.making.set(queue, made);
    return made;
  }

  private async createQueue(queue: string): Promise<void> {
    // Replicas creating the same queue at once can deadlock in pg-boss's DDL: Postgres aborts one,
    // which looks again once the other has committed.
    for (let attempt = 1; ; attempt++) {
      if (await this.boss.getQueue(queue)) return;
      try {
        await this.boss.createQueue(queue);
        return;
      } catch (err) {
        if (attempt >= 5) throw err;
        await this.pause(50 * attempt + Math.random() * 100);
      }
    }
  }

  /**
   * One statement for every queue named: pg-boss's own fetch (a `SKIP LOCKED` pick, `active`,
   * `started_on`, the retry count it bumps on a re-claim) with the holder written in the same UPDATE,
   * so concurrent claims never wait on each other, and a claim is one round trip whatever the number
   * of queues (before: a fetch per queue, then a second UPDATE for the holder). The oldest visible job
   * of any queue named goes first, as in the in-process engine: a runner serving several repositories
   * takes their attempts in the order they were made, none starved by another's backlog. A queue
   * nothing was ever sent to has no partition and simply matches nothing. Our queues use pg-boss's default (standard) policy,
   * which is why the singleton grouping of its fetch is not needed here.
   */
  async claim(queues: readonly string[], holder: string): Promise<LeasedJob | null> {
    const names = [...new Set(queues)];
    if (names.length === 0) return null;
    const { rows } = await this.sql(
      `WITH next AS (
         SELECT name, id FROM ${this.table}
          WHERE name = ANY($1::text[]) AND state < 'active' AND start_after < now()
          ORDER BY priority DESC, created_on, id
          LIMIT 1
          FOR UPDATE SKIP LOCKED
       )
       UPDATE ${this.table} j SET
         state = 'active',
         started_on = now(),
         retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END,
         output = jsonb_build_object('holder', $2::text)
       FROM next WHERE j.name = next.name AND j.id = next.id
       RETURNING j.name, j.id, j.data, j.retry_count, j.expire_in`,
      [names, holder],
    );
    const row = rows[0] as
      | { name: string; id: string; data: unknown; retry_count: number; expire_in: unknown }
      | undefined;
    if (!row) return null;
    return {
      queue: row.name,
      id: row.id,
      payload: row.data,
      retryCount: row.retry_count,
      holder,
      leaseSeconds: intervalSeconds(row.expire_in),
    };
  }

  async heartbeat(ref: JobRef, holder: string): Promise<void> {
    const { rows } = await this.sql(
      `UPDATE ${this.table} SET started_on = now()
        WHERE name = $1 AND id = $2 AND state = 'active' AND output->>'holder' = $3 RETURNING id`,
      [ref.queue, ref.id, holder],
    );
    if (rows.length === 0) await this.refuse(ref, holder);
  }

  /**
   * pg-boss's completion guarded by the holder, in one UPDATE: a lease that expired and went to
   * another runner between a read and the write can no longer be completed by the first. Only a
   * completion that changes nothing reads the job, to tell a repeat from a refusal.
   */
  async complete(ref: JobRef, holder: string, output?: unknown): Promise<{ applied: boolean }> {
    const { rows } = await this.sql(
      `UPDATE ${this.table} SET completed_on = now(), state = 'completed',
              output = jsonb_build_object('holder', $3::text, 'output', $4::jsonb)
        WHERE name = $1 AND id = $2 AND state = 'active' AND output->>'holder' = $3 RETURNING id`,
      [ref.queue, ref.id, holder, JSON.stringify(output ?? null)],
    );
    if (rows.length > 0) return { applied: true };
    const now = await this.mustGet(ref);
    if (now.state === 'completed' && now.holder === holder) return { applied: false };
    return this.refuse(ref, holder);
  }

  /**
   * pg-boss's fail (retry after its backoff while retries are left, else failed) guarded by the
   * holder, in one UPDATE: of two failers (a repeat, or a holder whose lease moved on meanwhile) only
   * the one holding the lease at the write applies it. Only a fail that changes nothing reads the job,
   * to tell a repeat from a refusal.
   */
  async fail(ref: JobRef, holder: string, error: string): Promise<{ applied: boolean }> {
    const { rows } = await this.sql(
      `UPDATE ${this.table} SET
         state = CASE WHEN retry_count < retry_limit THEN 'retry'::${this.jobState}
                      ELSE 'failed'::${this.jobState} END,
         start_after = CASE
           WHEN retry_count = retry_limit THEN start_after
           WHEN NOT retry_backoff THEN now() + retry_delay * interval '1'
           ELSE now() + (retry_delay * 2 ^ LEAST(16, retry_count + 1) / 2
                         + retry_delay * 2 ^ LEAST(16, retry_count + 1) / 2 * random()) * interval '1'
         END,
         completed_on = CASE WHEN retry_count < retry_limit THEN NULL ELSE now() END,
         output = jsonb_build_object('holder', $3::text, 'error', $4::text)
        WHERE name = $1 AND id = $2 AND state = 'active' AND output->>'holder' = $3 RETURNING id`,
      [ref.queue, ref.id, holder, error],
    );
    if (rows.length > 0) return { applied: true };
    const now = await this.mustGet(ref);
    if (now.state !== 'active' && now.holder === holder) return { applied: false };
    return this.refuse(ref, holder);
  }

  async get(ref: JobRef): Promise<JobInfo | undefined> {
    const j = await this.boss.getJobById<unknown>(ref.queue, ref.id, { includeArchive: true });
    if (!j) return undefined;
    const holder = holderOf(j.output);
    return {
      queue: ref.queue,
      id: ref.id,
      state: stateOf(j.state),
      payload: j.data,
      retryCount: j.retryCount,
      ...(holder ? { holder } : {}),
      output: unwrapOutput(j.output),
      leaseSeconds: intervalSeconds(j.expireIn),
    };
  }

  expireLeases(): Promise<void> {
    return this.boss.expire();
  }

  /**
   * pg-boss's expiry of every job `holder` holds, in one UPDATE, but visible at once: a retry (the next
   * claim counts it, as after an expiry) or, past the retry limit, failed.
   */
  async release(holder: string, error: string): Promise<DroppedJob[]> {
    const { rows } = await this.sql(
      `UPDATE ${this.table} SET
         state = CASE WHEN retry_count < retry_limit THEN 'retry'::${this.jobState}
                      ELSE 'failed'::${this.jobState} END,
         start_after = now(),
         completed_on = CASE WHEN retry_count < retry_limit THEN NULL ELSE now() END,
         output = jsonb_build_object('holder', $1::text, 'error', $2::text)
        WHERE state = 'active' AND output->>'holder' = $1
        RETURNING name, id, data, state`,
      [holder, error],
    );
    return rows.map(droppedOf);
  }

  /** Fails every unfinished job of `queue` for good, in one UPDATE. */
  async drop(queue: string, error: string): Promise<DroppedJob[]> {
    const { rows } = await this.sql(
      `UPDATE ${this.table} SET state = 'failed'::${this.jobState}, completed_on = now(),
              output = jsonb_build_object('error', $2::text) || COALESCE(output - 'output' - 'error', '{}'::jsonb)
        WHERE name = $1 AND state < 'completed'
        RETURNING name, id, data, state`,
      [queue, error],
    );
    return rows.map(droppedOf);
  }

  /** Drops the queue's schema (tests: one schema per test file). */
  async dropSchema(schema: string): Promise<void> {
    await this.sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`, []);
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, wait: true });
  }

  private async send(
    tx: SqlExecutor | undefined,
    queue: string,
    payload: unknown,
    opts: EnqueueOptions,
  ): Promise<string | null> {
    await this.ensureQueue(queue);
    // pg-boss's insert is one `INSERT … RETURNING id`: where the transaction batches, it goes out
    // with the other statements of this turn (the dispatch's run issue row, other dispatches).
    const batched = tx?.executeBatched?.bind(tx);
    const db = batched ? { executeSql: batched } : tx;
    return this.boss.send(queue, (payload ?? {}) as object, {
      ...(db ? { db: db as PgBoss.Db } : {}),
      ...(opts.singletonKey
        ? { id: singletonJobId(queue, opts.singletonKey), singletonKey: opts.singletonKey }
        : {}),
      ...(opts.runAfter ? { startAfter: opts.runAfter } : {}),
      retryLimit: opts.retryLimit ?? defaultEnqueue.retryLimit,
      retryDelay: opts.retryDelaySeconds ?? defaultEnqueue.retryDelaySeconds,
      retryBackoff: (opts.retryDelaySeconds ?? defaultEnqueue.retryDelaySeconds) > 0,
      expireInSeconds: opts.leaseSeconds ?? defaultEnqueue.leaseSeconds,
    });
  }

  private sql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
    return this.boss.getDb().executeSql(text, values);
  }

  private async mustGet(ref: JobRef): Promise<JobInfo> {
    const j = await this.get(ref);
    if (!j) throw new AppError('not_found', `No job ${ref.id} in ${ref.queue}.`);
    return j;
  }

  private async refuse(ref: JobRef, holder: string): Promise<never> {
    const j = await this.mustGet(ref);
    throw new AppError('conflict', `Job ${ref.id} is not leased to ${holder}.`, { state: j.state });
  }
}
