// The JobQueue contract, run against both engines: the in-process one (with a controllable clock)
// and pg-boss on the real PostgreSQL (a schema per test file; skipped with a reason when the
// database is unreachable, failed when CI is set).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/observability/logger.ts';
import { cronSlot, enqueueCronTick } from '../../src/queue/dispatch.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { openJobQueue, queueSchemaFor } from '../../src/queue/open-queue.ts';
import { PgBossQueue } from '../../src/queue/pg-boss-queue.ts';
import type { JobQueue } from '../../src/queue/types.ts';
import { moveJobTimesBack } from '../support/job-leases.ts';
import { pgTestUrl } from '../support/pg.ts';

const PG_URL = pgTestUrl();
const schema = `blitz_q_${process.pid}_${Date.now().toString(36)}`;

const reachable = async (): Promise<boolean> => {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
};
const pgUp = await reachable();
if (!pgUp) {
  if (process.env.CI) throw new Error(`PostgreSQL at ${PG_URL} is unreachable and CI is set`);
  console.warn(`skipping the pg-boss queue tests: PostgreSQL at ${PG_URL} is unreachable`);
}

interface Engine {
  queue: JobQueue;
  /** Lets `ms` pass for leases and backoff (a fake clock, or the jobs' rows moved back for Postgres). */
  advance(ms: number): Promise<void>;
}

const inProcess = (): Engine => {
  let t = Date.parse('2026-01-01T00:00:00Z');
  const queue = new InProcessQueue({ now: () => t });
  return {
    queue,
    advance: async (ms) => {
      t += ms;
    },
  };
};

let pgQueue: PgBossQueue | undefined;
let admin: pg.Pool | undefined;
/** The waits between tries of a failed queue creation, taken at once (no test sleeps through them). */
const creationPauses: number[] = [];
beforeAll(async () => {
  if (!pgUp) return;
  pgQueue = await PgBossQueue.open({
    connectionString: PG_URL,
    schema,
    logger: silentLogger(),
    pause: async (ms) => {
      creationPauses.push(ms);
    },
  });
  admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
});
afterAll(async () => {
  await admin?.end();
  if (pgQueue) {
    await pgQueue.dropSchema(schema);
    await pgQueue.close();
  }
});
// Time passes as pg-boss's own tests make it pass: the job rows' times move back, nothing sleeps.
const postgres = (): Engine => ({
  queue: pgQueue!,
  advance: (ms) => moveJobTimesBack(admin!, schema, ms),
});

let n = 0;
const fresh = () => `q${n++}-${Math.random().toString(36).slice(2, 8)}`;

const engines: [string, () => Engine, boolean][] = [
  ['in-process', inProcess, true],
  ['pg-boss', postgres, pgUp],
];

