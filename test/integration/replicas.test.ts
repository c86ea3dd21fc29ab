// Issue 9 acceptance on the real PostgreSQL: two bot replicas (in-process, each with its own pools to
// one database and its own pg-boss client on one job schema, its own HTTP server for /api/runner/*)
// and `blitz-bot runner` agents as real processes on loopback. Every webhook of a 10-issue milestone
// goes to both replicas; each delivery's processing dispatches its issue through the real dispatcher
// (row and job in one transaction), and both replicas then "reconcile" every issue again. Proved:
// every issue dispatched exactly once; a runner killed mid-job has its job retried on the other after
// its lease; a replica stopped for a while, its runner buffers and flushes, nothing lost or doubled.
// What stands in for the orchestrator: the dispatch decision per delivery (the planner is not run).
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { createDeliveryQueue } from '../../src/intake/delivery-queue.ts';
import { createReceiver, type ReceiveDeps, resumeUnprocessed } from '../../src/intake/receive.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { createDispatcher, type Dispatcher } from '../../src/orchestrator/dispatcher.ts';
import { PgBossQueue } from '../../src/queue/pg-boss-queue.ts';
import { createRunnerHub } from '../../src/remote-runner/hub.ts';
import { isAlive, killGroup } from '../../src/runner/exec.ts';
import { JsonFileAttemptLedger } from '../../src/runner/ledger.ts';
import type { RunnerJob } from '../../src/runner/types.ts';
import { openRunnerRegistry, openRunStore, openStore } from '../../src/store/open-store.ts';
import type { RunnerRegistry } from '../../src/store/runner-tokens.ts';
import type { Store } from '../../src/store/types.ts';
import { createOrigin, originSha } from '../support/git.ts';
import { pgTestUrl, postgresAvailable, testSchemas } from '../support/pg.ts';
import { startRunnerProcess } from '../support/replicas-harness.ts';
import { attemptJob, fakeEntry, sleep } from './runner-harness.ts';

const pgUp = await postgresAvailable();
const inCi = Boolean(process.env.CI);
if (!pgUp && !inCi) console.log('replicas.test.ts skipped: no PostgreSQL at', pgTestUrl());
const schemas = testSchemas();
afterAll(() => schemas.dropAll());

const repo = { owner: 'acme', name: 'app' };
const runId = 'run-r';
// Short, so the killed runner's job moves soon; still well above replica A's outage below (a runner
// cut off for longer than the lease loses its job to another, by design, and the work is done twice).
const LEASE = 10;
const closers: (() => Promise<void>)[] = [];
const procs: { pid: number }[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) if (isAlive(p.pid)) killGroup(p.pid, 'SIGKILL');
  for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
});

interface Replica {
  name: string;
  queue: PgBossQueue;
  url: string;
  store: Store;
  registry: RunnerRegistry;
  dispatcher: Dispatcher;
  intake: ReceiveDeps;
  dispatched: number[];
  receive(n: number): Promise<number>;
  startHttp(): Promise<void>;
  stopHttp(): Promise<void>;
}

const jobFor = (origin: string, n: number): Extract<RunnerJob, { kind: 'attempt' }> => {
  const job = attemptJob(origin, fakeEntry({ FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '1500' }), {
    runId,
    issue: { repo, number: n },
    title: `Issue ${n}`,
  });
  if (job.kind !== 'attempt') throw new Error('not an attempt');
  return job;
};

