// The bot survives its store going away mid-run and goes on where it was: the composed bot (what
// `serve` runs) on real PostgreSQL behind the loopback proxy, the contract-checked fake Gitea, fake
// agents on a real bare origin, and a webhook notify target. The proxy is cut while the run's lock is
// held on the server (its connections really drop, the lock's and the pool's); /healthz says degraded
// and why; a `/blitz status` sent meanwhile is spooled; the outage lasts 30 s on the health's injected
// clock (the cut itself is short in wall time); a person is told once it passed the threshold and once
// when it is back; the milestone then finishes with each issue closed once and the status answered.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createStoreHealth } from '../../src/store/store-health.ts';
import { startFakeGitea } from '../support/fake-gitea/server.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { pgForFile, pgTestUrl } from '../support/pg.ts';
import { bootComposed, type Cleanups, giteaCommentRequest, seedWorld } from '../support/serve-harness.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { until } from '../support/until.ts';

const secret = 'store-outage-secret';
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const postgres = await pgForFile();
const hasPg = postgres.available;

/** A notify target of type `webhook`: every body it was sent. */
const startReceiver = async () => {
  const bodies: { event: string; sentence: string }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => {
      text += d.toString();
    });
    req.on('end', () => {
      bodies.push(JSON.parse(text) as { event: string; sentence: string });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
};

describe.runIf(hasPg)('a store outage mid-run', () => {
  it('keeps the bot up, says so on /healthz, tells a person, and the run finishes once it is back', async () => {
    const pg = postgres.schemas();
    const { world, repo, trigger, origin } = await seedWorld('blitz-bot', 'M1', cleanups);
    const fake = await startFakeGitea(world, { cloneUrl: () => origin.bareDir });
    cleanups.push(async () => {
      await fake.close();
      fake.assertNoViolations();
    });
    const target = new URL(pgTestUrl());
    const proxy = await startTcpProxy({
      targetHost: target.hostname,
      targetPort: Number(target.port || 5432),
    });
    cleanups.push(() => proxy.close());
    const schema = await pg.create();
    const databaseUrl = proxy.urlThrough(pg.urlFor(schema));
    const dataDir = tempDir('blitz-outage-');
    cleanups.push(() => removeDir(dataDir));
    const receiver = await startReceiver();

    // The health's clock: real time plus what the test adds (the 30 s the outage lasts).
    let skew = 0;
    const logs: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => void logs.push(l) } });
    const store = await openStore(databaseUrl);
    const health = createStoreHealth({
      engine: 'PostgreSQL',
      probe: () => store.ping(),
      logger,
      clock: { now: () => new Date(Date.now() + skew) },
      backoff: { baseMs: 100, maxMs: 1_000 },
      notifyAfterMs: 30_000,
    });
    const { port } = await bootComposed(
      {
        GITEA_URL: fake.url,
        GITEA_TOKEN: fake.token,
        GITEA_WEBHOOK_SECRET: secret,
        GITEA_BOT_LOGIN: 'blitz-bot',
        DATABASE_URL: databaseUrl,
        BLITZ_DATA_DIR: dataDir,
      },
      cleanups,
      logger,
      { FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '1500' },
      {
        store,
        health,
        tickSeconds: 1,
        spoolRetry: { baseMs: 50, maxMs: 300 },
        notifyTargets: {
          targets: [{ type: 'webhook', name: 'ops', events: ['warning'], url: receiver.url }],
        },
      },
    );
    const base = `http://127.0.0.1:${port}`;
    const send = async (body: string) => {
      const { req } = giteaCommentRequest({ world, repo, issue: trigger, secret }, body, randomUUID());
      return fetch(`${base}/api/gitea/webhooks`, { method: 'POST', body: req.body, headers: req.headers });
    };

    expect((await send('/blitz M1')).status).toBeLessThan(300);
    // Mid-run, with a reconcile holding its run lock on the server: then the proxy drops everything.
    // Advisory locks held by this bot's own sessions (the server is shared with other tests).
    const ownAdvisoryLocks = async () =>
      Number(
        (
          await pg.admin.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE l.locktype = 'advisory' AND a.client_port = ANY($1::int[])`,
            [proxy.upstreamPorts()],
          )
        ).rows[0]?.n,
      );
    await until('a pass holding the run lock', async () => (await ownAdvisoryLocks()) > 0, {
      timeoutMs: 60_000,
    });
    expect(proxy.stats.open).toBeGreaterThan(0);
    proxy.cut();
    expect(world.issue(repo, 1)?.state).toBe('open');

    const healthz = await fetch(`${base}/healthz`);
    expect(healthz.status).toBe(503);
    expect(await healthz.json()).toMatchObject({
      status: 'degraded',
      store: false,
      reason: expect.stringMatching(/^store: PostgreSQL unreachable/),
    });
    // A writer's command during the outage goes to the spool.
    const status = await send('/blitz status');
    expect(status.status).toBe(202);
    // The bot keeps going through the outage in real time too: ticks, claims and supervision try the
    // store, fail, and back off, several times over (each failure is logged with its count).
    const failures = () =>
      Math.max(
        0,
        ...logs
          .map((l) => JSON.parse(l) as { msg?: string; failures?: number })
          .filter((l) => l.msg?.includes('store still unavailable'))
          .map((l) => l.failures ?? 0),
      );
    await until('the store tried and backed off several times', () => failures() >= 4, { timeoutMs: 30_000 });
    expect(world.issue(repo, 1)?.state).toBe('open');

    // 30 s of outage on the health's clock: a person is told, once.
    skew += 30_000;
    await health.check();
    await until('the outage told', () => receiver.bodies.length >= 1, { timeoutMs: 10_000 });
    expect(receiver.bodies[0]).toMatchObject({
      event: 'warning',
      sentence: expect.stringMatching(/store \(PostgreSQL\) has been unavailable for 3\d s/),
    });
    await health.check();
    expect(receiver.bodies).toHaveLength(1);

    proxy.restore();
    skew += 1_000;
    await health.check();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await until('the end told', () => receiver.bodies.length >= 2, { timeoutMs: 10_000 });
    expect(receiver.bodies[1]?.sentence).toMatch(/store \(PostgreSQL\) is back after 3\d s down/);

    await until(
      'both milestone issues closed',
      () => [1, 2].every((n) => world.issue(repo, n)?.state === 'closed'),
      { timeoutMs: 150_000 },
    );
    for (const n of [1, 2]) expect(world.count('close', 'acme/app', n), `#${n} closed once`).toBe(1);
    await until(
      'the spooled status answered',
      () => world.commentsOn(repo, trigger).some((c) => /\d+ closed, \d+ in progress/.test(c.body)),
      { timeoutMs: 150_000 },
    );
    expect(
      world.commentsOn(repo, trigger).filter((c) => /\d+ closed, \d+ in progress/.test(c.body)),
    ).toHaveLength(1);
    // The dashboard of the run says when the store was down.
    await until(
      'the dashboard names the outage',
      () => world.commentsOn(repo, trigger).some((c) => c.body.includes('**Store outage:**')),
      { timeoutMs: 150_000 },
    );
    expect(receiver.bodies).toHaveLength(2);
    expect(logs.some((l) => l.includes('store unavailable'))).toBe(true);
  }, 240_000);
});
