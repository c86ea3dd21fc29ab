// Queue figures: jobs per second dispatched end to end — enqueued on the bot, claimed over HTTP by
// `blitz-bot runner` processes, run, completed over HTTP — with 1, 2 and 4 runner processes, on the
// in-process queue (SQLite) and on pg-boss (PostgreSQL), side by side.
// Each job is a gate job that waits a fixed JOB_SECONDS on the runner (`sleep`), as a real runner
// mostly waits on its agent, with SESSIONS of them at once per runner, ROUNDS jobs per session.
// Until issue 19 the job was a no-op (`true`): four CPU-bound runner processes on a 2-core machine
// then measured the machine, not the claim path, and no server could have scaled linearly. With a
// fixed duration, n runners can reach n × SESSIONS / JOB_SECONDS jobs/s (printed as `ideal`), and
// only what the bot serialises in claim and completion keeps them from it — or the machine's cores:
// the CPU per job of the bot and of the runners (with the jobs they ran) is printed beside each rate
// (on this 2-core machine a runner spends tens of ms of CPU per job, mostly starting `sleep`, which is
// why a job lasts a second here: at 4 runners the ideal then needs under one core in all). The bot's
// CPU per job also bounds what one bot serves: 1000 / that many jobs/s per core.
// Baselines in the same run: that ideal rate, and enqueue → claim → complete on the in-process queue
// with no HTTP at all. The end of a run is the hub's last completion (an event), not a poll.
import { readFileSync, writeFileSync } from 'node:fs';
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

const RUNNERS = [1, 2, 4];
const SESSIONS = 4;
const ROUNDS = 6;
const JOB_SECONDS = 1;
/** Jobs of the direct (no HTTP) baseline. */
const DIRECT_JOBS = 2000;
/** A run that has not finished by then has lost jobs: the bench stops and says so. */
const RUN_DEADLINE_MS = 180_000;
const shared = attemptQueue('blitz', { owner: 'bench', name: 'repo' });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const job = {
  kind: 'gate',
  name: 'build',
  argv: ['sleep', String(JOB_SECONDS)],
  cwd: '.runner',
  timeoutSeconds: 60,
};

/** Throughput with n runners over n × the one-runner rate (1 = linear; the goal is ≥ 1/1.5). */
const scaling = (kind: string, rates: number[]): Figure[] =>
  RUNNERS.slice(1).map((n, i) => ({
    name: `queue.${kind}.runners_${n}.over_linear.ratio`,
    value: round(rates[i + 1]! / (n * rates[0]!), 2),
    unit: 'x',
  }));

/** The queue as the hub sees it, telling `finished` when the last of `jobs` completes (or one fails). */
const watched = (queue: JobQueue, jobs: number) => {
  let completed = 0;
  let settle!: (err?: Error) => void;
  const finished = new Promise<void>((done, failed) => {
    settle = (err) => (err ? failed(err) : done());
  });
  const wrapped: JobQueue = {
    engine: queue.engine,
    enqueue: (...a) => queue.enqueue(...a),
    claim: (...a) => queue.claim(...a),
    heartbeat: (...a) => queue.heartbeat(...a),
    get: (...a) => queue.get(...a),
    expireLeases: () => queue.expireLeases(),
    release: (...a) => queue.release(...a),
    drop: (...a) => queue.drop(...a),
    close: () => queue.close(),
    async complete(ref, holder, output) {
      const r = await queue.complete(ref, holder, output);
      if (r.applied && ++completed === jobs) settle();
      return r;
    },
    async fail(ref, holder, error) {
      settle(new Error(`bench job ${ref.id} failed on ${holder}: ${error}`));
      return queue.fail(ref, holder, error);
    },
  };
  return { queue: wrapped, finished };
};

interface Run {
  rate: number;
  /** CPU of the bot's process (HTTP, hub, queue, enqueue) per job, ms. */
  botCpuMs: number;
  /** CPU of the runner processes and the jobs they ran (`sleep`, collected children) per job, ms. */
  runnerCpuMs: number;
}

/** CPU a process and its collected children used so far, ms (/proc/<pid>/stat, 100 ticks a second). */
const processCpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (1-based).
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i]), 0) * 10;
};
const runnersCpuMs = (agents: { pid: number }[]): number =>
  agents.reduce((sum, a) => sum + processCpuMs(a.pid), 0);

