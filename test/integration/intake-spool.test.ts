// No webhook is lost while the store is down: the composed bot on real PostgreSQL behind a loopback TCP
// proxy the test cuts and restores (the shared server is never touched), the contract-checked fake
// Gitea, and signed webhooks over real HTTP. A delivery the store cannot take is answered only once
// it is in the spool on disk, and is answered on the forge after the store is back, once.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createLogger } from '../../src/observability/logger.ts';
import { openStore } from '../../src/store/open-store.ts';
import { startFakeGitea } from '../support/fake-gitea/server.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { pgForFile, pgTestUrl } from '../support/pg.ts';
import {
  bootComposed,
  type Cleanups,
  freePort,
  giteaCommentRequest,
  seedWorld,
} from '../support/serve-harness.ts';
import { until } from '../support/until.ts';
import type { World, WorldRepo } from '../support/world.ts';

const secret = 'spool-gitea-secret';
const noRun = 'No blitz is running on this repository.';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const postgres = await pgForFile();
const hasPg = postgres.available;

/** A loopback proxy to the shared PostgreSQL: `cut()` resets every connection and refuses new ones. */
const startProxy = async () => {
  const target = new URL(pgTestUrl());
  const open = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    client.on('error', () => {});
    if (cut) return client.resetAndDestroy();
    const upstream = net.connect({ host: target.hostname, port: Number(target.port || 5432) });
    upstream.on('error', () => {});
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('close', drop);
    upstream.on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const proxy = {
    urlThrough: (url: string) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut() {
      cut = true;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    restore() {
      cut = false;
    },
  };
  cleanups.push(async () => {
    proxy.cut();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return proxy;
};

interface Outage {
  world: World;
  repo: WorldRepo;
  trigger: number;
  /** DATABASE_URL through the proxy, with this test's schema. */
  databaseUrl: string;
  /** The same schema straight to the server, for looking from outside. */
  directUrl: string;
  dataDir: string;
  proxy: Awaited<ReturnType<typeof startProxy>>;
  giteaVars: Record<string, string>;
}

const setup = async (): Promise<Outage> => {
  const { world, repo, trigger } = await seedWorld('blitz-bot', 'M1', cleanups);
  const fake = await startFakeGitea(world);
  cleanups.push(async () => {
    await fake.close();
    fake.assertNoViolations();
  });
  const schema = await postgres.schemas().create();
  const proxy = await startProxy();
  const dataDir = tempDir('blitz-spool-');
  cleanups.push(() => removeDir(dataDir));
  return {
    world,
    repo,
    trigger,
    databaseUrl: proxy.urlThrough(postgres.schemas().urlFor(schema)),
    directUrl: postgres.schemas().urlFor(schema),
    dataDir,
    proxy,
    giteaVars: {
      GITEA_URL: fake.url,
      GITEA_TOKEN: fake.token,
      GITEA_WEBHOOK_SECRET: secret,
      GITEA_BOT_LOGIN: 'blitz-bot',
    },
  };
};

const boot = async (o: Outage, vars: Record<string, string> = {}) => {
  const logs: string[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void logs.push(line) },
  });
  const booted = await bootComposed(
    { ...o.giteaVars, DATABASE_URL: o.databaseUrl, BLITZ_DATA_DIR: o.dataDir, ...vars },
    cleanups,
    logger,
    {},
    // No cron tick during the test: a command is taken when its delivery is processed.
    { tickSeconds: 3600, spoolRetry: { baseMs: 50, maxMs: 200 } },
  );
  return { ...booted, logs, url: `http://127.0.0.1:${booted.port}` };
};

/** A signed Gitea `issue_comment` carrying `body` from alice on the trigger issue (the comment is on the forge). */
const commentRequest = (o: Outage, body: string, deliveryId = randomUUID()) =>
  giteaCommentRequest({ world: o.world, repo: o.repo, issue: o.trigger, secret }, body, deliveryId);

const post = (url: string, req: { body: string; headers: Record<string, string> }) =>
  fetch(`${url}/api/gitea/webhooks`, { method: 'POST', body: req.body, headers: req.headers });

const spoolFiles = (dataDir: string): string[] =>
  existsSync(join(dataDir, 'spool'))
    ? readdirSync(join(dataDir, 'spool'))
        .filter((n) => n.endsWith('.json'))
        .sort()
    : [];

const answers = (o: Outage) => o.world.commentsOn(o.repo, o.trigger).filter((c) => c.body === noRun);

const deliveriesIn = async (o: Outage) => {
  const store = await openStore(o.directUrl);
  try {
    return await store.listDeliveries({ forge: 'gitea' });
  } finally {
    await store.close();
  }
};

const metric = async (url: string, name: string): Promise<number | undefined> => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
};

