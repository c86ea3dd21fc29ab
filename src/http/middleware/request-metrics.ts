// Times every request into the request-duration histogram, labelled by the matched route pattern
// (never the raw path, so label cardinality stays bounded).
import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Metrics } from '../../observability/metrics.ts';

export const requestMetrics = (opts: { metrics: Metrics }): MiddlewareHandler => {
  return async function requestMetrics(c, next) {
    const start = performance.now();
    try {
      await next();
    } finally {
      const route = matchedRoutes(c)
        .filter((r) => r.method !== 'ALL')
        .at(-1)?.path;
      opts.metrics.requestDuration.observe(
        { method: c.req.method, route: route ?? 'unmatched', status: String(c.res.status) },
        (performance.now() - start) / 1000,
      );
    }
  };
};
