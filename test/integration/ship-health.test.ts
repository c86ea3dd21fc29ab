// Proving a ship live against real loopback servers and real processes: the deploy's health URL is
// polled until it answers 2xx (time is a fake clock the sleeps advance, so no test waits out a
// timeout), and a local preview is ready only once something answers on its port.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { type NetworkInterfaceInfo, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, killGroup } from '../../src/runner/exec.ts';
import { pollHealth } from '../../src/ship/health.ts';
import { startPreviewWhenReady } from '../../src/ship/preview.ts';
import { until } from '../support/until.ts';

const fakeTime = () => {
  let t = 1_000_000;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    sleeps,
  };
};

let server: Server | undefined;
const serve = async (answers: number[]): Promise<{ url: string; seen: () => number }> => {
  let seen = 0;
  server = createServer((req, res) => {
    const status = answers[Math.min(seen, answers.length - 1)]!;
    seen++;
    if (req.url !== '/healthz') res.writeHead(404).end();
    else res.writeHead(status, status === 302 ? { location: '/login' } : {}).end('ok');
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`, seen: () => seen };
};

afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
  }
});

describe('pollHealth after a deploy', () => {
  it('waits through 503s until the app answers 200, doubling the pause', async () => {
    const app = await serve([503, 503, 200]);
    const time = fakeTime();
    const r = await pollHealth({ url: app.url, timeoutMs: 60_000, intervalMs: 1000, ...time });
    expect(r).toEqual({ ok: true, url: app.url, status: 200, checks: 3 });
    expect(time.sleeps).toEqual([1000, 2000]);
    expect(app.seen()).toBe(3);
  });

  it('fails at the timeout with the last answer, never reporting a 500 as live', async () => {
    const app = await serve([500]);
    const time = fakeTime();
    const r = await pollHealth({ url: app.url, timeoutMs: 10_000, intervalMs: 1000, ...time });
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.error).toBe(
      `${new URL(app.url).origin} answered HTTP 500, not 2xx, within 10 s (5 checks)`,
    );
    expect(app.seen()).toBe(5);
  });

  it('does not follow a redirect: a health URL that sends to a login page is not healthy', async () => {
    const app = await serve([302]);
    const r = await pollHealth({ url: app.url, timeoutMs: 2000, intervalMs: 1000, ...fakeTime() });
    expect(r.ok === false && r.error).toContain('answered HTTP 302, not 2xx');
  });

  it('names a refused connection by origin and errno', async () => {
    const tcp = createTcpServer();
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    const port = (tcp.address() as AddressInfo).port;
    await new Promise<void>((r) => tcp.close(() => r()));
    const r = await pollHealth({
      url: `http://127.0.0.1:${port}/healthz?token=abc`,
      timeoutMs: 3000,
      ...fakeTime(),
    });
    expect(r.ok === false && r.error).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${port} was ECONNREFUSED within 3 s`),
    );
    expect(JSON.stringify(r.ok === false && r.error)).not.toContain('token=abc');
  });
});

describe('pollHealth never asks a link-local or cloud-metadata address', () => {
  /** A resolver that answers `addresses` for app.test, and records what it was asked. */
  const resolver = (addresses: string[]) => {
    const asked: string[] = [];
    return {
      asked,
      resolve: async (host: string) => {
        asked.push(host);
        return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      },
    };
  };

  it('reaches a name that resolves to an ordinary address, through the resolver it was given', async () => {
    const app = await serve([200]);
    const port = new URL(app.url).port;
    const dns = resolver(['127.0.0.1']);
    const r = await pollHealth({
      url: `http://app.test:${port}/healthz`,
      timeoutMs: 2000,
      resolve: dns.resolve,
      ...fakeTime(),
    });
    expect(r.ok).toBe(true);
    expect(dns.asked).toEqual(['app.test']);
    expect(app.seen()).toBe(1);
  });

  it.each([[['169.254.169.254']], [['fd00:ec2::254']], [['127.0.0.1', '169.254.169.254']]])(
    'refuses a name resolving to %j at once, with no request and no retry',
    async (addresses) => {
      const app = await serve([200]);
      const port = new URL(app.url).port;
      const time = fakeTime();
      const r = await pollHealth({
        url: `http://app.test:${port}/healthz`,
        timeoutMs: 60_000,
        resolve: resolver(addresses).resolve,
        ...time,
      });
      expect(r).toEqual({
        ok: false,
        url: `http://app.test:${port}/healthz`,
        error: `http://app.test:${port} resolves to ${addresses.at(-1)}, a link-local or cloud-metadata address, which the bot never asks`,
        checks: 1,
      });
      expect(app.seen()).toBe(0);
      expect(time.sleeps).toEqual([]);
    },
  );

  it('refuses a metadata address written in the URL without resolving anything', async () => {
    const dns = resolver(['127.0.0.1']);
    const r = await pollHealth({
      url: 'http://169.254.169.254/latest/meta-data/',
      timeoutMs: 60_000,
      resolve: dns.resolve,
      ...fakeTime(),
    });
    expect(r.ok === false && r.error).toBe(
      'http://169.254.169.254 is a link-local or cloud-metadata address, which the bot never asks',
    );
    expect(dns.asked).toEqual([]);
  });
});

