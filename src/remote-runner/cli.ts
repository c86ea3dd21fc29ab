// CLI of the remote-runner side: `blitz-bot runner …` (the agent, and `runner flush FILE`) and
// `blitz-bot runner-token create|revoke|list` (tokens, printed once at creation, stored hashed).
// Each verb imports what it uses when it runs: the agent never loads the stores, `--help` nothing.

import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AppError } from '../errors.ts';
import { skewShown, skewWords } from './clock-skew.ts';

export const runnerUsage = `usage:
  blitz-bot runner --server URL [--token T] --repos owner/name[,…] [--roles blitz,fleet]
    (the token: --token, or BLITZ_RUNNER_TOKEN / BLITZ_RUNNER_TOKEN_FILE, which ps does not show)
                   [--workspace DIR] [--max-sessions N] [--config FILE] [--tools a,b] [--poll-ms N]
                   [--tick-ms N]   (how often workers are checked, default 1000)
  blitz-bot runner flush FILE --server URL [--token T]
  blitz-bot runner-token create NAME | revoke NAME | list`;

const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const options = {
  server: { type: 'string' },
  token: { type: 'string' },
  repos: { type: 'string' },
  roles: { type: 'string' },
  workspace: { type: 'string' },
  'max-sessions': { type: 'string' },
  'poll-ms': { type: 'string' },
  'tick-ms': { type: 'string' },
  tools: { type: 'string' },
  config: { type: 'string' },
} as const;

const runAgent = async (argv: string[]): Promise<number> => {
  const { values } = parseArgs({ args: argv, options, allowPositionals: false });
  const { agentArgs, agentArgsError } = await import('./agent-args.ts');
  const [
    { loadBlitzConfig, runnerBaseEnv },
    { botPrivatePaths, loadEnv },
    { createLogger },
    { RunnerAgent },
    { createRunnerClient },
  ] = await Promise.all([
    import('../config/blitz-config.ts'),
    import('../config/env.ts'),
    import('../observability/logger.ts'),
    import('./agent.ts'),
    import('./client.ts'),
  ]);
  const env = loadEnv();
  const parsed = agentArgs.safeParse({
    server: values.server ?? '',
    token: values.token ?? env.BLITZ_RUNNER_TOKEN ?? '',
    repos: list(values.repos),
    roles: values.roles ? list(values.roles) : ['blitz', 'fleet'],
    workspace: values.workspace,
    maxSessions: values['max-sessions'],
    pollMs: values['poll-ms'],
    tickMs: values['tick-ms'],
    tools: values.tools ? list(values.tools) : undefined,
    config: values.config,
  });
  if (!parsed.success) throw agentArgsError(parsed.error, runnerUsage);
  const a = parsed.data;
  const logger = createLogger({
    level: env.LOG_LEVEL,
    ...(env.LOG_FORMAT ? { format: env.LOG_FORMAT } : {}),
  });
  const config = loadBlitzConfig(a.config);
  const agent = new RunnerAgent({
    client: createRunnerClient({ server: a.server, token: a.token }),
    runnerConfig: {
      ...config.runner,
      ...(a.workspace ? { workspace: a.workspace } : {}),
      ...(a.maxSessions ? { maxSessions: a.maxSessions } : {}),
    },
    baseEnv: runnerBaseEnv(config.runner.passEnv),
    // Its token file, config and .env stay out of every sandbox, as the bot's own files do.
    hidden: [...botPrivatePaths(env), ...(a.config ? [resolve(a.config)] : [])],
    repos: a.repos,
    roles: a.roles,
    ...(a.tools ? { tools: a.tools } : {}),
    ...(a.pollMs ? { pollMs: a.pollMs } : {}),
    ...(a.tickMs ? { tickMs: a.tickMs } : {}),
    logger,
  });
  const stop = () => agent.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await agent.run();
  // Deliver what is still buffered before leaving; what cannot go stays in the file.
  const left = await agent.outbox.flush();
  if (left.remaining > 0)
    logger.warn({ file: agent.outbox.file, remaining: left.remaining }, 'reports left in the buffer');
  return 0;
};

const runFlush = async (argv: string[]): Promise<number> => {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
  const file = positionals[0];
  const [{ loadEnv }, { createLogger }, { createRunnerClient }, { flushFile }] = await Promise.all([
    import('../config/env.ts'),
    import('../observability/logger.ts'),
    import('./client.ts'),
    import('./outbox.ts'),
  ]);
  const env = loadEnv();
  const token = values.token ?? env.BLITZ_RUNNER_TOKEN;
  if (!file || !values.server || !token) throw new AppError('config_invalid', runnerUsage);
  const logger = createLogger({
    level: env.LOG_LEVEL,
    ...(env.LOG_FORMAT ? { format: env.LOG_FORMAT } : {}),
  });
  const result = await flushFile(createRunnerClient({ server: values.server, token }), file, logger);
  console.log(JSON.stringify(result));
  return result.remaining === 0 ? 0 : 1;
};

const runToken = async (argv: string[]): Promise<number> => {
  const [verb, name] = argv;
  const [{ loadEnv }, { openRunnerRegistry }] = await Promise.all([
    import('../config/env.ts'),
    import('../store/open-store.ts'),
  ]);
  const registry = await openRunnerRegistry(loadEnv().DATABASE_URL);
  try {
    if (verb === 'create' && name) {
      const { token } = await registry.createToken(name);
      // Printed once: only its hash is kept.
      console.log(token);
      return 0;
    }
    if (verb === 'revoke' && name) {
      const revoked = await registry.revokeToken(name);
      console.log(revoked ? `revoked the token of ${name}` : `${name} has no live token`);
      return revoked ? 0 : 1;
    }
    if (verb === 'list') {
      for (const t of await registry.listTokens()) {
        console.log(
          [
            t.name,
            t.revokedAt ? `revoked ${t.revokedAt}` : t.lostAt ? `lost ${t.lostAt}` : 'live',
            `last seen ${t.lastSeenAt ?? 'never'}`,
            ...(skewShown(t.clockSkewMs) ? [`clock ${skewWords(t.clockSkewMs)}`] : []),
          ].join('\t'),
        );
      }
      return 0;
    }
    throw new AppError('config_invalid', runnerUsage);
  } finally {
    await registry.close();
  }
};

/** `runner` and `runner-token` subcommands; returns the exit code. */
export const runRunnerCli = async (command: string, argv: string[]): Promise<number> => {
  if (argv[0] === '--help' || argv[0] === '-h') {
    console.log(runnerUsage);
    return 0;
  }
  if (command === 'runner-token') return runToken(argv);
  if (argv[0] === 'flush') return runFlush(argv.slice(1));
  return runAgent(argv);
};
