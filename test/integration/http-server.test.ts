// The app on a real loopback socket: signed deliveries through @hono/node-server, a body that never
// ends cut off at the limit, and `blitz-bot serve` as a real process that starts unconfigured, serves
// /healthz and stops cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { completeAppRegistration } from '../../src/config/github-app-registration.ts';
import { createApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { mainJs } from '../support/cli.ts';
import { startFakeGitea } from '../support/fake-gitea/server.ts';
import { startFakeGithub } from '../support/fake-github/server.ts';
import { createHarness, GITEA_SECRET, GITHUB_SECRET } from '../support/intake-harness.ts';
import { fixture, githubExample, signedGiteaRequest, signedGithubRequest } from '../support/signing.ts';
import { World } from '../support/world.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const listen = async (fetchHandler: (req: Request) => Response | Promise<Response>) => {
  const server = serve({ fetch: fetchHandler, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe('the webhook routes on a real server', () => {
  it('takes signed GitHub and Gitea deliveries over loopback and stores their intents', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const base = await listen(h.app.fetch);
    const gh = signedGithubRequest({
      secret: GITHUB_SECRET,
      event: 'issue_comment',
      payload: fixture('gitea', 'issue_comment.created'),
    });
    // A Gitea-shaped body sent to the GitHub route fails GitHub's schema: 400, nothing stored.
    expect((await fetch(`${base}/api/github/webhooks`, { method: 'POST', ...gh })).status).toBe(400);
    const gt = signedGiteaRequest({
      secret: GITEA_SECRET,
      eventType: 'issue_comment',
      payload: fixture('gitea', 'issue_comment.created'),
    });
    const res = await fetch(`${base}/api/gitea/webhooks`, { method: 'POST', ...gt });
    expect(res.status).toBe(202);
    await h.queue.idle();
    expect((await h.store.listIntents()).map((i) => i.forge)).toEqual(['gitea']);
  });

  /** Sends `headers` and `first` bytes of a body, then waits: the status, or 0 when none came. */
  const sendPart = (
    base: URL,
    path: string,
    headers: Record<string, string | number>,
    first: Buffer,
    then: (req: ReturnType<typeof request>) => void = () => {},
  ) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: base.hostname, port: base.port, path, method: 'POST', headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', (err) => (req.destroyed ? resolve(0) : reject(err)));
      req.write(first, () => then(req));
    });

  it('refuses a declared length over 1 MiB with 413 from the headers alone, without waiting for the body', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const base = new URL(await listen(h.app.fetch));
    const { headers } = signedGithubRequest({
      secret: GITHUB_SECRET,
      event: 'issue_comment',
      payload: githubExample('issue_comment', 'created'),
    });
    // Tried: 2 MiB declared, 10 bytes sent, the rest never: the answer comes all the same.
    const status = await sendPart(
      base,
      '/api/github/webhooks',
      { ...headers, 'content-length': 2 * 1024 * 1024 },
      Buffer.from('{"action":'),
    );
    expect(status).toBe(413);
    expect(await h.store.listDeliveries()).toEqual([]);
  });

  it('a delivery whose sender hangs up halfway is not recorded, and the next one is taken', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const base = new URL(await listen(h.app.fetch));
    const gh = signedGithubRequest({
      secret: GITHUB_SECRET,
      event: 'issue_comment',
      payload: githubExample('issue_comment', 'created'),
    });
    // Tried: half the signed body, then the connection destroyed.
    const half = Buffer.from(gh.body.slice(0, Math.floor(gh.body.length / 2)));
    const cut = await sendPart(
      base,
      '/api/github/webhooks',
      { ...gh.headers, 'content-length': Buffer.byteLength(gh.body) },
      half,
      (req) => setImmediate(() => req.destroy()),
    );
    expect(cut).toBe(0);
    const res = await fetch(`${base.origin}/api/github/webhooks`, { method: 'POST', ...gh });
    expect(res.status).toBe(202);
    await h.queue.idle();
    // One record: the whole delivery's, none for the half.
    const deliveries = await h.store.listDeliveries();
    expect(deliveries.map((d) => d.deliveryId)).toEqual([gh.headers['x-github-delivery']]);
  });

  it('stops reading a chunked body that keeps coming once it passes 1 MiB, and answers 413', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const base = new URL(await listen(h.app.fetch));
    const headers = signedGiteaRequest({
      secret: GITEA_SECRET,
      eventType: 'issue_comment',
      payload: {},
    }).headers;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const limit = 100 * 1024 * 1024;
    let written = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: base.hostname, port: base.port, path: '/api/gitea/webhooks', method: 'POST', headers },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', (err) => (written > 0 ? undefined : reject(err)));
      const pump = () => {
        while (written < limit && !req.destroyed) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!req.destroyed) req.end();
      };
      pump();
    });
    expect(status).toBe(413);
    // The server gave up long before the 100 MB on offer.
    expect(written).toBeLessThan(limit);
    expect(await h.store.listDeliveries()).toEqual([]);
  });
});