describe.runIf(hasPg)('the webhook spool while the store is down', () => {
  it('answers a command sent during the outage only once it is on disk, and runs it once after', async () => {
    const o = await setup();
    const bot = await boot(o);
    o.proxy.cut();

    const { deliveryId, req } = commentRequest(o, '/blitz status');
    const res = await post(bot.url, req);
    expect(res.status, await res.clone().text()).toBe(202);
    expect(((await res.json()) as { outcome: string }).outcome).toBe('spooled');
    // By the time the forge got its 2xx the delivery was in its final file: owner-only, the body as signed.
    const [file, ...more] = spoolFiles(o.dataDir);
    expect(more).toEqual([]);
    const path = join(o.dataDir, 'spool', file!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(o.dataDir, 'spool')).mode & 0o777).toBe(0o700);
    const entry = JSON.parse(readFileSync(path, 'utf8')) as { deliveryId: string; payload: unknown };
    expect(entry.deliveryId).toBe(deliveryId);
    expect(entry.payload).toEqual(JSON.parse(req.body));
    expect(await metric(bot.url, 'blitz_spool_deliveries')).toBe(1);
    expect(bot.logs.some((l) => l.includes('delivery spooled to disk'))).toBe(true);
    expect(answers(o)).toEqual([]);

    o.proxy.restore();
    await until('the spooled status command answered', () => answers(o).length > 0, { timeoutMs: 30_000 });
    await until('the spool emptied', () => spoolFiles(o.dataDir).length === 0, { timeoutMs: 30_000 });
    expect(await metric(bot.url, 'blitz_spool_deliveries')).toBe(0);
    expect(bot.logs.some((l) => l.includes('spooled delivery replayed'))).toBe(true);
    expect((await deliveriesIn(o)).filter((d) => d.deliveryId === deliveryId)).toMatchObject([
      { outcome: 'accepted' },
    ]);

    // The same delivery again (the forge retrying): a duplicate, nothing more happens.
    const again = await post(bot.url, req);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { outcome: string }).outcome).toBe('duplicate');
    await bot.bot.stop();
    expect(answers(o)).toHaveLength(1);
  }, 120_000);

  it('refuses with 503 past its cap and keeps nothing of what it refused', async () => {
    const o = await setup();
    const bot = await boot(o, { BLITZ_SPOOL_MAX_DELIVERIES: '1' });
    o.proxy.cut();
    const first = commentRequest(o, '/blitz status');
    expect((await post(bot.url, first.req)).status).toBe(202);
    const second = commentRequest(o, '/blitz help');
    const refused = await post(bot.url, second.req);
    expect(refused.status).toBe(503);
    expect(spoolFiles(o.dataDir)).toHaveLength(1);
    expect(await metric(bot.url, 'blitz_spool_deliveries_total{outcome="refused"}')).toBe(1);
    expect(bot.logs.some((l) => l.includes('could not be spooled'))).toBe(true);

    o.proxy.restore();
    await until('the spooled status command answered', () => answers(o).length > 0, { timeoutMs: 30_000 });
    await until('the spool emptied', () => spoolFiles(o.dataDir).length === 0, { timeoutMs: 30_000 });
    await bot.bot.stop();
    const ids = (await deliveriesIn(o)).map((d) => d.deliveryId);
    expect(ids).toContain(first.deliveryId);
    expect(ids).not.toContain(second.deliveryId);
  }, 120_000);

  it('serve started while the store is down stays up, says why on /healthz, and opens it once it is back', async () => {
    const o = await setup();
    o.proxy.cut();
    const port = await freePort();
    const child = startServe(o, port);
    cleanups.push(() => void child.kill('SIGKILL'));
    let output = '';
    const collect = (d: Buffer) => {
      output += d.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    cleanups.push(() => {
      if (child.exitCode !== null && child.signalCode === null) console.log('serve output:', output);
    });
    const waits = () => output.split('\n').filter((l) => l.includes('cannot open the store yet')).length;
    // Tried, backed off and tried again: the process did not exit on the first refusal.
    await until('serve retrying the store', () => waits() >= 2, { timeoutMs: 60_000 });
    expect(child.exitCode).toBeNull();
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; reason: string };
    expect(body.status).toBe('degraded');
    expect(body.reason).toContain('store: PostgreSQL unreachable');
    // A webhook cannot be taken yet: 503, so the forge keeps it as a failed delivery; nothing is written.
    const early = await post(`http://127.0.0.1:${port}`, commentRequest(o, '/blitz status').req);
    expect(early.status).toBe(503);
    expect(((await early.json()) as { error: string }).error).toBe('store_error');
    expect(spoolFiles(o.dataDir)).toEqual([]);

    o.proxy.restore();
    await until('the bot process listening', () => output.includes('blitz-bot listening'), {
      timeoutMs: 90_000,
    });
    expect(await healthy(port)).toBe(true);
    const { deliveryId, req } = commentRequest(o, '/blitz status');
    const accepted = await post(`http://127.0.0.1:${port}`, req);
    expect(accepted.status).toBe(202);
    await until('the status command answered', () => answers(o).length > 0, { timeoutMs: 30_000 });
    expect((await deliveriesIn(o)).map((d) => d.deliveryId)).toContain(deliveryId);
  }, 150_000);

  it('replays at the next start a spool left by a process killed while the store was down', async () => {
    const o = await setup();
    const port = await freePort();
    const child = startServe(o, port);
    cleanups.push(() => void child.kill('SIGKILL'));
    let output = '';
    const collect = (d: Buffer) => {
      output += d.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    cleanups.push(() => {
      if (child.exitCode !== null && child.signalCode === null) console.log('serve output:', output);
    });
    // Composed to the end (its early listener answers /healthz before that).
    await until('the bot process listening', () => output.includes('blitz-bot listening'), {
      timeoutMs: 60_000,
    });
    expect(await healthy(port)).toBe(true);
    o.proxy.cut();
    const { deliveryId, req } = commentRequest(o, '/blitz status');
    const res = await post(`http://127.0.0.1:${port}`, req);
    expect(res.status).toBe(202);
    expect(((await res.json()) as { outcome: string }).outcome).toBe('spooled');
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(spoolFiles(o.dataDir)).toHaveLength(1);
    expect(answers(o)).toEqual([]);

    o.proxy.restore();
    const bot = await boot(o);
    await until('the spooled status command answered', () => answers(o).length > 0, { timeoutMs: 30_000 });
    expect(spoolFiles(o.dataDir)).toEqual([]);
    await bot.bot.stop();
    expect(answers(o)).toHaveLength(1);
    // The delivery once, and the mark recovery keys the comment by (so a restart does not answer it again).
    const ids = (await deliveriesIn(o)).map((d) => d.deliveryId);
    expect(ids.filter((id) => !id.startsWith('comment:'))).toEqual([deliveryId]);
    expect(ids.filter((id) => id.startsWith('comment:'))).toHaveLength(1);
  }, 120_000);
});

const healthy = async (port: number): Promise<boolean> => {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
  } catch {
    return false;
  }
};

/** `blitz-bot serve` (dist/main.js) as its own process over the proxy, with the test's data dir. */
const startServe = (o: Outage, port: number): ChildProcess => {
  const dir = tempDir('blitz-spool-serve-');
  cleanups.push(() => removeDir(dir));
  const root = join(import.meta.dirname, '..', '..');
  const config = join(dir, 'blitz.config.yml');
  writeFileSync(config, stringify({ runner: { workspace: join(dir, 'workspace') } }));
  // From the checkout (app.yml is read from there), with every file of its own in temp dirs.
  return spawn(process.execPath, [join(root, 'dist', 'main.js'), 'serve'], {
    cwd: root,
    env: {
      BLITZ_CONFIG: config,
      PATH: process.env.PATH,
      HOME: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATABASE_URL: o.databaseUrl,
      BLITZ_DATA_DIR: o.dataDir,
      ...o.giteaVars,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
};
