// Prometheus metrics, one registry per app instance (no global default registry, so tests and several
// apps in one process never share counters). Served as text at GET /metrics.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { BudgetSnapshot } from '../forges/rate-budget.ts';

/** What the stores say about runs and attempts, read on each scrape (see setRunFigures). */
export interface RunFigures {
  runsByState: Record<string, number>;
  /** Attempts by outcome class (`running` while open) and tool. */
  attempts: { outcome: string; tool: string; count: number }[];
  /** Worker wall-clock seconds by tool (open attempts count up to now). */
  workerSeconds: { tool: string; seconds: number }[];
  /** Tokens by tool and kind (input, output, cache). */
  tokens: { tool: string; kind: 'input' | 'output' | 'cache'; count: number }[];
}

/** Scrapes within this window share one read of the stores. */
const figuresCacheMs = 1_000;

export interface Metrics {
  registry: Registry;
  /** Webhook deliveries by forge, event and outcome (accepted, ignored, duplicate, rejected). */
  deliveries: Counter<'forge' | 'event' | 'outcome'>;
  /** Failed processings of accepted deliveries: `retry` (tried again later) or `failed` (given up on). */
  deliveryFailures: Counter<'forge' | 'outcome'>;
  /** Slash commands by name and outcome (queued, refused, ignored, malformed, failed). */
  commands: Counter<'name' | 'outcome'>;
  /** Deliveries waiting in the spool on disk for the store to come back. */
  spoolDepth: Gauge;
  /** Deliveries by spool outcome: `spooled`, `replayed`, `refused` (the spool was full: answered 503). */
  spooled: Counter<'outcome'>;
  /**
   * What recovery after a restart or outage found (intake/recover.ts): `redelivery_asked` (a failed
   * GitHub delivery GitHub was asked to send again), `comment_taken` (a Gitea command whose webhook was missed).
   */
  recovered: Counter<'forge' | 'outcome'>;
  /** HTTP request durations by method, route and status. */
  requestDuration: Histogram<'method' | 'route' | 'status'>;
  /** How long a reconcile of a run took (its passes together, forge requests included). */
  reconcileDuration: Histogram;
  /** Forge API requests by forge and outcome (`ok`, `4xx`, `5xx`, `network`); the forge clients count them. */
  forgeRequests: Counter<'forge' | 'outcome'>;
  /** Rate-limit requests remaining as the forge last reported it; the forge clients set it. */
  forgeRateLimitRemaining: Gauge<'forge'>;
  runsByState: Gauge<'state'>;
  attempts: Gauge<'outcome' | 'tool'>;
  workerSeconds: Gauge<'tool'>;
  tokens: Gauge<'tool' | 'kind'>;
  /** Where the run and attempt gauges read from on scrape; unset, they stay empty. */
  setRunFigures(source: () => Promise<RunFigures>): void;
  /** Rate-limit budget per forge key (`github:<installation>`) and resource (core, graphql), read on scrape. */
  forgeBudgetRemaining: Gauge<'key' | 'resource'>;
  forgeBudgetLimit: Gauge<'key' | 'resource'>;
  forgeBudgetResetSeconds: Gauge<'key' | 'resource'>;
  /** Content-creating requests (GitHub's secondary limit: 80 a minute, 500 an hour) per key and window. */
  forgeWrites: Gauge<'key' | 'window'>;
  /** Where the budget gauges read from (the forges' budget tracker); unset, they stay empty. */
  setBudgetSource(source: () => BudgetSnapshot[]): void;
}

