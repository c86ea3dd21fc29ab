#!/usr/bin/env node
// CLI and entry point. `serve` (the default): env → logger → operator config → the composed bot
// (compose/bot.ts) → listen, with graceful shutdown on SIGTERM/SIGINT (workers keep running detached).
// Unconfigured, it still serves /healthz and says in plain words what to set for GitHub and Gitea.
// Each subcommand's modules are imported only when that subcommand runs, so `--version`, `runner …`
// and `stats` do not load the whole bot (a runner host restarting starts in about node's own time).
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Logger } from './observability/logger.ts';
import type { StoreHealth } from './store/store-health.ts';
import type { Store } from './store/types.ts';

const packageVersion = (): string => {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  if (typeof pkg !== 'object' || pkg === null || !('version' in pkg) || typeof pkg.version !== 'string')
    throw new Error('package.json has no version');
  return pkg.version;
};

/**
 * Opens the store and the socket first (so /healthz answers within about a second of a cold start),
 * then builds the whole bot (see compose/bot.ts), starts it, and returns its stop.
 */
export const serve = async (): Promise<() => Promise<void>> => {
  const [
    { loadBlitzConfig, runnerBaseEnv },
    { loadDotenvFile },
    envModule,
    log,
    { openStore, storeEngineName },
    early,
    { createStoreHealth, writeProbeOf },
    heap,
  ] = await Promise.all([
    import('./config/blitz-config.ts'),
    import('./config/dotenv.ts'),
    import('./config/env.ts'),
    import('./observability/logger.ts'),
    import('./store/open-store.ts'),
    import('./http/early-listener.ts'),
    import('./store/store-health.ts'),
    import('./observability/heap.ts'),
  ]);
  loadDotenvFile();
  const env = envModule.loadEnv();
  const logger = log.createLogger({
    level: env.LOG_LEVEL,
    ...(env.LOG_FORMAT ? { format: env.LOG_FORMAT } : {}),
  });
  const version = packageVersion();
  // A broken operator file stops the start with its field errors; a missing one means defaults.
  const config = loadBlitzConfig(env.BLITZ_CONFIG, {});
  // The store may be down when the bot starts: /healthz says so (503, with the reason), webhooks are
  // answered 503 until it opens, and the opening is retried with backoff instead of exiting.
  let opened: Store | undefined;
  const health = createStoreHealth({
    engine: storeEngineName(env.DATABASE_URL),
    probe: async () => (opened ? opened.ping() : false),
    writeProbe: async () => {
      if (!opened) throw Object.assign(new Error('the store is not open yet'), { code: 'ECONNREFUSED' });
      await writeProbeOf(opened)();
    },
    logger: logger.child({ name: 'store-health' }),
    notifyAfterMs: env.BLITZ_STORE_OUTAGE_NOTIFY_SECONDS * 1000,
  });
  const listener = await early.listenEarly({
    port: env.PORT,
    ...(env.HOST ? { hostname: env.HOST } : {}),
    health,
    version,
  });
  const store = await openWhenUp(health, () => openStore(env.DATABASE_URL), logger);
  opened = store;
  // The rest of the bot loads while /healthz already answers; other requests wait for it.
  const [{ composeBot }, notify] = await Promise.all([
    import('./compose/bot.ts'),
    import('./config/notify-targets.ts'),
  ]);
  const bot = await composeBot({
    env,
    config,
    logger,
    version,
    baseEnv: runnerBaseEnv(config.runner.passEnv),
    privatePaths: envModule.botPrivatePaths(env),
    notifyTargets: notify.notifyTargetsFrom(config.notify),
    store,
    health,
    listener,
  });
  const { port } = await bot.start();
  const heapMb = heap.heapLimitMb();
  logger.info(
    {
      port,
      version,
      github: Boolean(env.github),
      gitea: Boolean(env.gitea),
      roster: config.roster.length,
      heapLimitMb: heapMb,
    },
    'blitz-bot listening',
  );
  const heapHint = heap.heapHint(heapMb);
  if (heapHint) logger.info({ heapLimitMb: heapMb }, heapHint);
  for (const hint of envModule.configurationHints(env)) logger.info(hint);
  if (!env.APP_ID) logger.info(`To register the GitHub App, open http://localhost:${port}/probot`);
  return async () => {
    logger.info('shutting down');
    await bot.stop();
    logger.info('stopped');
  };
};

/**
 * Opens the store, retrying with the health's backoff while it is unavailable (each wait in the log);
 * an error that is not the store's (a bad DATABASE_URL) still stops the start.
 */
const openWhenUp = async <T>(
  health: StoreHealth,
  open: () => Promise<T>,
  logger: Pick<Logger, 'warn'>,
): Promise<T> => {
  for (;;) {
    try {
      const value = await open();
      health.succeeded();
      return value;
    } catch (err) {
      if (!health.failed(err)) throw err;
      const ms = health.retryInMs();
      const status = health.status();
      logger.warn(
        { retryInMs: ms, ...(status.ok ? {} : { reason: status.reason }) },
        `cannot open the store yet; /healthz answers 503 and the bot tries again in ${Math.ceil(ms / 1000)} s`,
      );
      // Kept: the backoff between two tries to open a store that is down (real time, at start only).
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
  }
};

const usage =
  'usage: blitz-bot [serve] | runner … | runner flush FILE … | runner-token create|revoke|list | stats [--run ID] [--json] [--server URL] | status [--json] [--server URL] | doctor [--json] [--repo OWNER/NAME]… | config validate [--repo] FILE | notify test [NAME] [--config FILE] [--json] | --version';

const main = async (): Promise<void> => {
  const command = process.argv[2] ?? 'serve';
  if (command === '--version' || command === '-v') {
    console.log(packageVersion());
    return;
  }
  if (command === '--help' || command === '-h') {
    console.log(usage);
    return;
  }
  if (command === 'runner' || command === 'runner-token') {
    const { runRunnerCli } = await import('./remote-runner/cli.ts');
    process.exitCode = await runRunnerCli(command, process.argv.slice(3));
    return;
  }
  if (command === 'doctor') {
    const { runDoctorCli } = await import('./doctor/doctor.ts');
    process.exitCode = await runDoctorCli(process.argv.slice(3));
    return;
  }
  if (command === 'config') {
    const { runConfigCli } = await import('./config/validate-command.ts');
    process.exitCode = await runConfigCli(process.argv.slice(3));
    return;
  }
  if (command === 'notify') {
    // Secrets the targets name (urlEnv, tokenEnv, secretEnv) may sit in .env, as they do for serve.
    const [{ runNotifyCli }, { loadDotenvFile }] = await Promise.all([
      import('./ship/notify-test-command.ts'),
      import('./config/dotenv.ts'),
    ]);
    loadDotenvFile();
    process.exitCode = await runNotifyCli(process.argv.slice(3));
    return;
  }
  if (command === 'stats') {
    const { runStatsCli } = await import('./status/stats-command.ts');
    process.exitCode = await runStatsCli(process.argv.slice(3));
    return;
  }
  if (command === 'status') {
    const { runStatusCli } = await import('./status/status-command.ts');
    process.exitCode = await runStatusCli(process.argv.slice(3));
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

// Run when started as a program (also through the `blitz-bot` bin link), not when imported.
const startedAsProgram = (): boolean => {
  const argv1 = process.argv[1];
  if (!argv1) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(argv1)).href;
  } catch {
    return false;
  }
};

if (startedAsProgram()) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