const startReplica = async (
  name: string,
  db: string,
  bossSchema: string,
  origin: string,
): Promise<Replica> => {
  const store = await openStore(db);
  const runs = await openRunStore(db);
  const registry = await openRunnerRegistry(db);
  const queue = await PgBossQueue.open({
    connectionString: pgTestUrl(),
    schema: bossSchema,
    logger: silentLogger(),
    maintenanceIntervalSeconds: 1,
  });
  const dispatcher = createDispatcher({ queue, store: runs, registry, localHost: name, leaseSeconds: LEASE });
  const dispatched: number[] = [];
  const dispatch = async (n: number) => {
    const sent = await dispatcher.attempt(jobFor(origin, n), 1, (w) =>
      w.upsertRunIssue(runId, 'acme/app', n, { state: 'dispatched', attempts: 1 }),
    );
    if (sent) dispatched.push(n);
  };
  const deliveries = createDeliveryQueue({ logger: silentLogger() });
  const intake: ReceiveDeps = {
    store,
    queue: deliveries,
    process: async (work) => dispatch(Number(work.deliveryId.split('-')[1])),
    metrics: createMetrics(),
    logger: silentLogger(),
    holder: name,
    leaseSeconds: 2,
  };
  const receiveHook = createReceiver(intake);
  const app = createApp({
    store,
    metrics: createMetrics(),
    logger: silentLogger(),
    version: 't',
    receive: receiveHook,
    runnerHub: createRunnerHub({ queue, registry, ledger: runs.ledger, logger: silentLogger() }),
  });
  let server: ServerType | undefined;
  let port = 0;
  const r: Replica = {
    name,
    queue,
    url: '',
    store,
    registry,
    dispatcher,
    intake,
    dispatched,
    async receive(n) {
      const res = await receiveHook({
        forge: 'gitea',
        deliveryId: `issue-${n}`,
        event: 'issues',
        payload: { action: 'milestoned' },
        normalize: () => ({ outcome: 'accepted', events: [] }),
      });
      return res.status;
    },
    async startHttp() {
      server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
      await new Promise<void>((ok) => server!.once('listening', () => ok()));
      port = (server.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${port}`;
    },
    async stopHttp() {
      const s = server;
      server = undefined;
      if (!s) return;
      await new Promise<void>((ok) => {
        s.close(() => ok());
        (s as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
  closers.push(async () => {
    await r.stopHttp();
    await deliveries.drain();
    await queue.close();
    await Promise.all([store.close(), runs.close(), registry.close()]);
  });
  await r.startHttp();
  return r;
};

/** The harness's `blitz-bot runner` process (blitz, one session), killed after the test. */
const startAgent = (server: string, token: string) => {
  const runner = startRunnerProcess(server, token);
  procs.push(runner);
  return runner;
};

let seen: () => Promise<unknown> = async () => '';
const waitFor = async <T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 60_000) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}; state: ${JSON.stringify(await seen())}`);
};

describe('several bot replicas and runner hosts on one PostgreSQL (issue 9)', () => {
  it.runIf(!pgUp && inCi)('needs PostgreSQL under CI', () => {
    throw new Error(`CI is set but PostgreSQL is not reachable at ${pgTestUrl()}`);
  });

  it.runIf(pgUp)(
    'dispatches each of 10 issues once, retries a killed runner’s job on the other, and loses nothing while a replica is away',
    async () => {
      const schema = await schemas.create();
      const db = schemas.urlFor(schema);
      closers.push(async () => {
        await schemas.admin.query(`DROP SCHEMA IF EXISTS ${schema}_boss CASCADE`);
      });
      const origin = await createOrigin();
      const a = await startReplica('bot-a', db, `${schema}_boss`, origin.url);
      const b = await startReplica('bot-b', db, `${schema}_boss`, origin.url);
      const runs = await openRunStore(db);
      closers.push(() => runs.close());
      seen = async () =>
        (await runs.ledger.listByRun(runId)).map((x) => [
          x.issue.number,
          x.exitPath.split('/')[2],
          x.outcome,
          x.failureSummary,
        ]);
      await runs.createRun({
        id: runId,
        forge: 'gitea',
        repo: 'acme/app',
        kind: 'blitz',
        milestoneNumber: 1,
        milestoneTitle: 'M1',
        slug: 'm1',
        options: {},
        state: 'running',
        integrationBranch: 'main',
      });
      const tokenA = await a.registry.createToken('host-a');
      const tokenB = await a.registry.createToken('host-b');
      const tokenC = await a.registry.createToken('host-c');
      const agentA = startAgent(a.url, tokenA.token);
      const agentB = startAgent(b.url, tokenB.token);

      // Issues 1–6: every delivery to both replicas at once; one accepts (202), the other says 200.
      for (let n = 1; n <= 6; n++) {
        const statuses = await Promise.all([a.receive(n), b.receive(n)]);
        expect(statuses.sort()).toEqual([200, 202]);
      }
      // A runner dies mid-job (the host and its worker): its job goes to the other after the lease.
      // The bot's ledger can lag behind a busy runner: host-a's own records and the live worker decide.
      const lost = await waitFor('host-a to be working', async () => {
        for (const x of await runs.ledger.listByRun(runId)) {
          if (x.runner !== 'host-a' || x.outcome) continue;
          // The worker's pid lives in the runner's own records: the bot keeps none of a runner's host.
          const own = await new JsonFileAttemptLedger(agentA.records).get(x.id);
          if (own && !own.outcome && own.pid && isAlive(own.pid)) return { ...x, pid: own.pid };
        }
        return undefined;
      });
      const receipt = (await a.registry.getReceipt(lost.id))!;
      process.kill(agentA.pid, 'SIGKILL');
      killGroup(lost.pid!, 'SIGKILL');
      const workers = await runs.ledger.get(lost.id);
      expect(workers?.runner).toBe('host-a');

      const retried = await waitFor(
        'the lost job to complete on host-b',
        async () => {
          const j = await a.queue.get({ queue: receipt.jobQueue, id: receipt.jobId });
          return j?.state === 'completed' ? j : undefined;
        },
        90_000,
      );
      expect(retried).toMatchObject({ holder: 'host-b', retryCount: 1 });

      // Issues 7–10 while host-b is gone and host-c works for replica A, which then stops a while.
      await waitFor(
        'issues 1–6 to be solved',
        async () =>
          (await runs.ledger.listByRun(runId)).filter((x) => x.outcome === 'solved').length === 6
            ? true
            : undefined,
        90_000,
      );
      process.kill(agentB.pid, 'SIGKILL');
      const agentC = startAgent(a.url, tokenC.token);
      for (let n = 7; n <= 10; n++) await Promise.all([a.receive(n), b.receive(n)]);
      await waitFor('host-c to start a worker', async () => {
        const mine = await new JsonFileAttemptLedger(agentC.records).listByRun(runId);
        const started = new Set(mine.filter((x) => x.pid).map((x) => x.id));
        return (await runs.ledger.listByRun(runId)).find((x) => x.runner === 'host-c' && started.has(x.id));
      });
      await a.stopHttp();
      await waitFor('host-c to buffer a report', () => existsSync(agentC.buffer) || undefined, 30_000);
      await a.startHttp();

      // Both replicas reconcile every issue again: nothing is dispatched twice.
      const again = await Promise.all(
        [a, b].flatMap((r) =>
          Array.from({ length: 10 }, (_, i) =>
            r.dispatcher.attempt(jobFor(origin.url, i + 1), 1, (w) =>
              w.upsertRunIssue(runId, 'acme/app', i + 1, { state: 'dispatched', attempts: 1 }),
            ),
          ),
        ),
      );
      expect(again.filter(Boolean)).toEqual([]);

      const all = await waitFor(
        'all 10 issues solved',
        async () => {
          const xs = await runs.ledger.listByRun(runId);
          return xs.filter((x) => x.outcome === 'solved').length === 10 ? xs : undefined;
        },
        120_000,
      );
      await waitFor('host-c to flush its buffer', () => !existsSync(agentC.buffer) || undefined, 30_000);
      expect([...a.dispatched, ...b.dispatched].sort((x, y) => x - y)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ]);
      const byIssue = new Map<number, string[]>();
      for (const x of all)
        byIssue.set(x.issue.number, [...(byIssue.get(x.issue.number) ?? []), x.outcome ?? 'open']);
      for (let n = 1; n <= 10; n++) {
        const outcomes = (byIssue.get(n) ?? []).sort();
        expect(outcomes, `issue ${n}`).toEqual(
          n === lost.issue.number ? ['environment_failure', 'solved'] : ['solved'],
        );
      }
      const rows = await runs.listRunIssues(runId);
      expect(rows.map((r) => [r.number, r.attempts]).sort((x, y) => x[0]! - y[0]!)).toEqual(
        Array.from({ length: 10 }, (_, i) => [i + 1, 1]),
      );
      for (const x of all.filter((y) => y.outcome === 'solved'))
        expect(await originSha(origin.url, x.branch), `branch of #${x.issue.number}`).not.toBeNull();
      expect(await resumeUnprocessed(a.intake)).toBe(0);
    },
    300_000,
  );
});
