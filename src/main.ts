// Composition root and CLI. `serve` (the default): config → logger → store → forges → http → listen,
// with graceful shutdown on SIGTERM/SIGINT (close the server, drain the queue, close the store).
// Unconfigured, it still serves /healthz and says in plain words what to set for GitHub and Gitea.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { serve as serveHttp } from '@hono/node-server';
import { Probot } from 'probot';
import { z } from 'zod';
import { loadAppManifest } from './config/app-manifest.ts';
import { loadDotenvFile } from './config/dotenv.ts';
import { configurationHints, type Env, loadEnv } from './config/env.ts';
import { completeAppRegistration } from './config/github-app-registration.ts';
import { AppError } from './errors.ts';
import { githubBaseUrl } from './forges/github/index.ts';
import { createApp } from './http/app.ts';
import { createDeliveryQueue } from './intake/delivery-queue.ts';
import { createForgeResolver } from './intake/forge-resolver.ts';
import { createEventProcessor } from './intake/process-events.ts';
import { createReceiver, resumeUnprocessed } from './intake/receive.ts';
import { loadRepoPolicy } from './intake/repo-policy.ts';
import { createLogger, type Logger } from './observability/logger.ts';
import { createMetrics } from './observability/metrics.ts';
import { runRunnerCli } from './remote-runner/cli.ts';
import { openRunnerSide } from './remote-runner/open-runner-side.ts';
import { runStatsCli } from './status/stats-command.ts';
import { openStore } from './store/open-store.ts';

const packageVersion = (): string =>
  z
    .object({ version: z.string() })
    .parse(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))).version;

/** The App's own login (`<slug>[bot]`), from BOT_LOGIN or asked of GitHub; loop prevention needs it. */
const githubBotLogin = async (env: Env, probot: Probot, logger: Logger): Promise<string> => {
  if (env.BOT_LOGIN) return env.BOT_LOGIN;
  try {
    const octokit = await probot.auth();
    const { data } = await octokit.request('GET /app');
    const slug = z.object({ slug: z.string() }).parse(data).slug;
    return `${slug}[bot]`;
  } catch (err) {
    logger.warn(
      { err },
      'could not read the GitHub App slug; set BOT_LOGIN so the bot ignores its own comments',
    );
    return '';
  }
};

export const serve = async (): Promise<() => Promise<void>> => {
  loadDotenvFile();
  const env = loadEnv();
  const logger = createLogger({ level: env.LOG_LEVEL });
  const version = packageVersion();
  const store = await openStore(env.DATABASE_URL);
  const metrics = createMetrics({ defaultMetrics: true });
  const queue = createDeliveryQueue({ logger });
  const baseUrl = githubBaseUrl({ host: env.GHE_HOST, protocol: env.GHE_PROTOCOL });

  const probot = env.github
    ? new Probot({
        appId: env.github.appId,
        privateKey: env.github.privateKey,
        secret: env.github.webhookSecret,
        baseUrl,
        log: logger.child({ name: 'probot' }),
      })
    : undefined;
  // Probot 14 builds its webhooks (and their verify) asynchronously.
  await probot?.ready();
  const githubLogin = probot ? await githubBotLogin(env, probot, logger) : (env.BOT_LOGIN ?? '');
  const giteaLogin = env.gitea?.botLogin ?? '';
  if (env.gitea && !env.gitea.botLogin) {
    logger.warn(
      'GITEA_BOT_LOGIN is not set: set it to the bot account login so the bot ignores its own comments',
    );
  }

  const forges = createForgeResolver({
    logger,
    ...(env.github ? { github: { ...env.github, baseUrl, botLogin: githubLogin } } : {}),
    ...(env.gitea ? { gitea: { url: env.gitea.url, token: env.gitea.token, botLogin: giteaLogin } } : {}),
  });
  const policy = (botLogin: string) => ({
    required: env.BLITZ_PERMISSION,
    botLogin,
    allowedBots: env.BLITZ_ALLOWED_BOTS,
  });
  const processEvents = createEventProcessor({
    store,
    forges,
    logger,
    metrics,
    policies: { github: policy(githubLogin), gitea: policy(giteaLogin) },
    ack: { github: 'reaction', gitea: 'comment' },
    repoPolicy: loadRepoPolicy,
  });
  const intake = { store, queue, process: processEvents, metrics, logger };
  const receive = createReceiver(intake);
  const webhooks = probot?.webhooks;
  if (env.github && !webhooks)
    throw new AppError('internal', 'Probot did not set up its webhooks: cannot verify GitHub');
  const runners = await openRunnerSide(env.DATABASE_URL, logger);
  const app = createApp({
    store,
    metrics,
    logger,
    version,
    receive,
    runnerHub: runners.hub,
    ...(webhooks ? { github: { verify: (payload, signature) => webhooks.verify(payload, signature) } } : {}),
    ...(env.gitea ? { gitea: { webhookSecret: env.gitea.webhookSecret } } : {}),
    ...(env.APP_ID
      ? {}
      : {
          githubSetup: {
            manifest: loadAppManifest(),
            createAppUrl: `${env.GHE_PROTOCOL}://${env.GHE_HOST ?? 'github.com'}/settings/apps/new`,
            ...(env.WEBHOOK_PROXY_URL ? { webhookUrl: env.WEBHOOK_PROXY_URL } : {}),
            convert: (code: string) => completeAppRegistration({ code, baseUrl }),
          },
        }),
  });

  const server = serveHttp({ fetch: app.fetch, port: env.PORT, ...(env.HOST ? { hostname: env.HOST } : {}) });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  logger.info(
    { port: env.PORT, version, github: Boolean(env.github), gitea: Boolean(env.gitea) },
    'blitz-bot listening',
  );
  for (const hint of configurationHints(env)) logger.info(hint);
  await resumeUnprocessed(intake);
  if (!env.APP_ID) logger.info(`To register the GitHub App, open http://localhost:${env.PORT}/probot`);

  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= (async () => {
      logger.info('shutting down');
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue.drain();
      await runners.close();
      await store.close();
      logger.info('stopped');
    })());
};

const usage =
  'usage: blitz-bot [serve] | runner … | runner flush FILE … | runner-token create|revoke|list | stats [--run ID] [--json]';

const main = async (): Promise<void> => {
  const command = process.argv[2] ?? 'serve';
  if (command === 'runner' || command === 'runner-token') {
    process.exitCode = await runRunnerCli(command, process.argv.slice(3));
    return;
  }
  if (command === 'stats') {
    process.exitCode = await runStatsCli(process.argv.slice(3));
    return;
  }
  if (command !== 'serve') {
    console.error(`unknown command "${command}"\n${usage}`);
    process.exit(2);
  }
  const stop = await serve();
  const onSignal = (signal: NodeJS.Signals) => {
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`shutdown after ${signal} failed`, err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
