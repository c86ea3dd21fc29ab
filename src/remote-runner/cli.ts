// CLI of the remote-runner side: `blitz-bot runner …` (the agent, and `runner flush FILE`) and
// `blitz-bot runner-token create|revoke|list` (tokens, printed once at creation, stored hashed).
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadBlitzConfig, runnerBaseEnv } from '../config/blitz-config.ts';
import { loadEnv } from '../config/env.ts';
import { AppError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { openRunnerRegistry } from '../store/open-store.ts';
import { RunnerAgent } from './agent.ts';
import { createRunnerClient } from './client.ts';
import { flushFile } from './outbox.ts';

export const runnerUsage = `usage:
  blitz-bot runner --server URL [--token T] --repos owner/name[,…] [--roles blitz,fleet]
    (the token: --token, or BLITZ_RUNNER_TOKEN / BLITZ_RUNNER_TOKEN_FILE, which ps does not show)
                   [--workspace DIR] [--max-sessions N] [--config FILE] [--tools a,b] [--poll-ms N]
  blitz-bot runner flush FILE --server URL [--token T]
  blitz-bot runner-token create NAME | revoke NAME | list`;

const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const agentArgs = z.object({
  server: z.string().min(1, 'is required'),
  token: z.string().min(1, 'is required'),
  repos: z.array(z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'entries must be owner/name')).min(1, 'is required'),
  roles: z.array(z.enum(['blitz', 'fleet', 'plan', 'review'])).min(1),
  workspace: z.string().min(1).optional(),
  maxSessions: z.coerce.number().int().min(1).max(256).optional(),
  pollMs: z.coerce.number().int().min(50).optional(),
  tools: z.array(z.string().min(1)).optional(),
  config: z.string().optional(),
});

const options = {
  server: { type: 'string' },
  token: { type: 'string' },
  repos: { type: 'string' },
  roles: { type: 'string' },
  workspace: { type: 'string' },
  'max-sessions': { type: 'string' },
  'poll-ms': { type: 'string' },
  tools: { type: 'string' },
  config: { type: 'string' },
} as const;

const argError = (error: z.ZodError): AppError => {
  const i = error.issues[0];
  return new AppError(
    'config_invalid',
    `--${String(i?.path[0] ?? 'arguments')}: ${i?.message ?? 'invalid'}\n${runnerUsage}`,
  );
};

const runAgent = async (argv: string[]): Promise<number> => {
  const { values } = parseArgs({ args: argv, options, allowPositionals: false });
  const env = loadEnv();
  const parsed = agentArgs.safeParse({
    server: values.server ?? '',
    token: values.token ?? env.BLITZ_RUNNER_TOKEN ?? '',
    repos: list(values.repos),
    roles: values.roles ? list(values.roles) : ['blitz', 'fleet'],
    workspace: values.workspace,
    maxSessions: values['max-sessions'],
    pollMs: values['poll-ms'],
    tools: values.tools ? list(values.tools) : undefined,
    config: values.config,
  });
  if (!parsed.success) throw argError(parsed.error);
  const a = parsed.data;
  const logger = createLogger({ level: env.LOG_LEVEL });
  const config = loadBlitzConfig(a.config);
  const agent = new RunnerAgent({
    client: createRunnerClient({ server: a.server, token: a.token }),
    runnerConfig: {
      ...config.runner,
      ...(a.workspace ? { workspace: a.workspace } : {}),
      ...(a.maxSessions ? { maxSessions: a.maxSessions } : {}),
    },
    baseEnv: runnerBaseEnv(),
    repos: a.repos,
    roles: a.roles,
    ...(a.tools ? { tools: a.tools } : {}),
    ...(a.pollMs ? { pollMs: a.pollMs } : {}),
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
  const env = loadEnv();
  const token = values.token ?? env.BLITZ_RUNNER_TOKEN;
  if (!file || !values.server || !token) throw new AppError('config_invalid', runnerUsage);
  const logger = createLogger({ level: env.LOG_LEVEL });
  const result = await flushFile(createRunnerClient({ server: values.server, token }), file, logger);
  console.log(JSON.stringify(result));
  return result.remaining === 0 ? 0 : 1;
};

const runToken = async (argv: string[]): Promise<number> => {
  const [verb, name] = argv;
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
            t.revokedAt ? `revoked ${t.revokedAt}` : 'live',
            `last seen ${t.lastSeenAt ?? 'never'}`,
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
export const runRunnerCli = (command: string, argv: string[]): Promise<number> => {
  if (command === 'runner-token') return runToken(argv);
  if (argv[0] === 'flush') return runFlush(argv.slice(1));
  return runAgent(argv);
};