describe.each(engines)('job queue (%s)', (_name, make, enabled) => {
  it.runIf(enabled)('hands a job to one claimer only, and a completed job to nobody', async () => {
    const { queue } = make();
    const q = fresh();
    const id = await queue.enqueue(q, { n: 1 }, { leaseSeconds: 30 });
    const a = await queue.claim([q], 'runner-a');
    const b = await queue.claim([q], 'runner-b');
    expect(a).toMatchObject({ id, payload: { n: 1 }, retryCount: 0, holder: 'runner-a' });
    expect(b).toBeNull();
    expect(await queue.complete({ queue: q, id: id! }, 'runner-a', { ok: true })).toEqual({ applied: true });
    expect(await queue.complete({ queue: q, id: id! }, 'runner-a', { ok: true })).toEqual({ applied: false });
    expect(await queue.claim([q], 'runner-b')).toBeNull();
    expect(await queue.get({ queue: q, id: id! })).toMatchObject({ state: 'completed', holder: 'runner-a' });
  });

  it.runIf(enabled)(
    'refuses heartbeat, complete and fail from a runner that does not hold the lease',
    async () => {
      const { queue } = make();
      const q = fresh();
      const id = (await queue.enqueue(q, {}, { leaseSeconds: 30 }))!;
      await queue.claim([q], 'runner-a');
      const ref = { queue: q, id };
      await expect(queue.heartbeat(ref, 'runner-b')).rejects.toMatchObject({ code: 'conflict' });
      await expect(queue.complete(ref, 'runner-b')).rejects.toMatchObject({ code: 'conflict' });
      await expect(queue.fail(ref, 'runner-b', 'x')).rejects.toMatchObject({ code: 'conflict' });
      await expect(
        queue.heartbeat({ queue: q, id: '00000000-0000-4000-8000-000000000000' }, 'runner-a'),
      ).rejects.toMatchObject({
        code: 'not_found',
      });
      expect(await queue.get(ref)).toMatchObject({ state: 'active', holder: 'runner-a' });
    },
  );

  it.runIf(enabled)(
    'claims the oldest job of the queues named, whichever queue it is in (FIFO by creation)',
    async () => {
      const { queue } = make();
      const [first, second] = [fresh(), fresh()];
      const b1 = await queue.enqueue(second, { n: 'b1' });
      const a1 = await queue.enqueue(first, { n: 'a1' });
      const b2 = await queue.enqueue(second, { n: 'b2' });
      const a2 = await queue.enqueue(first, { n: 'a2' });
      const claimed = [];
      for (let i = 0; i < 5; i++) claimed.push((await queue.claim([first, second], 'a'))?.id ?? null);
      expect(claimed).toEqual([b1, a1, b2, a2, null]);
    },
  );

  it.runIf(enabled)('claims across the queues named, oldest first, past a queue never sent to', async () => {
    const { queue } = make();
    const [never, shared] = [fresh(), fresh()];
    const s1 = await queue.enqueue(shared, { n: 's1' });
    const s2 = await queue.enqueue(shared, { n: 's2' });
    const claimed = [];
    for (let i = 0; i < 3; i++) claimed.push((await queue.claim([never, shared], 'a'))?.id ?? null);
    expect(claimed).toEqual([s1, s2, null]);
    expect(await queue.get({ queue: shared, id: s2! })).toMatchObject({ state: 'active', holder: 'a' });
  });

  it.runIf(enabled)(
    'hands concurrent claimers distinct jobs, each to the holder that claimed it',
    async () => {
      const { queue } = make();
      const q = fresh();
      const ids = new Set<string>();
      for (let i = 0; i < 12; i++) ids.add((await queue.enqueue(q, { i }))!);
      const claims = await Promise.all(
        Array.from({ length: 16 }, (_, i) => queue.claim([q], `runner-${i % 4}`)),
      );
      const got = claims.filter((c) => c !== null);
      expect(got).toHaveLength(ids.size);
      expect(new Set(got.map((c) => c.id))).toEqual(ids);
      for (const c of got) {
        expect(await queue.get(c)).toMatchObject({ state: 'active', holder: c.holder });
        expect(await queue.complete(c, c.holder, { by: c.holder })).toEqual({ applied: true });
        expect(await queue.get(c)).toMatchObject({ state: 'completed', output: { by: c.holder } });
      }
    },
  );

  it.runIf(enabled)('keeps one job per singleton key, as a cron slot across replicas needs', async () => {
    const { queue } = make();
    const q = fresh();
    const first = await queue.enqueue(q, { tick: 1 }, { singletonKey: 'reconcile:2026-01-01T00:05' });
    const second = await queue.enqueue(q, { tick: 2 }, { singletonKey: 'reconcile:2026-01-01T00:05' });
    const other = await queue.enqueue(q, { tick: 3 }, { singletonKey: 'reconcile:2026-01-01T00:06' });
    expect(first).not.toBeNull();
    expect(second).toBeNull();
    expect(other).not.toBeNull();
    const claimed = [await queue.claim([q], 'a'), await queue.claim([q], 'a'), await queue.claim([q], 'a')];
    expect(claimed.map((j) => (j?.payload as { tick: number } | undefined)?.tick)).toEqual([1, 3, undefined]);
  });

  it.runIf(enabled)(
    'makes a job visible again when its holder stops heartbeating, then fails it past the limit',
    async () => {
      const e = make();
      const q = fresh();
      const id = (await e.queue.enqueue(q, {}, { leaseSeconds: 1, retryLimit: 1, retryDelaySeconds: 0 }))!;
      expect(await e.queue.claim([q], 'dead')).toMatchObject({ id, retryCount: 0 });
      await e.advance(1500);
      await e.queue.expireLeases();
      const again = await e.queue.claim([q], 'alive');
      expect(again).toMatchObject({ id, retryCount: 1, holder: 'alive' });
      await expect(e.queue.complete({ queue: q, id }, 'dead')).rejects.toMatchObject({ code: 'conflict' });
      await e.advance(1500);
      await e.queue.expireLeases();
      expect(await e.queue.claim([q], 'third')).toBeNull();
      expect(await e.queue.get({ queue: q, id })).toMatchObject({ state: 'failed' });
    },
  );

  it.runIf(enabled)('a heartbeat keeps the lease past its first term', async () => {
    const e = make();
    const q = fresh();
    const id = (await e.queue.enqueue(q, {}, { leaseSeconds: 2, retryDelaySeconds: 0 }))!;
    await e.queue.claim([q], 'a');
    await e.advance(1200);
    await e.queue.heartbeat({ queue: q, id }, 'a');
    await e.advance(1200);
    await e.queue.expireLeases();
    expect(await e.queue.get({ queue: q, id })).toMatchObject({ state: 'active', holder: 'a' });
  });

  it.runIf(enabled)(
    'release hands a gone holder’s jobs to the next claimer at once; drop fails every unfinished job of a queue for good',
    async () => {
      const { queue } = make();
      const [shared, host] = [fresh(), fresh()];
      // A holder of its own: the queue's schema is shared with the other tests of this file.
      const gone = `gone-${shared}`;
      const held = (await queue.enqueue(shared, { n: 1 }, { leaseSeconds: 600, retryDelaySeconds: 60 }))!;
      expect(await queue.claim([shared], gone)).toMatchObject({ id: held });
      const other = (await queue.enqueue(shared, { n: 2 }, { leaseSeconds: 600 }))!;
      expect(await queue.claim([shared], 'runner-b')).toMatchObject({ id: other });
      const onHost = (await queue.enqueue(host, { n: 3 }))!;
      expect(await queue.claim([host], gone)).toMatchObject({ id: onHost });
      const waiting = (await queue.enqueue(host, { n: 4 }))!;

      const released = await queue.release(gone, `${gone} is lost`);
      expect(released.map((j) => [j.id, j.state]).sort()).toEqual(
        [
          [held, 'queued'],
          [onHost, 'queued'],
        ].sort(),
      );
      // No backoff, and not runner-b's: its own job stays with it.
      expect(await queue.claim([shared], 'runner-c')).toMatchObject({ id: held, payload: { n: 1 } });
      expect(await queue.get({ queue: shared, id: other })).toMatchObject({
        state: 'active',
        holder: 'runner-b',
      });

      const dropped = await queue.drop(host, `${gone} is lost; its worktrees went with it`);
      expect(dropped.map((j) => j.id).sort()).toEqual([onHost, waiting].sort());
      for (const id of [onHost, waiting])
        expect(await queue.get({ queue: host, id })).toMatchObject({
          state: 'failed',
          output: { error: `${gone} is lost; its worktrees went with it` },
        });
      expect(await queue.claim([host], gone)).toBeNull();
      expect(await queue.drop(host, 'again')).toEqual([]);
    },
  );

  it.runIf(enabled)('retries a failed job with backoff, then fails it for good', async () => {
    const e = make();
    const q = fresh();
    const id = (await e.queue.enqueue(q, {}, { retryLimit: 1, retryDelaySeconds: 1 }))!;
    await e.queue.claim([q], 'a');
    expect(await e.queue.fail({ queue: q, id }, 'a', 'boom')).toEqual({ applied: true });
    expect(await e.queue.claim([q], 'a')).toBeNull();
    await e.advance(2600);
    expect(await e.queue.claim([q], 'a')).toMatchObject({ id, retryCount: 1 });
    await e.queue.fail({ queue: q, id }, 'a', 'boom');
    await e.advance(2600);
    expect(await e.queue.claim([q], 'a')).toBeNull();
    expect(await e.queue.get({ queue: q, id })).toMatchObject({ state: 'failed' });
  });
});