export const createMetrics = (opts: { defaultMetrics?: boolean } = {}): Metrics => {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry });
  let source: (() => Promise<RunFigures>) | undefined;
  let budgets: () => BudgetSnapshot[] = () => [];
  const budgetGauge = (
    name: string,
    help: string,
    pick: (w: BudgetSnapshot['resources'][string]) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['key', 'resource'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const b of budgets())
          for (const [resource, w] of Object.entries(b.resources))
            this.set({ key: b.key, resource }, pick(w));
      },
    });
  let cached: { at: number; figures: Promise<RunFigures | undefined> } | undefined;
  // Each gauge collects separately; one read of the stores serves them all within one scrape.
  const figures = (): Promise<RunFigures | undefined> => {
    const now = Date.now();
    if (!cached || now - cached.at > figuresCacheMs) {
      cached = { at: now, figures: source ? source().catch(() => undefined) : Promise.resolve(undefined) };
    }
    return cached.figures;
  };
  return {
    registry,
    setRunFigures(next) {
      source = next;
      cached = undefined;
    },
    setBudgetSource(next) {
      budgets = next;
    },
    forgeBudgetRemaining: budgetGauge(
      'blitz_forge_rate_limit_budget_remaining',
      'Rate-limit requests left per forge installation and resource, from the last x-ratelimit-* headers',
      (w) => w.remaining,
    ),
    forgeBudgetLimit: budgetGauge(
      'blitz_forge_rate_limit_budget_limit',
      'Rate-limit size per forge installation and resource',
      (w) => w.limit,
    ),
    forgeBudgetResetSeconds: budgetGauge(
      'blitz_forge_rate_limit_reset_seconds',
      'When the rate-limit window resets (unix seconds) per forge installation and resource',
      (w) => w.resetAt / 1000,
    ),
    forgeWrites: new Gauge({
      name: 'blitz_forge_content_writes',
      help: 'Content-creating forge requests per installation in the last minute and hour (secondary limit 80/min, 500/h)',
      labelNames: ['key', 'window'],
      registers: [registry],
      collect() {
        this.reset();
        for (const b of budgets()) {
          this.set({ key: b.key, window: 'minute' }, b.writesLastMinute);
          this.set({ key: b.key, window: 'hour' }, b.writesLastHour);
        }
      },
    }),
    forgeRequests: new Counter({
      name: 'blitz_forge_requests_total',
      help: 'Forge API requests by forge and outcome',
      labelNames: ['forge', 'outcome'],
      registers: [registry],
    }),
    forgeRateLimitRemaining: new Gauge({
      name: 'blitz_forge_rate_limit_remaining',
      help: 'Forge API requests remaining in the current rate-limit window, as last reported',
      labelNames: ['forge'],
      registers: [registry],
    }),
    runsByState: new Gauge({
      name: 'blitz_runs',
      help: 'Runs by state',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const f = await figures();
        this.reset();
        for (const [state, n] of Object.entries(f?.runsByState ?? {})) this.set({ state }, n);
      },
    }),
    attempts: new Gauge({
      name: 'blitz_attempts',
      help: 'Worker attempts by outcome class and tool',
      labelNames: ['outcome', 'tool'],
      registers: [registry],
      async collect() {
        const f = await figures();
        this.reset();
        for (const a of f?.attempts ?? []) this.set({ outcome: a.outcome, tool: a.tool }, a.count);
      },
    }),
    workerSeconds: new Gauge({
      name: 'blitz_worker_seconds',
      help: 'Worker wall-clock seconds by tool',
      labelNames: ['tool'],
      registers: [registry],
      async collect() {
        const f = await figures();
        this.reset();
        for (const w of f?.workerSeconds ?? []) this.set({ tool: w.tool }, w.seconds);
      },
    }),
    tokens: new Gauge({
      name: 'blitz_tokens',
      help: 'Tokens reported by worker tools, by tool and kind',
      labelNames: ['tool', 'kind'],
      registers: [registry],
      async collect() {
        const f = await figures();
        this.reset();
        for (const t of f?.tokens ?? []) this.set({ tool: t.tool, kind: t.kind }, t.count);
      },
    }),
    deliveries: new Counter({
      name: 'blitz_webhook_deliveries_total',
      help: 'Webhook deliveries by forge, event and outcome',
      labelNames: ['forge', 'event', 'outcome'],
      registers: [registry],
    }),
    deliveryFailures: new Counter({
      name: 'blitz_webhook_delivery_failures_total',
      help: 'Failed processings of accepted deliveries, by forge and outcome (retry, failed)',
      labelNames: ['forge', 'outcome'],
      registers: [registry],
    }),
    commands: new Counter({
      name: 'blitz_commands_total',
      help: 'Slash commands by name and outcome',
      labelNames: ['name', 'outcome'],
      registers: [registry],
    }),
    spoolDepth: new Gauge({
      name: 'blitz_spool_deliveries',
      help: 'Deliveries waiting in the spool on disk for the store to come back',
      registers: [registry],
    }),
    spooled: new Counter({
      name: 'blitz_spool_deliveries_total',
      help: 'Deliveries by spool outcome (spooled, replayed, refused)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    recovered: new Counter({
      name: 'blitz_recovered_total',
      help: 'Missed webhooks recovered after a restart or outage (redelivery_asked, comment_taken)',
      labelNames: ['forge', 'outcome'],
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'blitz_http_request_duration_seconds',
      help: 'HTTP request durations',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    reconcileDuration: new Histogram({
      name: 'blitz_reconcile_seconds',
      help: 'Duration of one reconcile of a run (its passes together, forge requests included)',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
};
