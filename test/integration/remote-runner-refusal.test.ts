// One worker per issue across remote runners. A runner that refuses an attempt job because its issue
// already has an open attempt says so with its own report (`refuse`, not `fail`), and the hub answers
// "done, nothing to do": the job completed, never retried, no attempt row changed. A stale job whose
// issue's attempt another runner holds is refused the same way by the hub itself: at the claim, or,
// when two claims race past that read, at the second `started` report (the ledger's unique index),
// after which the second runner's heartbeat is refused and it stops its copy. Through the bot's Hono
// app on 127.0.0.1 (real hub, SQLite ledger and registry, in-process queue), the real runner client
// and, for the runner's own refusal, an in-process runner agent running the fake agent CLI.
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBlitzConfig } from '../../src/config/blitz-config.ts';
import { createApp } from '../../src/http/app.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { attemptQueue } from '../../src/queue/runner-queues.ts';
import type { JobRef } from '../../src/queue/types.ts';
import { RunnerAgent } from '../../src/remote-runner/agent.ts';
import { createRunnerClient, type RunnerClient } from '../../src/remote-runner/client.ts';
import { createRunnerHub } from '../../src/remote-runner/hub.ts';
import type { AttemptResult } from '../../src/remote-runner/schema.ts';
import { isAlive, killGroup } from '../../src/runner/exec.ts';
import { JsonFileAttemptLedger } from '../../src/runner/ledger.ts';
import { openRunnerRegistry, openRunStore, openStore } from '../../src/store/open-store.ts';
import { memoryLogger } from '../support/blitz-harness.ts';
import { createOrigin, tempDir, testEnv } from '../support/git.ts';
import { attemptJob, fakeEntry } from '../support/runner-harness.ts';
import { until } from '../support/until.ts';

const repo = { owner: 'acme', name: 'app' };
const queueName = attemptQueue('blitz', repo);
const advert = { tools: ['custom'], roles: ['blitz'], repos: ['acme/app'], maxSessions: 2 };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const startBot = async () => {
  const db = `sqlite:${join(tempDir('blitz-refusal-'), 'blitz.db')}`;
  const registry = await openRunnerRegistry(db);
  const runs = await openRunStore(db);
  const queue = new InProcessQueue();
  const app = createApp({
    store: await openStore(db),
    metrics: createMetrics(),
    logger: silentLogger(),
    version: 't',
    receive: async () => {
      throw new Error('no webhook expected');
    },
    runnerHub: createRunnerHub({ queue, registry, ledger: runs.ledger, logger: silentLogger() }),
  });
  const server: ServerType = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.close(() => r());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
    () => runs.close(),
  );
  const client = async (name: string) =>
    createRunnerClient({ server: url, token: (await registry.createToken(name)).token });
  /** Two deliveries of one issue's attempt job: a stale one and the current one. */
  const enqueueTwo = async (origin: string): Promise<[JobRef, JobRef]> => {
    const job = attemptJob(origin, fakeEntry({ FAKE_AGENT_MODE: 'stall' }));
    const opts = { leaseSeconds: 120, retryDelaySeconds: 0, retryLimit: 2 };
    const first = await queue.enqueue(queueName, job, { ...opts, singletonKey: 'run-1:acme/app#7:1' });
    const second = await queue.enqueue(queueName, job, { ...opts, singletonKey: 'run-1:acme/app#7:2' });
    return [
      { queue: queueName, id: first! },
      { queue: queueName, id: second! },
    ];
  };
  return { queue, ledger: runs.ledger, client, enqueueTwo };
};

const result = (id: string): AttemptResult => ({
  id,
  runId: 'run-1',
  issue: { repo, number: 7 },
  retry: 0,
  launchedAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  originShaAtStart: null,
  nudges: 0,
  tokens: { input: 0, output: 0 },
});

const claim = async (c: RunnerClient) => {
  const res = await c.post('claim', {});
  expect(res.kind).toBe('delivered');
  return (res as { body: { job: { queue: string; id: string } | null } }).body.job;
};

const dropped = { kind: 'attempt', attemptIds: [], dropped: 'open_attempt' };