describe.runIf(pgUp)('pg-boss queue between replicas', () => {
  // What is tried: two replicas' queues (each its own pool) claiming one queue's jobs at once, then
  // each job's holder reporting its failure three times at once through both.
  it('hands each job to one claimer, and applies a fail once when it is reported concurrently', async () => {
    const other = await PgBossQueue.open({ connectionString: PG_URL, schema, logger: silentLogger() });
    try {
      const replicas = [pgQueue!, other];
      const q = fresh();
      const ids = new Set<string>();
      for (let i = 0; i < 16; i++)
        ids.add((await pgQueue!.enqueue(q, { i }, { retryLimit: 1, retryDelaySeconds: 60 }))!);
      const claims = await Promise.all(
        Array.from({ length: 24 }, (_, i) => replicas[i % 2]!.claim([q], `runner-${i % 6}`)),
      );
      const got = claims.filter((c) => c !== null);
      expect(got).toHaveLength(ids.size);
      expect(new Set(got.map((c) => c.id))).toEqual(ids);

      const fails = await Promise.all(
        got.flatMap((c) =>
          [0, 1, 2].map(async (n) => ({
            id: c.id,
            applied: (await replicas[n % 2]!.fail(c, c.holder, `boom ${n}`)).applied,
          })),
        ),
      );
      for (const c of got) {
        expect(fails.filter((f) => f.id === c.id && f.applied)).toHaveLength(1);
        // Failed once: back in the queue for its one retry after the backoff, its last holder named.
        expect(await pgQueue!.get(c)).toMatchObject({ state: 'queued', retryCount: 0, holder: c.holder });
      }
      expect(await other.claim([q], 'late')).toBeNull();
      // Another runner's fail of a job it does not hold is refused, and changes nothing.
      await moveJobTimesBack(admin!, schema, 121_000);
      const again = (await other.claim([q], 'runner-x'))!;
      expect(again).toMatchObject({ retryCount: 1 });
      await expect(pgQueue!.fail(again, 'runner-y', 'not mine')).rejects.toMatchObject({ code: 'conflict' });
      expect(await pgQueue!.get(again)).toMatchObject({ state: 'active', holder: 'runner-x' });
    } finally {
      await other.close();
    }
  });
});

