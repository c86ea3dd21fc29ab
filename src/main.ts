// CLI and entry point. `serve` (the default): env → logger → operator config → the composed bot
// (compose/bot.ts) → listen, with graceful shutdown on SIGTERM/SIGINT (workers keep running detached).
// Unconfigured, it still serves /healthz and says in plain words what to set for GitHub and Gitea.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { composeBot } from './compose/bot.ts';
import { loadBlitzConfig, runnerBaseEnv } from './config/blitz-config.ts';
import { loadDotenvFile } from './config/dotenv.ts';
import { configurationHints, loadEnv } from './config/env.ts';
import { notifyTargetsFrom } from './config/notify-targets.ts';
import { createLogger } from './observability/logger.ts';
import { runRunnerCli } from './remote-runner/cli.ts';
import { runStatsCli } from './status/stats-command.ts';

const packageVersion = (): string =>
  z
    .object({ version: z.string() })
    .parse(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))).version;

/** Builds the whole bot (see compose/bot.ts), starts it, and returns its stop. */
export const serve = async (): Promise<() => Promise<void>> => {
  loadDotenvFile();
  const env = loadEnv();
  const logger = createLogger({ level: env.LOG_LEVEL });
  const version = packageVersion();
  // A broken operator file stops the start with its field errors; a missing one means defaults.
  const config = loadBlitzConfig(env.BLITZ_CONFIG, {});
  const bot = await composeBot({
    env,
    config,
    logger,
    version,
    baseEnv: runnerBaseEnv(),
    notifyTargets: notifyTargetsFrom(config.notify),
  });
  const { port } = await bot.start();
  logger.info(
    { port, version, github: Boolean(env.github), gitea: Boolean(env.gitea), roster: config.roster.length },
    'blitz-bot listening',
  );
  for (const hint of configurationHints(env)) logger.info(hint);
  if (!env.APP_ID) logger.info(`To register the GitHub App, open http://localhost:${port}/probot`);
  return async () => {
    logger.info('shutting down');
    await bot.stop();
    logger.info('stopped');
  };
};

const usage =
  'usage: blitz-bot [serve] | runner … | runner flush FILE … | runner-token create|revoke|list | stats [--run ID] [--json] | doctor [--json] [--repo OWNER/NAME]…';

const main = async (): Promise<void> => {
  const command = process.argv[2] ?? 'serve';
  if (command === 'runner' || command === 'runner-token') {
    process.exitCode = await runRunnerCli(command, process.argv.slice(3));
    return;
  }
  if (command === 'doctor') {
    const { runDoctorCli } = await import('./doctor/doctor.ts');
    process.exitCode = await runDoctorCli(process.argv.slice(3));
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
