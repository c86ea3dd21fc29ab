// `serve`'s early socket (src/http/early-listener.ts) on a real loopback port over a real SQLite store:
// /healthz answers from the store before the bot is composed, every other request waits for the app
// and is then answered by it, and once handed over the app answers everything, /healthz included.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listenEarly } from '../../src/http/early-listener.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { removeDir, tempDir } from '../support/git.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const start = async () => {
  const dir = tempDir('blitz-early-');
  cleanups.push(() => removeDir(dir));
  const store = openSqliteStore(join(dir, 'blitz.db'));
  const listener = await listenEarly({ port: 0, hostname: '127.0.0.1', store, version: '9.9.9' });
  cleanups.push(() => new Promise<void>((resolve) => listener.server.close(() => resolve())));
  cleanups.push(() => store.close().catch(() => undefined));
  return { store, listener, base: `http://127.0.0.1:${listener.port}` };
};

describe('the early listener of serve', () => {
  it('answers /healthz from the store before the app exists, and holds other requests until it does', async () => {
    const { listener, base } = await start();
    let answered = false;
    const webhook = fetch(`${base}/api/gitea/webhooks`, { method: 'POST', body: '{}' }).then((res) => {
      answered = true;
      return res;
    });
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', version: '9.9.9', store: true });
    // The webhook was sent first, yet only /healthz has been answered: the other waits for the app.
    expect(answered).toBe(false);
    const seen: string[] = [];
    listener.handOver(async (req) => {
      seen.push(`${req.method} ${new URL(req.url).pathname}`);
      return new Response('from the app', { status: 202 });
    });
    const res = await webhook;
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('from the app');
    // Handed over, the app answers /healthz too (its own route, with its metrics).
    expect(await (await fetch(`${base}/healthz`)).text()).toBe('from the app');
    expect(seen).toEqual(['POST /api/gitea/webhooks', 'GET /healthz']);
  });

  it('answers 503 on /healthz when the store does not answer', async () => {
    const { store, base } = await start();
    await store.close();
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: 'degraded', store: false });
  });

  it('refuses a port that is taken, with the listen error', async () => {
    const { listener } = await start();
    const store = openSqliteStore(join(tempDir('blitz-early-'), 'b.db'));
    cleanups.push(() => store.close());
    // Tried: a second listener on the first one's port.
    await expect(
      listenEarly({ port: listener.port, hostname: '127.0.0.1', store, version: 'x' }),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});