describe.runIf(pgUp)('pg-boss queue creation', () => {
  // What is tried: eight first dispatches to one new queue at once, as a replica's first
  // deliveries make them; then a creation that fails.
  it('shares one creation between callers asking for the same new queue at once', async () => {
    const queue = pgQueue!;
    const boss = (queue as unknown as { boss: { createQueue(name: string): Promise<void> } }).boss;
    const create = vi.spyOn(boss, 'createQueue');
    try {
      const q = fresh();
      await Promise.all(Array.from({ length: 8 }, () => queue.ensureQueue(q)));
      expect(create.mock.calls.filter(([name]) => name === q)).toHaveLength(1);
      const id = await queue.enqueue(q, { n: 1 });
      expect(await queue.claim([q], 'a')).toMatchObject({ id, payload: { n: 1 } });
    } finally {
      create.mockRestore();
    }
  });

  it('does not remember a failed creation: the next caller tries again', async () => {
    const queue = pgQueue!;
    const boss = (queue as unknown as { boss: { createQueue(name: string): Promise<void> } }).boss;
    const q = fresh();
    const create = vi.spyOn(boss, 'createQueue').mockRejectedValue(new Error('DDL refused'));
    creationPauses.length = 0;
    try {
      const both = [queue.ensureQueue(q), queue.ensureQueue(q)];
      for (const p of both) await expect(p).rejects.toThrow('DDL refused');
      // Five tries (its retries on a deadlock), shared by both callers, a growing pause between each.
      expect(create).toHaveBeenCalledTimes(5);
      expect(creationPauses).toHaveLength(4);
      creationPauses.forEach((ms, i) => {
        expect(ms).toBeGreaterThanOrEqual(50 * (i + 1));
        expect(ms).toBeLessThan(50 * (i + 1) + 100);
      });
    } finally {
      create.mockRestore();
    }
    await queue.ensureQueue(q);
    expect(await queue.enqueue(q, {})).not.toBeNull();
  });
});

