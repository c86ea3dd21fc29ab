// The one Hono app: webhook routes for each configured forge, health, metrics and (until GitHub is
// configured) the GitHub App registration page. Errors are mapped to HTTP once, in onError.
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError, httpStatusOf } from '../errors.ts';
import type { Received, ReceiveResult } from '../intake/receive.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RunnerHub } from '../remote-runner/hub.ts';
import type { StoreHealth } from '../store/store-health.ts';
import type { Store } from '../store/types.ts';
import { requestMetrics } from './middleware/request-metrics.ts';
import { apiV1Routes } from './routes/api-v1.ts';
import { giteaWebhookRoutes } from './routes/gitea-webhooks.ts';
import { type GithubAppSetupOptions, githubAppSetupRoutes } from './routes/github-app-setup.ts';
import { githubWebhookRoutes } from './routes/github-webhooks.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { runnerApiRoutes } from './routes/runner-api.ts';
import { schemaRoutes } from './routes/schemas.ts';
import { type StatusDeps, statusRoutes } from './routes/status.ts';

export interface AppDeps {
  store: Store;
  /** What the bot has seen of its store: /healthz names an outage and its reason. */
  health?: StoreHealth;
  metrics: Metrics;
  logger: Logger;
  version: string;
  receive: (r: Received) => Promise<ReceiveResult>;
  /** Present when GitHub is configured: verifies X-Hub-Signature-256 with WEBHOOK_SECRET. */
  github?: { verify: (payload: string, signature: string) => Promise<boolean> };
  /** Present when Gitea is configured. */
  gitea?: { webhookSecret: string };
  /** Present when GitHub is NOT configured: offers the app registration at /probot. */
  githubSetup?: GithubAppSetupOptions;
  maxBodyBytes?: number;
  /** Status pages; absent or without a token, they answer "status page is off". */
  status?: StatusDeps;
  /** Present when runner agents on other hosts may pull jobs: mounts /api/runner/*. */
  runnerHub?: RunnerHub;
}

// The error field of a refusal, named like the AppError code that would say the same.
const errorNameOf: Record<number, string> = {
  400: 'bad_request',
  401: 'bad_signature',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

export const createApp = (deps: AppDeps) => {
  const app = new Hono();
  app.use('*', requestMetrics({ metrics: deps.metrics }));
  app.route(
    '/healthz',
    healthRoutes({
      store: deps.store,
      version: deps.version,
      ...(deps.health ? { health: deps.health } : {}),
    }),
  );
  app.route('/metrics', metricsRoutes({ metrics: deps.metrics }));
  app.route('/schemas', schemaRoutes());

  const notConfigured = (forge: string, what: string) => () => {
    throw new HTTPException(404, { message: `${forge} is not configured on this bot: set ${what}` });
  };
  if (deps.github) {
    app.route(
      '/api/github/webhooks',
      githubWebhookRoutes({ verify: deps.github.verify, receive: deps.receive, maxBytes: deps.maxBodyBytes }),
    );
  } else {
    app.post('/api/github/webhooks', notConfigured('GitHub', 'APP_ID, PRIVATE_KEY and WEBHOOK_SECRET'));
  }
  if (deps.gitea) {
    app.route(
      '/api/gitea/webhooks',
      giteaWebhookRoutes({
        secret: deps.gitea.webhookSecret,
        receive: deps.receive,
        maxBytes: deps.maxBodyBytes,
      }),
    );
  } else {
    app.post(
      '/api/gitea/webhooks',
      notConfigured('Gitea', 'GITEA_URL, GITEA_TOKEN and GITEA_WEBHOOK_SECRET'),
    );
  }
  if (deps.githubSetup) app.route('/probot', githubAppSetupRoutes(deps.githubSetup));
  app.route('/api/v1', apiV1Routes(deps.status));
  app.route('/', statusRoutes(deps.status));
  if (deps.runnerHub) app.route('/api/runner', runnerApiRoutes({ hub: deps.runnerHub }));

  app.notFound((c) => c.json({ error: 'not_found', message: 'no such route' }, 404));
  app.onError((err, c) => {
    if (err instanceof HTTPException) {
      if (err.status >= 500) deps.logger.error({ err }, 'request failed');
      else deps.logger.info({ status: err.status, reason: err.message, path: c.req.path }, 'request refused');
      return c.json({ error: errorNameOf[err.status] ?? 'bad_request', message: err.message }, err.status);
    }
    if (err instanceof AppError) {
      const status = httpStatusOf(err);
      if (status >= 500) deps.logger.error({ err, code: err.code }, 'request failed');
      else deps.logger.info({ code: err.code, reason: err.message, ...err.details }, 'request refused');
      return c.json({ error: err.code, message: err.message }, status as 400);
    }
    deps.logger.error({ err }, 'request failed');
    return c.json({ error: 'internal', message: 'internal error' }, 500);
  });
  return app;
};

export type App = ReturnType<typeof createApp>;
