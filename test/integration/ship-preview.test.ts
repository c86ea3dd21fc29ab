// The local ship path with a real detached dev server: it starts in the worktree, answers on the
// configured port, and the URL names the LAN address, never localhost.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { type NetworkInterfaceInfo, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lanAddress, startPreview } from '../../src/ship/preview.ts';
import { until } from '../support/until.ts';

let workspace: string;
let worktree: string;
const started: number[] = [];
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

const lan = (): NodeJS.Dict<NetworkInterfaceInfo[]> => ({
  lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '255.0.0.0', mac: '', cidr: null }],
  eth0: [
    { address: 'fe80::1', family: 'IPv6', internal: false, netmask: '', mac: '', cidr: null, scopeid: 1 },
    {
      address: '192.168.1.20',
      family: 'IPv4',
      internal: false,
      netmask: '255.255.255.0',
      mac: '',
      cidr: null,
    },
  ],
});

const freePort = async (): Promise<number> => {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
};

// The dev server listens from its own process; a refused connection is all the test sees.
const fetchWithRetry = (url: string): Promise<string> =>
  until(
    `an answer at ${url}`,
    async () => {
      try {
        return await (await fetch(url)).text();
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 5_000, everyMs: 50 },
  );

beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'blitz-preview-'));
  worktree = join(workspace, 'acme', 'shop-blitz-m1');
  mkdirSync(worktree, { recursive: true });
  writeFileSync(
    join(worktree, 'dev.mjs'),
    [
      "import { createServer } from 'node:http';",
      "const host = process.argv[process.argv.indexOf('--host') + 1];",
      'createServer((_q, s) => s.end("preview from " + process.cwd())).listen(Number(process.env.PORT), host,',
      '  () => console.log("listening on " + host + ":" + process.env.PORT));',
    ].join('\n'),
  );
});

afterAll(() => {
  // Only the processes this test started, by their group id.
  for (const pid of started) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {}
  }
  rmSync(workspace, { recursive: true, force: true });
});

describe('startPreview', () => {
  it('starts the dev server detached in the worktree and returns the LAN URL', async () => {
    const port = await freePort();
    const res = startPreview({
      argv: [process.execPath, 'dev.mjs', '--host', '0.0.0.0'],
      port,
      workspaceRoot: workspace,
      worktree,
      logFile: join(workspace, 'logs', 'preview.log'),
      env,
      interfaces: lan,
    });
    expect(res).toMatchObject({ ok: true, url: `http://192.168.1.20:${port}` });
    if (res.ok) started.push(res.pid);
    expect(await fetchWithRetry(`http://127.0.0.1:${port}/`)).toBe(`preview from ${worktree}`);
    expect(readFileSync(join(workspace, 'logs', 'preview.log'), 'utf8')).toContain(
      `listening on 0.0.0.0:${port}`,
    );
  });

  it('starts nothing when the host has no LAN address', () => {
    const spawned: string[][] = [];
    const res = startPreview({
      argv: ['npm', 'run', 'dev'],
      port: 5173,
      workspaceRoot: workspace,
      worktree,
      logFile: join(workspace, 'p.log'),
      env,
      interfaces: () => ({ lo: lan().lo }),
      spawn: (argv) => {
        spawned.push([...argv]);
        return { pid: 1 };
      },
    });
    expect(res).toEqual({ ok: false, error: expect.stringContaining('no LAN IPv4 address') });
    expect(spawned).toEqual([]);
  });

  it('refuses a worktree or log outside the workspace, a bad port and an empty command', () => {
    const spawned: string[][] = [];
    const base = {
      argv: ['npm', 'run', 'dev'],
      port: 5173,
      workspaceRoot: workspace,
      worktree,
      logFile: join(workspace, 'p.log'),
      env,
      interfaces: lan,
      spawn: (argv: readonly string[]) => {
        spawned.push([...argv]);
        return { pid: 1 };
      },
    };
    expect(startPreview({ ...base, worktree: '/etc' })).toMatchObject({
      ok: false,
      error: /outside the workspace/,
    });
    expect(startPreview({ ...base, logFile: join(workspace, '..', 'x.log') })).toMatchObject({ ok: false });
    expect(startPreview({ ...base, port: 70_000 })).toMatchObject({ ok: false, error: /previewPort/ });
    expect(startPreview({ ...base, argv: [] })).toMatchObject({ ok: false, error: /ship.preview/ });
    expect(spawned).toEqual([]);
  });
});

describe('lanAddress', () => {
  it('picks the first non-internal IPv4 and skips loopback, IPv6 and link-local', () => {
    expect(lanAddress(lan)).toBe('192.168.1.20');
    const linkLocalFirst = (): NodeJS.Dict<NetworkInterfaceInfo[]> => ({
      eth1: [{ address: '169.254.3.4', family: 'IPv4', internal: false, netmask: '', mac: '', cidr: null }],
      ...lan(),
    });
    expect(lanAddress(linkLocalFirst)).toBe('192.168.1.20');
    expect(lanAddress(() => ({}))).toBeUndefined();
  });

  it('never answers with a loopback address on this host', () => {
    const ip = lanAddress();
    if (ip !== undefined) expect(ip.startsWith('127.')).toBe(false);
  });
});
