// One bot replica for `bench/replicas.bench.ts` and the kill -9 test (replicas-kill.test.ts), in a process of its own: the real webhook route
// (Hono on @hono/node-server, signature check, schema, normalise, delivery record, 202) and, after the
// answer, the real delivery queue processing each delivery into a dispatch of its issue (run row and
// queue job together, as `queue/dispatcher.ts` does). Started as
// `node --import tsx test/support/replica-process.ts <database-url> <name> <run id> [<pg-boss url> <schema>]`
// with the webhook secret in BENCH_WEBHOOK_SECRET; prints one JSON line `{ "port": N }` once it listens. Bench-only routes: `POST /bench/mark` starts counting this
// process's CPU, `POST /bench/idle` answers when every queued delivery is processed, with the CPU
// spent, the deliveries processed, the statements sent (by kind), its CPU by thread and the system calls and context
// switches made since the mark; `POST /bench/resume` with `{ "at": ISO }` runs the delivery retry's
// pass (`resumeUnprocessed`) as if at that time (a dead replica's leases have run out by then) and
// answers once what it took is processed. With BENCH_PROCESSED_LOG, each processed delivery id is
// appended to that file (synchronously: a kill -9 loses none it finished). SIGTERM drains, closes and exits.
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Webhooks } from '@octokit/webhooks';
import { Hono } from 'hono';
import pg from 'pg';
import { createApp } from '../../src/http/app.ts';
import { createDeliveryQueue } from '../../src/intake/delivery-queue.ts';
import { createReceiver, type ReceiveDeps, resumeUnprocessed } from '../../src/intake/receive.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { createDispatcher } from '../../src/queue/dispatcher.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { PgBossQueue } from '../../src/queue/pg-boss-queue.ts';
import type { JobQueue } from '../../src/queue/types.ts';
import { openRunStore, openStore } from '../../src/store/open-store.ts';

const entry = {
  name: 'noop',
  tool: 'custom',
  roles: ['blitz'],
  tiers: ['execution'],
  command: ['true'],
  resume: ['true'],
};

/** The attempt job of issue `n` (the delivery `d-<n>` is about it). */
const job = (runId: string, n: number) => ({
  kind: 'attempt' as const,
  runId,
  issue: { repo: { owner: 'bench', name: 'repo' }, number: n },
  title: `#${n}`,
  body: '',
  branchStyle: 'blitz' as const,
  runSlug: 'b',
  baseBranch: 'main',
  cloneUrl: 'file:///nowhere',
  entry: entry as never,
  tier: 'execution' as const,
});

/**
 * Statements this process sent, by kind (a prepared statement's name, else the first words of its
 * text): every pool's, pg-boss's too, all go through pg's Client. Counted so the bench can say what a
 * delivery costs in round trips, and how a second replica changes it.
 */
const statements = new Map<string, number>();
const kindOf = (config: unknown): string => {
  const c = (typeof config === 'string' ? { text: config } : (config ?? {})) as {
    name?: string;
    text?: string;
  };
  if (c.name) return c.name.startsWith('blitz-batch-') ? 'blitz-batch (dispatch rows and jobs)' : c.name;
  return (c.text ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
};
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
  const kind = kindOf(config);
  statements.set(kind, (statements.get(kind) ?? 0) + 1);
  return (query as (...a: unknown[]) => unknown).call(this, config, ...rest);
} as typeof pg.Client.prototype.query;

/** Linux's USER_HZ: /proc's CPU times are in these. */
const CLOCK_TICKS = 100;

/**
 * CPU (ms) of this process's JavaScript thread and of its other threads (V8's compiler and garbage
 * collector helpers, libuv's pool), from /proc: tells the work of the event loop from the background
 * work of a process, which a second replica pays again.
 */
const threadCpu = (): Record<string, number> => {
  const out: Record<string, number> = { 'cpu_ms main thread': 0, 'cpu_ms other threads': 0 };
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS);
      const key = tid === String(process.pid) ? 'cpu_ms main thread' : 'cpu_ms other threads';
      out[key] = out[key]! + ms;
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
};

