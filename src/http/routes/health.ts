// GET /healthz: is the process up and can it reach its store. 503 when the store does not answer, so a
// container orchestrator restarts or stops routing to it. With the bot's store health (store-health.ts)
// it names the part that is down and why (`reason`, `since`), and answers 200 again once it is back.
import { Hono } from 'hono';
import type { StoreHealth } from '../../store/store-health.ts';
import type { Store } from '../../store/types.ts';

export const healthRoutes = (opts: { store?: Store; health?: StoreHealth; version: string }) =>
  new Hono().get('/', async (c) => {
    const { health } = opts;
    // Up: a live ping, so /healthz notices an outage at once. Down (or no store yet): the health's
    // own probe, when its backoff allows.
    if (health && (!health.status().ok || !opts.store || !(await opts.store.ping().catch(() => false))))
      await health.check();
    const status = health?.status() ?? {
      ok: opts.store ? await opts.store.ping().catch(() => false) : false,
    };
    if (status.ok) return c.json({ status: 'ok', version: opts.version, store: true }, 200);
    const part =
      'reason' in status
        ? { reason: status.reason, since: status.since, downSeconds: status.downSeconds }
        : { reason: 'store: it does not answer' };
    return c.json({ status: 'degraded', version: opts.version, store: false, ...part }, 503);
  });
