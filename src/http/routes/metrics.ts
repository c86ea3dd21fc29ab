// GET /metrics: the Prometheus text exposition of this app's registry.
import { Hono } from 'hono';
import type { Metrics } from '../../observability/metrics.ts';

export const metricsRoutes = (opts: { metrics: Metrics }) =>
  new Hono().get('/', async (c) => {
    const body = await opts.metrics.registry.metrics();
    return c.text(body, 200, { 'content-type': opts.metrics.registry.contentType });
  });
