// `serve`'s socket, open before the bot is composed: loading the whole bot takes seconds of a cold
// start, and a container's health check should not wait for it. Until the bot's app is handed over,
// GET /healthz answers from the store (the same route the app has: up, and the store answers) and every
// other request waits for the app, so a webhook that arrives during start-up is handled, not refused,
// unless the store has not come up yet: then it is answered 503 at once.
import type { AddressInfo } from 'node:net';
import { serve as serveHttp } from '@hono/node-server';
import type { StoreHealth } from '../store/store-health.ts';
import type { Store } from '../store/types.ts';
import { healthRoutes } from './routes/health.ts';

type Fetch = (req: Request) => Response | Promise<Response>;

export interface EarlyListener {
  server: ReturnType<typeof serveHttp>;
  port: number;
  /** From now on the app answers everything; requests that were waiting go to it. */
  handOver(fetch: Fetch): void;
}

export const listenEarly = async (o: {
  port: number;
  hostname?: string;
  /** The store once open; `serve` may still be waiting for it (then `health` says why). */
  store?: Store;
  health?: StoreHealth;
  version: string;
}): Promise<EarlyListener> => {
  const health = healthRoutes({
    ...(o.store ? { store: o.store } : {}),
    ...(o.health ? { health: o.health } : {}),
    version: o.version,
  });
  let app: Fetch | undefined;
  let ready!: () => void;
  const appReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const fetch: Fetch = async (req) => {
    if (app) return app(req);
    const { pathname } = new URL(req.url);
    if (req.method === 'GET' && pathname === '/healthz') return health.request('/');
    // The store has not come up yet (serve keeps trying): a webhook cannot be taken now. 503 says so
    // (GitHub keeps it as a failed delivery to redeliver) instead of holding the request open.
    const down = o.health?.status();
    if (down && !down.ok)
      return Response.json(
        {
          error: 'store_error',
          message: `The bot is waiting for its store (${down.reason}); try again later.`,
        },
        { status: 503, headers: { 'retry-after': '30' } },
      );
    await appReady;
    return (app as unknown as Fetch)(req);
  };
  const server = serveHttp({ fetch, port: o.port, ...(o.hostname ? { hostname: o.hostname } : {}) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      // Later server errors are not this start's: they stay as unhandled as the app's own server's.
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    handOver(fetch) {
      app = fetch;
      ready();
    },
  };
};