/** This process's system calls and context switches so far (Linux's /proc; empty elsewhere). */
const osCounts = (): Record<string, number> => {
  const out: Record<string, number> = {};
  try {
    Object.assign(out, threadCpu());
    for (const line of readFileSync('/proc/self/io', 'utf8').split('\n')) {
      const [k, v] = line.split(': ');
      if (k === 'syscr' || k === 'syscw') out[k] = Number(v);
    }
    for (const line of readFileSync('/proc/self/status', 'utf8').split('\n')) {
      const [k, v] = line.split(':\t');
      if (k?.endsWith('ctxt_switches')) out[k] = Number(v);
    }
  } catch {
    // not Linux
  }
  return out;
};

const main = async () => {
  const [db, name, runId, bossUrl, bossSchema] = process.argv.slice(2);
  const secret = process.env.BENCH_WEBHOOK_SECRET;
  if (!db || !name || !runId || !secret)
    throw new Error(
      'usage: BENCH_WEBHOOK_SECRET=… replica-process.ts <database-url> <name> <run id> [<pg-boss url> <schema>]',
    );
  const logger = silentLogger();
  const queue: JobQueue = bossUrl
    ? await PgBossQueue.open({ connectionString: bossUrl, schema: bossSchema, logger })
    : new InProcessQueue();
  const store = await openStore(db);
  const runs = await openRunStore(db);
  const dispatcher = createDispatcher({ queue, store: runs, localHost: name });
  const deliveries = createDeliveryQueue({ logger });
  /** Deliveries this replica processed since the mark: over all replicas, each delivery once. */
  let processed = 0;
  const metrics = createMetrics();
  const processedLog = process.env.BENCH_PROCESSED_LOG;
  const deps: ReceiveDeps = {
    store,
    queue: deliveries,
    metrics,
    logger,
    holder: name,
    process: async (work) => {
      processed++;
      const n = Number(work.deliveryId.split('-')[1]);
      await dispatcher.attempt(job(runId, n), 1, (w) =>
        w.upsertRunIssue(runId, 'bench/repo', n, { state: 'dispatched', attempts: 1 }),
      );
      if (processedLog) appendFileSync(processedLog, `${work.deliveryId}\n`);
    },
  };
  const receive = createReceiver(deps);
  const webhooks = new Webhooks({ secret });
  const bot = createApp({
    store,
    metrics,
    logger,
    version: 'bench',
    receive,
    github: { verify: (p, s) => webhooks.verify(p, s) },
  });
  let cpu0 = process.cpuUsage();
  let os0 = osCounts();
  const app = new Hono()
    .post('/bench/mark', (c) => {
      cpu0 = process.cpuUsage();
      os0 = osCounts();
      statements.clear();
      processed = 0;
      return c.json({ ok: true });
    })
    .post('/bench/idle', async (c) => {
      await deliveries.idle();
      const cpu = process.cpuUsage(cpu0);
      const os = Object.entries(osCounts()).map(([k, v]) => [k, v - (os0[k] ?? 0)]);
      return c.json({
        cpuMs: (cpu.user + cpu.system) / 1000,
        processed,
        statements: Object.fromEntries(statements),
        os: Object.fromEntries(os),
      });
    })
    .post('/bench/resume', async (c) => {
      const { at } = (await c.req.json()) as { at: string };
      const resumed = await resumeUnprocessed({ ...deps, clock: { now: () => new Date(at) } });
      await deliveries.idle();
      return c.json({ resumed });
    });
  app.route('/', bot);
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  process.once('SIGTERM', () => {
    void (async () => {
      server.close();
      await deliveries.drain();
      await Promise.all([store.close(), runs.close()]);
      if (queue instanceof PgBossQueue) await queue.close();
      process.exit(0);
    })();
  });
};

await main();
