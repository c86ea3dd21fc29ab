// /probot, the GitHub App registration by manifest, through the real app: the URLs it gives GitHub
// behind a TLS proxy (only with TRUST_PROXY), registration under an organisation, and a failed code
// exchange explained on the page (GitHub unreachable, a refused code, an .env that cannot be written)
// instead of `500 {"error":"internal"}`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { completeAppRegistration } from '../../src/config/github-app-registration.ts';
import { createApp } from '../../src/http/app.ts';
import type { GithubAppSetupOptions } from '../../src/http/routes/github-app-setup.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';

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

/** A loopback port nothing listens on: taken, then released. */
const closedPort = async (): Promise<number> => {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
};

const setupApp = (over: Partial<GithubAppSetupOptions> & { baseUrl?: string; envFile?: string } = {}) => {
  const store = openSqliteStore(':memory:');
  cleanups.push(() => store.close());
  const logger = createLogger({ level: 'silent' });
  const { baseUrl, envFile, ...setup } = over;
  return createApp({
    store,
    metrics: createMetrics(),
    logger,
    version: 't',
    receive: async () => {
      throw new Error('no webhook expected');
    },
    githubSetup: {
      manifest: { name: 'blitz-bot' },
      githubUrl: 'https://github.com',
      convert: (code) =>
        completeAppRegistration({
          code,
          baseUrl: baseUrl ?? 'http://127.0.0.1:9',
          envFile: envFile ?? join(tmpdir(), 'never-written.env'),
          logger,
        }),
      ...setup,
    },
  });
};

/** The manifest the page's form posts to GitHub, and where it posts it. */
const formOf = async (res: Response) => {
  const page = await res.text();
  const value = /name="manifest" value="([^"]*)"/.exec(page)?.[1] ?? '';
  const manifest = JSON.parse(value.replaceAll('&quot;', '"').replaceAll('&amp;', '&')) as {
    hook_attributes: { url: string };
    redirect_url: string;
  };
  return { action: /<form id="register" action="([^"]*)"/.exec(page)?.[1], manifest, page };
};

const proxied = {
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'bot.example.com',
};

describe('/probot behind a reverse proxy', () => {
  it('with TRUST_PROXY, gives GitHub the https address the proxy names', async () => {
    const app = setupApp({ trustProxy: true });
    const { manifest } = await formOf(await app.request('http://10.0.0.5:3000/probot', { headers: proxied }));
    expect(manifest.hook_attributes.url).toBe('https://bot.example.com/api/github/webhooks');
    expect(manifest.redirect_url).toBe('https://bot.example.com/probot/setup');
    // A list (proxy chain) counts by its first entry, as the client's proxy wrote it.
    const chained = await formOf(
      await app.request('http://10.0.0.5:3000/probot', {
        headers: { 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'bot.example.com:8443, 10.0.0.5' },
      }),
    );
    expect(chained.manifest.redirect_url).toBe('https://bot.example.com:8443/probot/setup');
  });

  it('without it, ignores the headers; with it, a host that is not a host name is ignored too', async () => {
    const off = await formOf(
      await setupApp().request('http://bot.internal:3000/probot', { headers: proxied }),
    );
    expect(off.manifest.hook_attributes.url).toBe('http://bot.internal:3000/api/github/webhooks');
    const hostile = await formOf(
      await setupApp({ trustProxy: true }).request('http://bot.internal:3000/probot', {
        headers: { 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example/x?' },
      }),
    );
    expect(hostile.manifest.redirect_url).toBe('http://bot.internal:3000/probot/setup');
  });
});

describe('/probot under an organisation', () => {
  it('posts the manifest to the organisation’s new-app page; a bad name is refused', async () => {
    const app = setupApp({ githubUrl: 'https://ghe.example.com/' });
    const mine = await formOf(await app.request('http://bot:3000/probot'));
    expect(mine.action).toBe('https://ghe.example.com/settings/apps/new');
    const org = await formOf(await app.request('http://bot:3000/probot?org=acme-inc'));
    expect(org.action).toBe('https://ghe.example.com/organizations/acme-inc/settings/apps/new');
    expect(org.page).toContain('owned by the organisation <strong>acme-inc</strong>');
    for (const bad of ['../x', 'acme/inc', '-acme', 'a'.repeat(40)])
      expect((await app.request(`http://bot:3000/probot?org=${encodeURIComponent(bad)}`)).status, bad).toBe(
        400,
      );
  });
});

describe('/probot/setup when the exchange fails', () => {
  it('GitHub unreachable: a 502 page saying so and to reload while the code is valid, not a bare 500', async () => {
    const app = setupApp({ baseUrl: `http://127.0.0.1:${await closedPort()}` });
    const res = await app.request('/probot/setup?code=abc123');
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('could not reach GitHub');
    expect(page).toContain('ECONNREFUSED');
    expect(page).toContain('reload this page');
    expect(page).not.toContain('"error"');
  });

  it('a code GitHub refuses: says it is used, expired or from another GitHub', async () => {
    const github = await listen(() => Response.json({ message: 'Not Found' }, { status: 404 }));
    const res = await setupApp({ baseUrl: github }).request('/probot/setup?code=abc123');
    expect(res.status).toBe(502);
    const page = await res.text();
    expect(page).toContain('GitHub refused the registration code (HTTP 404)');
    expect(page).toContain('start again at /probot');
  });

  it('an .env that cannot be written: says the app exists on GitHub and what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-probot-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const github = await listen(() =>
      Response.json({
        id: 77,
        html_url: 'https://github.com/apps/x',
        pem: 'pem',
        webhook_secret: 'whsec-not-on-the-page',
        client_id: 'Iv1.x',
        client_secret: 'cs',
      }),
    );
    const envFile = join(dir, 'missing-dir', '.env');
    const res = await setupApp({ baseUrl: github, envFile }).request('/probot/setup?code=abc123');
    expect(res.status).toBe(500);
    const page = await res.text();
    expect(page).toContain('could not be written to .env (ENOENT)');
    expect(page).not.toContain('whsec-not-on-the-page');
    expect(() => readFileSync(envFile)).toThrow();
  });
});