const endToEnd = async (db: string, engine: JobQueue, runners: number): Promise<Run> => {
  const jobs = runners * SESSIONS * ROUNDS;
  const registry = await openRunnerRegistry(db);
  const { queue, finished } = watched(engine, jobs);
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
  let deadline: NodeJS.Timeout | undefined;
  try {
    for (let i = 0; i < runners; i++) {
      const { token } = await registry.createToken(`bench-${i}`);
      const dir = tempDir('blitz-bench-runner-');
      // SESSIONS gate jobs at once on each runner (the build gate's host-wide limit is 1 by default).
      const config = join(dir, 'blitz.config.yml');
      writeFileSync(config, `runner: {maxSessions: ${SESSIONS}, buildConcurrency: ${SESSIONS}}\n`);
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
            '--config',
            config,
            '--workspace',
            join(dir, 'ws'),
            '--poll-ms',
            '50',
          ),
          { cwd: resolve('.'), env: { ...testEnv(), LOG_LEVEL: 'warn' }, logFile: join(dir, 'agent.log') },
        ),
      );
    }
    while ((await registry.listTokens()).some((t) => !t.advert)) await sleep(50);
    const cpu0 = process.cpuUsage();
    const runnerCpu0 = runnersCpuMs(agents);
    const t0 = performance.now();
    for (let i = 0; i < jobs; i++) await queue.enqueue(shared, job);
    await Promise.race([
      finished,
      new Promise<never>((_, failed) => {
        deadline = setTimeout(
          () => failed(new Error(`bench: ${jobs} jobs did not all complete within ${RUN_DEADLINE_MS} ms`)),
          RUN_DEADLINE_MS,
        );
      }),
    ]);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return {
      rate: jobs / seconds,
      botCpuMs: (cpu.user + cpu.system) / 1000 / jobs,
      runnerCpuMs: (runnersCpuMs(agents) - runnerCpu0) / jobs,
    };
  } finally {
    clearTimeout(deadline);
    for (const a of agents) if (isAlive(a.pid)) killGroup(a.pid, 'SIGKILL');
    await new Promise<void>((r) => server.close(() => r()));
    await registry.close();
  }
};

const direct = async (): Promise<number> => {
  const queue = new InProcessQueue();
  const t0 = performance.now();
  for (let i = 0; i < DIRECT_JOBS; i++) await queue.enqueue(shared, job);
  for (let i = 0; i < DIRECT_JOBS; i++) {
    const leased = (await queue.claim([shared], 'direct'))!;
    await queue.complete(leased, 'direct', { ok: true });
  }
  return DIRECT_JOBS / ((performance.now() - t0) / 1000);
};

const runFigures = (kind: string, n: number, run: Run): Figure[] => [
  { name: `queue.${kind}.runners_${n}.jobs_per_s`, value: round(run.rate, 1), unit: 'jobs/s' },
  { name: `queue.${kind}.runners_${n}.bot_cpu_per_job.ms`, value: round(run.botCpuMs, 2), unit: 'ms' },
  { name: `queue.${kind}.runners_${n}.runner_cpu_per_job.ms`, value: round(run.runnerCpuMs, 2), unit: 'ms' },
];

const bench: Bench = async () => {
  // The runner processes run the compiled entry, as the `blitz-bot` bin does.
  buildDist();
  const figures: Figure[] = [
    { name: 'queue.baseline.direct_in_process.jobs_per_s', value: round(await direct(), 0), unit: 'jobs/s' },
    ...RUNNERS.map((n) => ({
      name: `queue.baseline.ideal.runners_${n}.jobs_per_s`,
      value: round((n * SESSIONS) / JOB_SECONDS, 1),
      unit: 'jobs/s',
    })),
  ];
  const embedded: number[] = [];
  for (const n of RUNNERS) {
    const run = await endToEnd(
      `sqlite:${join(tempDir('blitz-bench-q-'), 'blitz.db')}`,
      new InProcessQueue(),
      n,
    );
    embedded.push(run.rate);
    figures.push(...runFigures('in_process', n, run));
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
        const run = await endToEnd(schemas.urlFor(schema), queue, n);
        pg.push(run.rate);
        figures.push(...runFigures('postgres', n, run), {
          name: `queue.postgres_over_in_process.runners_${n}.ratio`,
          value: round(run.rate / embedded[i]!, 2),
          unit: 'x',
        });
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
