// GET /healthz: is the process up and can it reach its store. 503 when the store does not answer, so a
// container orchestrator restarts or stops routing to it.
import { Hono } from 'hono';
import type { Store } from '../../store/types.ts';

export const healthRoutes = (opts: { store: Store; version: string }) =>
  new Hono().get('/', async (c) => {
    const store = await opts.store.ping().catch(() => false);
    return c.json({ status: store ? 'ok' : 'degraded', version: opts.version, store }, store ? 200 : 503);
  });