describe('startPreviewWhenReady', () => {
  let workspace: string;
  let worktree: string;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  // The "LAN" address is loopback here, so the test can reach the preview as another device would.
  const lan = (): NodeJS.Dict<NetworkInterfaceInfo[]> => ({
    eth0: [
      { address: '127.0.0.1', family: 'IPv4', internal: false, netmask: '255.0.0.0', mac: '', cidr: null },
    ],
  });
  const freePort = async (): Promise<number> => {
    const srv = createTcpServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as AddressInfo;
    await new Promise<void>((r) => srv.close(() => r()));
    return port;
  };
  const started: number[] = [];
  const killed: number[] = [];
  const base = async (argv: string[]) => ({
    argv,
    port: await freePort(),
    workspaceRoot: workspace,
    worktree,
    logFile: join(workspace, '.previews', `p-${started.length}-${Date.now()}.log`),
    env,
    interfaces: lan,
    kill: (pid: number) => {
      killed.push(pid);
      killGroup(pid, 'SIGKILL');
    },
  });
  const waitDead = async (pid: number) => {
    // The preview process is the product's child, not the test's: no exit event reaches the test.
    return until('the preview process gone', () => !isAlive(pid), { timeoutMs: 5_000, everyMs: 25 }).catch(
      () => false,
    );
  };

  beforeAll(() => {
    workspace = mkdtempSync(join(tmpdir(), 'blitz-ready-'));
    worktree = join(workspace, 'acme', 'shop');
    mkdirSync(worktree, { recursive: true });
    writeFileSync(
      join(worktree, 'dev.mjs'),
      "import { createServer } from 'node:http';\ncreateServer((_q, s) => s.end('hi')).listen(Number(process.env.PORT), '0.0.0.0');\n",
    );
    writeFileSync(join(worktree, 'idle.mjs'), 'setInterval(() => {}, 1000);\n');
  });
  afterAll(() => {
    for (const pid of [...started, ...killed]) killGroup(pid, 'SIGKILL');
    rmSync(workspace, { recursive: true, force: true });
  });

  it('is ready once the dev server answers on its port', async () => {
    const opts = await base([process.execPath, 'dev.mjs']);
    const r = await startPreviewWhenReady({
      ...opts,
      readyTimeoutMs: 30_000,
      poll: { intervalMs: 50, maxIntervalMs: 200 },
    });
    expect(r).toMatchObject({ ok: true, url: `http://127.0.0.1:${opts.port}` });
    if (r.ok) started.push(r.pid);
    expect(await (await fetch(`http://127.0.0.1:${opts.port}/`)).text()).toBe('hi');
  });

  it('fails when nothing ever listens on the port, and stops the process', async () => {
    const opts = await base([process.execPath, 'idle.mjs']);
    const time = fakeTime();
    const r = await startPreviewWhenReady({
      ...opts,
      readyTimeoutMs: 5000,
      poll: { now: time.now, sleep: time.sleep },
    });
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.error).toMatch(
      new RegExp(
        `^The preview at http://127\\.0\\.0\\.1:${opts.port} is not ready: .* did not answer \\(ECONNREFUSED\\) within 5 s`,
      ),
    );
    expect(killed).toHaveLength(1);
    expect(await waitDead(killed[0]!)).toBe(true);
  });

  it('fails at once when the preview process exits before it answers, keeping its log tail redacted', async () => {
    const opts = await base([
      process.execPath,
      '-e',
      "console.log('boom token=sekret-123'); process.exit(3)",
    ]);
    const r = await startPreviewWhenReady({
      ...opts,
      readyTimeoutMs: 30_000,
      poll: { intervalMs: 50, maxIntervalMs: 100 },
    });
    expect(r).toMatchObject({
      ok: false,
      error: expect.stringContaining('the preview process exited before it answered on its port'),
      tail: 'boom token=[redacted]',
    });
  });
});