describe.runIf(pgUp)('pg-boss enqueue in the caller transaction', () => {
  it('leaves no job after a rollback and exactly one, beside its state row, after a commit', async () => {
    const queue = pgQueue!;
    const q = fresh();
    await queue.ensureQueue(q);
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`CREATE TABLE "${schema}".decisions (issue INTEGER PRIMARY KEY)`);
      const tx = { executeSql: (text: string, values?: unknown[]) => client.query(text, values) };
      await client.query('BEGIN');
      await client.query(`INSERT INTO "${schema}".decisions VALUES (1)`);
      const rolled = await queue.enqueueInTransaction(tx, q, { issue: 1 });
      expect(rolled).not.toBeNull();
      await client.query('ROLLBACK');
      expect(await queue.get({ queue: q, id: rolled! })).toBeUndefined();
      expect(await queue.claim([q], 'a')).toBeNull();

      await client.query('BEGIN');
      await client.query(`INSERT INTO "${schema}".decisions VALUES (2)`);
      const committed = await queue.enqueueInTransaction(tx, q, { issue: 2 });
      // Not visible to anyone before the commit.
      expect(await queue.claim([q], 'a')).toBeNull();
      await client.query('COMMIT');
      const rows = await client.query(`SELECT issue FROM "${schema}".decisions`);
      expect(rows.rows).toEqual([{ issue: 2 }]);
      expect(await queue.claim([q], 'a')).toMatchObject({ id: committed, payload: { issue: 2 } });
      expect(await queue.claim([q], 'a')).toBeNull();
    } finally {
      await client.end();
    }
  });
});

describe.runIf(pgUp)('cron ticks across two bot replicas on one PostgreSQL', () => {
  it('enqueue one job per slot, whichever replica ticks first', async () => {
    const other = await PgBossQueue.open({ connectionString: PG_URL, schema, logger: silentLogger() });
    try {
      const at = new Date();
      const [a, b] = await Promise.all([
        enqueueCronTick(pgQueue!, 'reconcile', at, 300),
        enqueueCronTick(other, 'reconcile', at, 300),
      ]);
      expect([a, b].filter((x) => x !== null)).toHaveLength(1);
      expect(await other.claim(['cron/reconcile'], 'replica-b')).toMatchObject({
        payload: { slot: cronSlot(at, 300) },
      });
      expect(await pgQueue!.claim(['cron/reconcile'], 'replica-a')).toBeNull();
    } finally {
      await other.close();
    }
  });
});

describe('openJobQueue', () => {
  it('opens the in-process queue for SQLite', async () => {
    const q = await openJobQueue('sqlite::memory:', { logger: silentLogger() });
    expect(q.engine).toBe('in-process');
  });

  it.runIf(pgUp)('opens pg-boss in <schema>_jobs for a Postgres DATABASE_URL with a schema', async () => {
    const store = `${schema}_s`;
    const url = new URL(PG_URL);
    url.searchParams.set('schema', store);
    const q = await openJobQueue(url.toString(), { logger: silentLogger() });
    try {
      expect(q.engine).toBe('postgres');
      const id = await q.enqueue('probe', { ok: true });
      expect(await q.get({ queue: 'probe', id: id! })).toMatchObject({ state: 'queued' });
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      const found = await c.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [
        queueSchemaFor(store),
      ]);
      await c.end();
      expect(found.rowCount).toBe(1);
    } finally {
      await (q as PgBossQueue).dropSchema(queueSchemaFor(store));
      await q.close();
    }
  });
});
