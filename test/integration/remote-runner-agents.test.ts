// Slow for a reason (~30 s): eight `blitz-bot runner` processes and their workers, per queue engine.
// `blitz-bot runner` agents as real child processes against the bot's Hono app on 127.0.0.1 (the bot
// side in-process, in-memory queue, SQLite registry and ledger), running the fake agent CLI on a
// bare origin: one job claimed by one runner and reported once; a runner killed mid-job loses its
// lease (run out by the queue's clock or by moving the row's start back, not waited for) and the other
// runner retries the job; the bot away for a while, the runner buffers and flushes, and nothing is
// lost or doubled — also when its buffer is flushed by hand a second time.
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { PgBossQueue } from '../../src/queue/pg-boss-queue.ts';
import { attemptQueue } from '../../src/queue/runner-queues.ts';
import type { JobQueue, JobRef } from '../../src/queue/types.ts';
import { createRunnerHub, remoteAttemptRecord } from '../../src/remote-runner/hub.ts';
import { attemptResultOf } from '../../src/remote-runner/schema.ts';
import { isAlive, killGroup, run, spawnDetached } from '../../src/runner/exec.ts';
import { JsonFileAttemptLedger } from '../../src/runner/ledger.ts';
import { type AttemptLedger, type AttemptRecord, attemptJobSchema } from '../../src/runner/types.ts';
import { openRunnerRegistry, openRunStore, openStore } from '../../src/store/open-store.ts';
import type { RunnerRegistry } from '../../src/store/runner-tokens.ts';
import { blitzBotArgv } from '../support/cli.ts';
import { createOrigin, originSha, tempDir, testEnv } from '../support/git.ts';
import { expireLeaseNow } from '../support/job-leases.ts';
import { pgTestUrl, postgresAvailable, testSchemas } from '../support/pg.ts';
import { attemptJob, fakeEntry } from '../support/runner-harness.ts';
import { until } from '../support/until.ts';

const repo = { owner: 'acme', name: 'app' };
const queueName = attemptQueue('blitz', repo);

interface Bot {
  queue: JobQueue;
  /** Runs out the lease of an active job now, as if its holder had stopped heartbeating long ago. */
  expireLease(ref: JobRef): Promise<void>;
  registry: RunnerRegistry;
  ledger: AttemptLedger;
  port: number;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const pgUp = await postgresAvailable();
const schemas = testSchemas();
afterAll(() => schemas.dropAll());

/** The bot's state: SQLite and the in-process queue, or PostgreSQL and pg-boss (a schema per bot). */
type Engine = () => Promise<{ url: string; queue: JobQueue; expireLease(ref: JobRef): Promise<void> }>;
const embedded: Engine = async () => {
  // The in-process queue's clock, moved forward past a lease instead of waiting it out.
  let skewMs = 0;
  const queue = new InProcessQueue({ now: () => Date.now() + skewMs });
  return {
    url: `sqlite:${join(tempDir('blitz-bot-'), 'blitz.db')}`,
    queue,
    async expireLease(ref) {
      const job = await queue.get(ref);
      if (job?.state !== 'active') throw new Error(`job ${ref.id} is not active: no lease to expire`);
      skewMs += (job.leaseSeconds + 1) * 1000;
    },
  };
};
const postgres: Engine = async () => {
  const schema = await schemas.create();
  const queue = await PgBossQueue.open({
    connectionString: pgTestUrl(),
    schema: `${schema}_boss`,
    logger: silentLogger(),
    maintenanceIntervalSeconds: 1,
  });
  closers.push(async () => {
    await (queue as PgBossQueue).dropSchema(`${schema}_boss`);
    await queue.close();
  });
  return {
    url: schemas.urlFor(schema),
    queue,
    expireLease: (ref) => expireLeaseNow(schemas.admin, `${schema}_boss`, queue, ref),
  };
};
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of closers.splice(0)) await c();
});

