// `serve`'s socket, open before the bot is composed: loading the whole bot takes seconds of a cold
// start, and a container's health check should not wait for it. Until the bot's app is handed over,
// GET /healthz answers from the store (the same route the app has: up, and the store answers) and every
// other request waits for the app, so a webhook that arrives during start-up is handled, not refused.
import type { AddressInfo } from 'node:net';
import { serve as serveHttp } from '@hono/node-server';
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
  store: Store;
  version: string;
}): Promise<EarlyListener> => {
  const health = healthRoutes({ store: o.store, version: o.version });
  let app: Fetch | undefined;
  let ready!: () => void;
  const appReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const fetch: Fetch = async (req) => {
    if (app) return app(req);
    const { pathname } = new URL(req.url);
    if (req.method === 'GET' && pathname === '/healthz') return health.request('/');
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