describe('a refused attempt job on remote runners', () => {
  it('the runner’s own refusal is its own report: the job is done, not retried, and one attempt is kept', async () => {
    const bot = await startBot();
    const origin = await createOrigin();
    const refs = await bot.enqueueTwo(origin.url);
    // The bot hears no report until both jobs are claimed: the hub's claim has no open attempt to
    // see, so both deliveries reach the runner, whose own ledger refuses the second.
    const real = await bot.client('host-a');
    const posted: string[] = [];
    let claimed = 0;
    let bothClaimed!: () => void;
    const claims = new Promise<void>((r) => {
      bothClaimed = r;
    });
    const client: RunnerClient = {
      post: async (path, body) => {
        if (path === 'reports') await claims;
        posted.push(path);
        const res = await real.post(path, body);
        const job = res.kind === 'delivered' && path === 'claim' && (res.body as { job?: unknown }).job;
        if (job && ++claimed === 2) bothClaimed();
        return res;
      },
    };
    const workspace = tempDir('blitz-refusal-ws-');
    const { logger, lines } = memoryLogger();
    const agent = new RunnerAgent({
      client,
      runnerConfig: { ...loadBlitzConfig(undefined, {}).runner, workspace, maxSessions: 2, sandbox: 'none' },
      baseEnv: testEnv(),
      repos: ['acme/app'],
      roles: ['blitz'],
      tools: ['custom'],
      logger,
      pollMs: 50,
      tickMs: 200,
    });
    const own = () => new JsonFileAttemptLedger(join(workspace, '.runner', 'attempts.json'));
    cleanups.push(async () => {
      agent.stop();
      for (const r of await own().listByRun('run-1'))
        if (r.pid !== undefined && isAlive(r.pid)) killGroup(r.pid, 'SIGKILL');
    });
    void agent.run();

    const jobs = async () => Promise.all(refs.map(async (r) => (await bot.queue.get(r))!));
    const refused = await until(
      'one of the two jobs completed as refused',
      async () => (await jobs()).find((j) => j.state === 'completed'),
      {
        timeoutMs: 30_000,
        detail: async () => `log ${lines.join('\n')}`,
      },
    );
    expect(refused).toMatchObject({ retryCount: 0, holder: 'host-a', output: dropped });
    const kept = (await jobs()).find((j) => j.id !== refused.id);
    expect(kept).toMatchObject({ state: 'active', holder: 'host-a', retryCount: 0 });
    expect(posted).toContain('refuse');
    expect(posted).not.toContain('fail');
    const worker = await until('the kept job’s worker started', async () =>
      (await own().listOpen()).find((r) => r.pid !== undefined),
    );

    // The bot keeps one attempt, the running one, under the kept job.
    const stored = await until('the bot recorded the attempt', async () => {
      const all = await bot.ledger.listByRun('run-1');
      return all.length > 0 ? all : undefined;
    });
    expect(stored.map((r) => [r.id, r.runner, r.outcome])).toEqual([[worker.id, 'host-a', undefined]]);
    expect((await own().listByRun('run-1')).map((r) => r.id)).toEqual([worker.id]);
  }, 60_000);

  it('a stale job whose issue’s attempt another runner holds is dropped at the claim, changing no attempt', async () => {
    const bot = await startBot();
    const [a, b] = [await bot.client('host-a'), await bot.client('host-b')];
    const [first, stale] = await bot.enqueueTwo('/nowhere/origin.git');
    // host-a takes the current delivery and starts its attempt.
    expect((await a.post('register', advert)).kind).toBe('delivered');
    expect(await claim(a)).toMatchObject(first);
    const started = { kind: 'started', job: first, seq: 1, attempt: result('att-a') };
    expect(await a.post('reports', started)).toMatchObject({ kind: 'delivered', body: { applied: true } });
    const before = await bot.ledger.listByRun('run-1');

    // host-b is offered nothing: the stale delivery is done, with nothing to do, and never retried.
    expect((await b.post('register', advert)).kind).toBe('delivered');
    expect(await claim(b)).toBeNull();
    expect(await bot.queue.get(stale)).toMatchObject({
      state: 'completed',
      holder: 'host-b',
      retryCount: 0,
      output: dropped,
    });
    expect(await bot.ledger.listByRun('run-1')).toEqual(before);
    expect(await bot.queue.get(first)).toMatchObject({ state: 'active', holder: 'host-a' });
  });

  it('two runners racing on one issue: the second `started` is refused, its job done and its lease gone', async () => {
    const bot = await startBot();
    const [a, b] = [await bot.client('host-a'), await bot.client('host-b')];
    const [first, stale] = await bot.enqueueTwo('/nowhere/origin.git');
    // Both claims come before either attempt is reported: the claim's read sees no open attempt.
    await a.post('register', advert);
    await b.post('register', advert);
    expect(await claim(a)).toMatchObject(first);
    expect(await claim(b)).toMatchObject(stale);
    const startedA = { kind: 'started', job: first, seq: 1, attempt: result('att-a') };
    const startedB = { kind: 'started', job: stale, seq: 1, attempt: result('att-b') };
    expect(await a.post('reports', startedA)).toMatchObject({ kind: 'delivered' });
    expect(await b.post('reports', startedB)).toMatchObject({ kind: 'refused', status: 409 });

    expect((await bot.ledger.listByRun('run-1')).map((r) => [r.id, r.runner])).toEqual([['att-a', 'host-a']]);
    expect(await bot.queue.get(stale)).toMatchObject({ state: 'completed', retryCount: 0, output: dropped });
    // host-b's heartbeat is refused: its agent stops the worker it started (agent.ts `heartbeats`).
    expect(await b.post('heartbeat', { job: stale })).toMatchObject({ kind: 'refused', status: 409 });
    expect(await a.post('heartbeat', { job: first })).toMatchObject({ kind: 'delivered' });
  });

  it('answers a refusal once, only from the job’s holder, and only with a reason it knows', async () => {
    const bot = await startBot();
    const [a, b] = [await bot.client('host-a'), await bot.client('host-b')];
    const [first] = await bot.enqueueTwo('/nowhere/origin.git');
    await a.post('register', advert);
    expect(await claim(a)).toMatchObject(first);
    expect(await b.post('refuse', { job: first, reason: 'open_attempt' })).toMatchObject({
      kind: 'refused',
      status: 409,
    });
    expect(await a.post('refuse', { job: first, reason: 'bored' })).toMatchObject({
      kind: 'refused',
      status: 400,
    });
    expect(await bot.queue.get(first)).toMatchObject({ state: 'active', holder: 'host-a' });
    expect(await a.post('refuse', { job: first, reason: 'open_attempt' })).toMatchObject({
      kind: 'delivered',
      body: { applied: true },
    });
    expect(await a.post('refuse', { job: first, reason: 'open_attempt' })).toMatchObject({
      kind: 'delivered',
      body: { applied: false },
    });
    expect(await bot.queue.get(first)).toMatchObject({ state: 'completed', retryCount: 0, output: dropped });
    expect(await bot.ledger.listByRun('run-1')).toEqual([]);
  });
});