describe('GitHub App registration (no APP_ID)', () => {
  it('serves the manifest from app.yml with this server’s webhook URL, and the code exchange writes .env', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-setup-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const seen: string[] = [];
    // A GitHub that answers exactly the manifest conversion, and fails the test on anything else.
    const github = await listen(async (req) => {
      const url = new URL(req.url);
      seen.push(`${req.method} ${url.pathname}`);
      if (req.method !== 'POST' || url.pathname !== '/app-manifests/abc123/conversions') {
        return new Response('unexpected', { status: 599 });
      }
      return Response.json({
        id: 77,
        slug: 'blitz-bot-test',
        html_url: 'https://github.com/apps/blitz-bot-test',
        pem: '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n',
        webhook_secret: 'whsec',
        client_id: 'Iv1.x',
        client_secret: 'cs',
      });
    });
    const envFile = join(dir, '.env');
    const store = openSqliteStore(':memory:');
    const app = createApp({
      store,
      metrics: createMetrics(),
      logger: createLogger({ level: 'silent' }),
      version: 't',
      receive: async () => {
        throw new Error('no webhook expected');
      },
      githubSetup: {
        manifest: { name: 'blitz-bot', default_events: ['issues'] },
        githubUrl: 'https://github.com',
        convert: (code) =>
          completeAppRegistration({
            code,
            baseUrl: github,
            envFile,
            logger: createLogger({ level: 'silent' }),
          }),
      },
    });
    const page = await (await app.request('http://bot.example:3000/probot')).text();
    expect(page).toContain('action="https://github.com/settings/apps/new"');
    expect(page).toContain('http://bot.example:3000/api/github/webhooks');
    expect(page).toContain('&quot;default_events&quot;:[&quot;issues&quot;]');
    const done = await app.request('/probot/setup?code=abc123');
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('https://github.com/apps/blitz-bot-test/installations/new');
    expect(seen).toEqual(['POST /app-manifests/abc123/conversions']);
    const written = readFileSync(envFile, 'utf8');
    expect(written).toContain('APP_ID=77\n');
    expect(written).toContain('WEBHOOK_SECRET=whsec\n');
    expect(written).toContain('BOT_LOGIN="blitz-bot-test[bot]"');
    expect(written).toMatch(/PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\\nMIIE/);
    const bad = await app.request('/probot/setup?code=../../etc');
    expect(bad.status).toBe(400);
  });
});

describe('octokit output', () => {
  it('goes through the logger: a refused manifest conversion is a log entry, not a console line', async () => {
    const github = await listen(() => Response.json({ message: 'Not Found' }, { status: 404 }));
    const entries: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => void entries.push(line) },
    });
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    cleanups.push(() => {
      consoleError.mockRestore();
      consoleWarn.mockRestore();
    });
    const dir = mkdtempSync(join(tmpdir(), 'blitz-setup-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const err = await completeAppRegistration({
      code: 'gone',
      baseUrl: github,
      envFile: join(dir, '.env'),
      logger,
    }).catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(404);
    expect(consoleError).not.toHaveBeenCalled();
    expect(consoleWarn).not.toHaveBeenCalled();
    const logged = entries.map((l) => JSON.parse(l) as { msg: string; detail?: string });
    expect(logged.find((e) => e.msg === 'octokit error')?.detail).toMatch(
      /POST \/app-manifests\/gone\/conversions - 404/,
    );
  });
});