const startBot = async (engine: Engine): Promise<Bot> => {
  const { url: db, queue, expireLease } = await engine();
  const registry = await openRunnerRegistry(db);
  const ledger = (await openRunStore(db)).ledger;
  const app = createApp({
    store: await openStore(db),
    metrics: createMetrics(),
    logger: silentLogger(),
    version: 't',
    receive: async () => {
      throw new Error('no webhook expected');
    },
    runnerHub: createRunnerHub({ queue, registry, ledger, logger: silentLogger() }),
  });
  let server: ServerType | undefined;
  let port = 0;
  const bot: Bot = {
    queue,
    expireLease,
    registry,
    ledger,
    port,
    url: '',
    async start() {
      server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
      await new Promise<void>((r) => server!.once('listening', () => r()));
      port = (server.address() as AddressInfo).port;
      bot.port = port;
      bot.url = `http://127.0.0.1:${port}`;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      await new Promise<void>((r) => {
        s.close(() => r());
        (s as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
  await bot.start();
  return bot;
};

const started: { pid: number }[] = [];
afterEach(() => {
  for (const p of started.splice(0)) if (isAlive(p.pid)) killGroup(p.pid, 'SIGKILL');
});

const startAgent = (bot: Bot, token: string, workspace: string) => {
  const config = join(workspace, '..', 'blitz.config.yml');
  writeFileSync(config, 'runner:\n  retries: 0\n  maxSessions: 1\n');
  const logFile = join(workspace, '..', `agent-${started.length}.log`);
  const child = spawnDetached(
    blitzBotArgv(
      'runner',
      '--server',
      bot.url,
      '--token',
      token,
      '--repos',
      'acme/app',
      '--roles',
      'blitz',
      '--tools',
      'custom',
      '--workspace',
      workspace,
      '--poll-ms',
      '200',
      '--tick-ms',
      '200',
      '--config',
      config,
    ),
    { cwd: resolve('.'), env: { ...testEnv(), LOG_LEVEL: 'info' }, logFile },
  );
  started.push(child);
  return { ...child, logFile, buffer: join(workspace, '.runner', 'buffer.jsonl') };
};

// What is awaited is the state of the runner processes and the bot, seen from outside.
const waitFor = <T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 40_000) =>
  until(what, fn, { timeoutMs: ms, everyMs: 150 });

/**
 * An attempt the bot recorded whose worker the runner has started, with the worker's pid from the
 * runner's own ledger on its host (the bot keeps no pid of a runner's host).
 */
const runningOn = async (bot: Bot, workspace: string) => {
  const own = new JsonFileAttemptLedger(join(workspace, '.runner', 'attempts.json'));
  for (const r of await bot.ledger.listByRun('run-1')) {
    const mine = await own.get(r.id);
    if (mine?.pid !== undefined) return { ...r, pid: mine.pid };
  }
  return undefined;
};

const enqueue = async (bot: Bot, origin: string, agentEnv: Record<string, string>, leaseSeconds: number) =>
  (await bot.queue.enqueue(queueName, attemptJob(origin, fakeEntry(agentEnv)), {
    leaseSeconds,
    retryDelaySeconds: 0,
    retryLimit: 2,
  }))!;

const engines: [string, Engine, boolean][] = [
  ['in-process queue, SQLite', embedded, true],
  ['pg-boss queue, PostgreSQL', postgres, pgUp],
];

describe.each(engines)('blitz-bot runner agents (%s)', (_name, engine, enabled) => {
  it.runIf(enabled)(
    'a job is claimed by one of two runners, its attempt reported once, the job completed once',
    async () => {
      const bot = await startBot(engine);
      const origin = await createOrigin();
      const a = await bot.registry.createToken('host-a');
      const b = await bot.registry.createToken('host-b');
      startAgent(bot, a.token, join(tempDir('blitz-ra-'), 'ws'));
      startAgent(bot, b.token, join(tempDir('blitz-rb-'), 'ws'));
      const id = await enqueue(bot, origin.url, { FAKE_AGENT_MODE: 'push' }, 30);
      const job = await waitFor('the job to complete', async () => {
        const j = await bot.queue.get({ queue: queueName, id });
        return j?.state === 'completed' ? j : undefined;
      });
      const attempts = await bot.ledger.listByRun('run-1');
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ outcome: 'solved', issue: { number: 7 } });
      expect(job.holder).toMatch(/^host-[ab]$/);
      expect(job.output).toMatchObject({ kind: 'attempt', attemptIds: [attempts[0]!.id], outcome: 'solved' });
      expect(await originSha(origin.url, attempts[0]!.branch)).not.toBeNull();
      const receipts = await bot.registry.listReceiptsByJob(queueName, id);
      expect(receipts.map((r) => r.runnerName)).toEqual([job.holder]);
      await bot.stop();
    },
    60_000,
  );

  it.runIf(enabled)(
    'a runner killed mid-job loses its lease and the other runner retries the job',
    async () => {
      const bot = await startBot(engine);
      const origin = await createOrigin();
      const a = await bot.registry.createToken('host-a');
      const b = await bot.registry.createToken('host-b');
      const wsA = join(tempDir('blitz-ra-'), 'ws');
      const agentA = startAgent(bot, a.token, wsA);
      const id = await enqueue(
        bot,
        origin.url,
        { FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '3000' },
        30,
      );
      const first = await waitFor('host-a to report its worker', () => runningOn(bot, wsA));
      // The host dies: the agent and the worker it started. Its lease runs out (moved, not waited for).
      process.kill(agentA.pid, 'SIGKILL');
      killGroup(first.pid!, 'SIGKILL');
      startAgent(bot, b.token, join(tempDir('blitz-rb-'), 'ws'));
      await bot.expireLease({ queue: queueName, id });
      const job = await waitFor('the job to complete on host-b', async () => {
        const j = await bot.queue.get({ queue: queueName, id });
        return j?.state === 'completed' ? j : undefined;
      });
      expect(job).toMatchObject({ holder: 'host-b', retryCount: 1 });
      const attempts = await bot.ledger.listByRun('run-1');
      expect(attempts.map((r) => r.outcome).sort()).toEqual(['environment_failure', 'solved']);
      expect(attempts.find((r) => r.id === first.id)).toMatchObject({ outcome: 'environment_failure' });
      const solved = attempts.find((r) => r.outcome === 'solved')!;
      expect(await originSha(origin.url, solved.branch)).not.toBeNull();
      await bot.stop();
    },
    60_000,
  );

  it.runIf(enabled)(
    'a runner restarted mid-job takes its job back and reports the attempt its worker finished',
    async () => {
      const bot = await startBot(engine);
      const origin = await createOrigin();
      const a = await bot.registry.createToken('host-a');
      const workspace = join(tempDir('blitz-ra-'), 'ws');
      const first = startAgent(bot, a.token, workspace);
      const id = await enqueue(
        bot,
        origin.url,
        { FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '3000' },
        20,
      );
      const attempt = await waitFor('the worker to start', () => runningOn(bot, workspace));
      process.kill(first.pid, 'SIGKILL');
      expect(isAlive(attempt.pid!)).toBe(true);
      startAgent(bot, a.token, workspace);
      const job = await waitFor('the job to complete', async () => {
        const j = await bot.queue.get({ queue: queueName, id });
        return j?.state === 'completed' ? j : undefined;
      });
      expect(job).toMatchObject({ holder: 'host-a', retryCount: 0 });
      expect(await bot.ledger.listByRun('run-1')).toEqual([
        expect.objectContaining({ id: attempt.id, runner: 'host-a', outcome: 'solved' }),
      ]);
      // The worker the first agent started is the one that finished (re-attached, not started again).
      const own = new JsonFileAttemptLedger(join(workspace, '.runner', 'attempts.json'));
      expect((await own.get(attempt.id))?.pid).toBe(attempt.pid);
      await bot.stop();
    },
    60_000,
  );

  it.runIf(enabled)(
    'the bot away for a while: the runner buffers, flushes when it is back, and a second flush changes nothing',
    async () => {
      const bot = await startBot(engine);
      const origin = await createOrigin();
      const a = await bot.registry.createToken('host-a');
      const ws = join(tempDir('blitz-ra-'), 'ws');
      const agent = startAgent(bot, a.token, ws);
      const id = await enqueue(
        bot,
        origin.url,
        { FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '2500' },
        60,
      );
      const first = await waitFor('the worker to start', () => runningOn(bot, ws));
      await bot.stop();
      // While the bot is away the worker finishes and the runner buffers its reports and the result.
      const buffered = await waitFor('the completion in the buffer', () =>
        existsSync(agent.buffer) && readFileSync(agent.buffer, 'utf8').includes('"complete"')
          ? readFileSync(agent.buffer, 'utf8')
          : undefined,
      );
      expect(buffered).toContain('"solved"');
      const copy = join(tempDir('blitz-copy-'), 'buffer.jsonl');
      copyFileSync(agent.buffer, copy);
      expect((await bot.ledger.get(first.id))?.outcome).toBeUndefined();

      await bot.start();
      const job = await waitFor('the job to complete after the flush', async () => {
        const j = await bot.queue.get({ queue: queueName, id });
        return j?.state === 'completed' ? j : undefined;
      });
      expect(job.holder).toBe('host-a');
      await waitFor('the buffer to drain', () => !existsSync(agent.buffer));
      const after = await bot.ledger.listByRun('run-1');
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ id: first.id, outcome: 'solved' });
      const local = JSON.parse(readFileSync(join(agent.buffer, '..', 'attempts.json'), 'utf8')) as {
        attempts: unknown[];
      };
      // The bot's record: the job it stored, the runner that reported, the runner's results only.
      const mine = local.attempts[0] as AttemptRecord;
      expect(after[0]).toEqual(
        remoteAttemptRecord('host-a', attemptJobSchema.parse(job.payload), attemptResultOf(mine)),
      );
      expect(after[0]).toMatchObject({ worktree: '', exitPath: '', runner: 'host-a', branch: mine.branch });
      expect(after[0]?.pid).toBeUndefined();

      // A wrong token: the bot refuses, the buffer stays as it was.
      const wrong = await run(
        blitzBotArgv('runner', 'flush', copy, '--server', bot.url, '--token', 'brt_0000000000000000_x'),
        { cwd: resolve('.'), env: { ...testEnv(), LOG_LEVEL: 'silent' }, timeoutMs: 30_000 },
      );
      expect(wrong.exitCode).toBe(1);
      expect(readFileSync(copy, 'utf8')).toBe(buffered);
      // By hand, a second time, with the right token: delivered again, nothing changes.
      const flushed = await run(
        blitzBotArgv('runner', 'flush', copy, '--server', bot.url, '--token', a.token),
        { cwd: resolve('.'), env: { ...testEnv(), LOG_LEVEL: 'silent' }, timeoutMs: 30_000 },
      );
      expect(flushed.exitCode).toBe(0);
      expect(JSON.parse(flushed.stdout)).toMatchObject({ remaining: 0 });
      expect(await bot.ledger.listByRun('run-1')).toEqual(after);
      expect(await bot.queue.get({ queue: queueName, id })).toEqual(job);
      await bot.stop();
    },
    90_000,
  );
});
