// The one HTTP app of `serve`: webhooks of each configured forge, health, metrics, the runner API,
// the status pages (on STATUS_TOKEN) and, until GitHub is configured, the App registration page.
import { loadAppManifest } from '../config/app-manifest.ts';
import type { Env } from '../config/env.ts';
import { completeAppRegistration } from '../config/github-app-registration.ts';
import type { BudgetTracker } from '../forges/rate-budget.ts';
import { forgeWebLinks } from '../forges/web-links.ts';
import { createApp } from '../http/app.ts';
import type { Received, ReceiveResult } from '../intake/receive.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Redact } from '../observability/redact.ts';
import type { PriceTable } from '../plan/cost.ts';
import type { RunnerHub } from '../remote-runner/hub.ts';
import type { AttemptLedger } from '../runner/types.ts';
import type { RunEvents } from '../status/run-events.ts';
import { createStatusDeps } from '../status/status-deps.ts';
import type { RunStore } from '../store/run-store.ts';
import type { RunnerRegistry } from '../store/runner-tokens.ts';
import type { StoreHealth } from '../store/store-health.ts';
import type { Store } from '../store/types.ts';

export interface HttpAppDeps {
  env: Env;
  store: Store;
  health?: StoreHealth;
  runs: RunStore & { ledger: AttemptLedger };
  metrics: Metrics;
  logger: Logger;
  version: string;
  receive: (r: Received) => Promise<ReceiveResult>;
  runnerHub: RunnerHub;
  /** The registered runners, for the status page's list. */
  runnerRegistry?: Pick<RunnerRegistry, 'listTokens'>;
  runEvents: RunEvents;
  /** The runner workspace: the only place the status pages read logs from. */
  workspace: string;
  /** Secrets out of the worker logs the status pages show. */
  redact: Redact;
  /** GitHub REST base URL (for the App registration). */
  baseUrl: string;
  /** The forges' rate-limit budgets, for the status page. */
  budget?: Pick<BudgetTracker, 'all' | 'paceOf'>;
  /** What prices attempts on the pages and in the API (the config's `prices:` over the defaults). */
  prices?: PriceTable;
  /** Present when GitHub is configured: verifies X-Hub-Signature-256. */
  verifyGithub?: (payload: string, signature: string) => Promise<boolean>;
}

export const buildHttpApp = (d: HttpAppDeps) => {
  const { env } = d;
  return createApp({
    store: d.store,
    ...(d.health ? { health: d.health } : {}),
    metrics: d.metrics,
    logger: d.logger,
    version: d.version,
    receive: d.receive,
    runnerHub: d.runnerHub,
    status: createStatusDeps({
      statusToken: env.STATUS_TOKEN,
      runs: d.runs,
      deliveries: d.store,
      events: d.runEvents,
      logger: d.logger,
      metrics: d.metrics,
      workspace: d.workspace,
      redact: d.redact,
      ...(d.budget ? { budget: d.budget } : {}),
      ...(d.prices ? { prices: d.prices } : {}),
      links: forgeWebLinks({
        github: env.GHE_HOST ? `${env.GHE_PROTOCOL}://${env.GHE_HOST}` : 'https://github.com',
        ...(env.GITEA_URL ? { gitea: env.GITEA_URL } : {}),
      }),
      ...(d.runnerRegistry ? { runners: d.runnerRegistry } : {}),
    }),
    ...(d.verifyGithub ? { github: { verify: d.verifyGithub } } : {}),
    ...(env.gitea ? { gitea: { webhookSecret: env.gitea.webhookSecret } } : {}),
    ...(env.APP_ID
      ? {}
      : {
          githubSetup: {
            manifest: loadAppManifest(),
            githubUrl: `${env.GHE_PROTOCOL}://${env.GHE_HOST ?? 'github.com'}`,
            ...(env.WEBHOOK_PROXY_URL ? { webhookUrl: env.WEBHOOK_PROXY_URL } : {}),
            trustProxy: env.TRUST_PROXY === 'true',
            convert: (code: string) =>
              completeAppRegistration({
                code,
                baseUrl: d.baseUrl,
                envFile: env.BLITZ_ENV_FILE ?? '.env',
                logger: d.logger,
              }),
            logger: d.logger,
          },
        }),
  });
};