const startServe = async (env: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), 'blitz-serve-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  // Port 0: the bot takes a free port and names it in its "listening" line (a port picked here could be
  // taken by another process before the bot binds it).
  const child = spawn(process.execPath, [mainJs, 'serve'], {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, 'blitz.db')}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => void child.kill('SIGKILL'));
  const output = { text: '' };
  child.stderr.on('data', (d) => {
    output.text += String(d);
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      output.text += String(d);
      const line = output.text.split('\n').find((l) => l.includes('blitz-bot listening'));
      const bound = line && /"port":(\d+)/.exec(line)?.[1];
      if (bound) resolve(Number(bound));
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output.text}`)));
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  return { base: `http://127.0.0.1:${port}`, output, stop };
};

/** Piped, every line the bot writes (stdout and stderr) is one JSON log entry: no library's plain text. */
const expectOnlyJsonLines = (text: string) => {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
};

describe('blitz-bot serve as a process', () => {
  it('configured for both forges, verifies GitHub deliveries through Probot and Gitea ones by HMAC', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    // The bot asks each forge who it is at start (GET /app, GET /user): contract-checked fakes answer
    // at once, where an unreachable address would cost the start its retries.
    const github = await startFakeGithub(new World('blitz-bot[bot]'), {
      app: { appId: 123, publicKey, installationId: 7 },
    });
    const gitea = await startFakeGitea(new World('blitz-bot'));
    cleanups.push(async () => {
      await github.close();
      await gitea.close();
      github.assertNoViolations();
      gitea.assertNoViolations();
    });
    const bot = await startServe({
      APP_ID: '123',
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: GITHUB_SECRET,
      GHE_HOST: new URL(github.url).host,
      GHE_PROTOCOL: 'http',
      BOT_LOGIN: 'blitz-bot[bot]',
      GITEA_URL: gitea.url,
      GITEA_TOKEN: gitea.token,
      GITEA_WEBHOOK_SECRET: GITEA_SECRET,
      GITEA_BOT_LOGIN: 'blitz-bot',
    });
    const star = signedGithubRequest({
      secret: GITHUB_SECRET,
      event: 'star',
      payload: githubExample('star', 'created'),
    });
    expect((await fetch(`${bot.base}/api/github/webhooks`, { method: 'POST', ...star })).status).toBe(202);
    const forged = signedGithubRequest({
      secret: 'nope',
      event: 'star',
      payload: githubExample('star', 'created'),
    });
    expect((await fetch(`${bot.base}/api/github/webhooks`, { method: 'POST', ...forged })).status).toBe(401);
    const push = signedGiteaRequest({
      secret: GITEA_SECRET,
      eventType: 'push',
      payload: { ref: 'refs/heads/main' },
    });
    expect((await fetch(`${bot.base}/api/gitea/webhooks`, { method: 'POST', ...push })).status).toBe(202);
    expect((await fetch(`${bot.base}/probot`)).status).toBe(404);
    expect(await bot.stop()).toBe(0);
    expect(bot.output.text).toContain('"github":true,"gitea":true');
    // Each login was asked of its forge and answered (the fakes were what the bot talked to).
    expect(github.requests.filter((r) => r.path.endsWith('/app')).map((r) => r.status)).toEqual([200]);
    expect(gitea.requests.filter((r) => r.path === '/api/v1/user').map((r) => r.status)).toEqual([200]);
    expect(bot.output.text).not.toContain(GITHUB_SECRET);
    expectOnlyJsonLines(bot.output.text);
  });

  it('starts unconfigured, serves /healthz, says what to set, and stops on SIGTERM', async () => {
    const bot = await startServe({});
    const health = await fetch(`${bot.base}/healthz`);
    expect(await health.json()).toMatchObject({ status: 'ok', store: true });
    expect(bot.output.text).toContain('GitHub is off: set APP_ID');
    expect(bot.output.text).toContain('Gitea is off: set GITEA_URL');
    expect((await fetch(`${bot.base}/probot`)).status).toBe(200);
    expect(await bot.stop()).toBe(0);
    expect(bot.output.text).toContain('"msg":"stopped"');
    expectOnlyJsonLines(bot.output.text);
  });
});
