// Prometheus metrics, one registry per app instance (no global default registry, so tests and several
// apps in one process never share counters). Served as text at GET /metrics.
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  /** Webhook deliveries by forge, event and outcome (accepted, ignored, duplicate, rejected). */
  deliveries: Counter<'forge' | 'event' | 'outcome'>;
  /** Slash commands by name and outcome (queued, refused, ignored, malformed, failed). */
  commands: Counter<'name' | 'outcome'>;
  /** HTTP request durations by method, route and status. */
  requestDuration: Histogram<'method' | 'route' | 'status'>;
}

export const createMetrics = (opts: { defaultMetrics?: boolean } = {}): Metrics => {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    deliveries: new Counter({
      name: 'blitz_webhook_deliveries_total',
      help: 'Webhook deliveries by forge, event and outcome',
      labelNames: ['forge', 'event', 'outcome'],
      registers: [registry],
    }),
    commands: new Counter({
      name: 'blitz_commands_total',
      help: 'Slash commands by name and outcome',
      labelNames: ['name', 'outcome'],
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'blitz_http_request_duration_seconds',
      help: 'HTTP request durations',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
};
