// Queue figures: jobs per second dispatched end to end — enqueued on the bot, claimed over HTTP by
// `blitz-bot runner` processes, run (a no-op gate job: `true`), completed over HTTP — with 1, 2 and
// 4 runner processes, on the in-process queue (SQLite) and on pg-boss (PostgreSQL), side by side.
// Baseline in the same run: enqueue → claim → complete on the in-process queue with no HTTP at all.
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { createApp } from '../src/http/app.ts';
import { silentLogger } from '../src/observability/logger.ts';
import { createMetrics } from '../src/observability/metrics.ts';
import { InProcessQueue } from '../src/queue/in-process-queue.ts';
import { PgBossQueue } from '../src/queue/pg-boss-queue.ts';
import { attemptQueue } from '../src/queue/runner-queues.ts';
import type { JobQueue } from '../src/queue/types.ts';
import { createRunnerHub } from '../src/remote-runner/hub.ts';
import { isAlive, killGroup, spawnDetached } from '../src/runner/exec.ts';
import { openRunnerRegistry, openRunStore, openStore } from '../src/store/open-store.ts';
import buildDist from '../test/support/build-dist.ts';
import { blitzBotArgv } from '../test/support/cli.ts';
import { tempDir, testEnv } from '../test/support/git.ts';
import { pgTestUrl, postgresAvailable, testSchemas } from '../test/support/pg.ts';
import { type Bench, type Figure, round } from './figures.ts';

const JOBS = 120;
const RUNNERS = [1, 2, 4];
const shared = attemptQueue('blitz', { owner: 'bench', name: 'repo' });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const noop = { kind: 'gate', name: 'build', argv: ['true'], cwd: '.runner', timeoutSeconds: 60 };

/** Throughput with n runners over n × the one-runner rate (1 = linear; the goal is ≥ 1/1.5). */
const scaling = (kind: string, rates: number[]): Figure[] =>
  RUNNERS.slice(1).map((n, i) => ({
    name: `queue.${kind}.runners_${n}.over_linear.ratio`,
    value: round(rates[i + 1]! / (n * rates[0]!), 2),
    unit: 'x',
  }));

const endToEnd = async (db: string, queue: JobQueue, runners: number): Promise<number> => {
  const registry = await openRunnerRegistry(db);
  const app = createApp({
    store: await openStore(db),
    metrics: createMetrics(),
    logger: silentLogger(),
    version: 'bench',
    receive: async () => ({ status: 202 }) as never,
    runnerHub: createRunnerHub({
      queue,
      registry,
      ledger: (await openRunStore(db)).ledger,
      logger: silentLogger(),
    }),
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agents: { pid: number }[] = [];
  try {
    for (let i = 0; i < runners; i++) {
      const { token } = await registry.createToken(`bench-${i}`);
      const dir = tempDir('blitz-bench-runner-');
      agents.push(
        spawnDetached(
          blitzBotArgv(
            'runner',
            '--server',
            url,
            '--token',
            token,
            '--repos',
            'bench/repo',
            '--roles',
            'blitz',
            '--tools',
            'custom',
            '--workspace',
            join(dir, 'ws'),
            '--max-sessions',
            '4',
            '--poll-ms',
            '50',
          ),
          { cwd: resolve('.'), env: { ...testEnv(), LOG_LEVEL: 'warn' }, logFile: join(dir, 'agent.log') },
        ),
      );
    }
    while ((await registry.listTokens()).some((t) => !t.advert)) await sleep(50);
    const t0 = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) ids.push((await queue.enqueue(shared, noop))!);
    let pending = ids;
    while (pending.length > 0) {
      await sleep(20);
      const states = await Promise.all(pending.map((id) => queue.get({ queue: shared, id })));
      pending = pending.filter((_, i) => states[i]?.state !== 'completed');
    }
    return JOBS / ((performance.now() - t0) / 1000);
  } finally {
    for (const a of agents) if (isAlive(a.pid)) killGroup(a.pid, 'SIGKILL');
    await new Promise<void>((r) => server.close(() => r()));
    await registry.close();
  }
};

const direct = async (): Promise<number> => {
  const queue = new InProcessQueue();
  const t0 = performance.now();
  for (let i = 0; i < JOBS; i++) await queue.enqueue(shared, noop);
  for (let i = 0; i < JOBS; i++) {
    const job = (await queue.claim([shared], 'direct'))!;
    await queue.complete(job, 'direct', { ok: true });
  }
  return JOBS / ((performance.now() - t0) / 1000);
};

const bench: Bench = async () => {
  // The runner processes run the compiled entry, as the `blitz-bot` bin does.
  buildDist();
  const figures: Figure[] = [
    { name: 'queue.baseline.direct_in_process.jobs_per_s', value: round(await direct(), 0), unit: 'jobs/s' },
  ];
  const embedded: number[] = [];
  for (const n of RUNNERS) {
    const rate = await endToEnd(
      `sqlite:${join(tempDir('blitz-bench-q-'), 'blitz.db')}`,
      new InProcessQueue(),
      n,
    );
    embedded.push(rate);
    figures.push({ name: `queue.in_process.runners_${n}.jobs_per_s`, value: round(rate, 1), unit: 'jobs/s' });
  }
  figures.push(...scaling('in_process', embedded), {
    name: 'queue.over_linear.goal',
    value: round(1 / 1.5, 2),
    unit: 'x',
  });
  if (!(await postgresAvailable())) return figures;
  const pg: number[] = [];
  const schemas = testSchemas();
  try {
    for (const [i, n] of RUNNERS.entries()) {
      const schema = await schemas.create();
      const queue = await PgBossQueue.open({
        connectionString: pgTestUrl(),
        schema: `${schema}_boss`,
        logger: silentLogger(),
      });
      try {
        const rate = await endToEnd(schemas.urlFor(schema), queue, n);
        pg.push(rate);
        figures.push(
          { name: `queue.postgres.runners_${n}.jobs_per_s`, value: round(rate, 1), unit: 'jobs/s' },
          {
            name: `queue.postgres_over_in_process.runners_${n}.ratio`,
            value: round(rate / embedded[i]!, 2),
            unit: 'x',
          },
        );
      } finally {
        await queue.dropSchema(`${schema}_boss`);
        await queue.close();
      }
    }
  } finally {
    await schemas.dropAll();
  }
  figures.push(...scaling('postgres', pg));
  return figures;
};

export default bench;
