// The CLI as an operator runs it (real processes): `runner-token create` prints a token once and
// keeps only its hash, `revoke` kills it, and a runner started with bad arguments says what is
// wrong and changes nothing.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { createRunnerHub } from '../../src/remote-runner/hub.ts';
import { isAlive, killGroup, run, spawnDetached } from '../../src/runner/exec.ts';
import { InMemoryAttemptLedger } from '../../src/runner/ledger.ts';
import { parseRunnerToken } from '../../src/store/runner-tokens.ts';
import { openSqliteRunnerRegistry } from '../../src/store/runner-tokens-sqlite.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { blitzBotArgv } from '../support/cli.ts';
import { tempDir, testEnv } from '../support/git.ts';
import { until } from '../support/until.ts';

const cli = (args: string[], env: Record<string, string> = {}) =>
  run(blitzBotArgv(...args), {
    cwd: resolve('.'),
    env: { ...testEnv(), LOG_LEVEL: 'silent', ...env },
    timeoutMs: 30_000,
  });

describe('blitz-bot runner-token and runner CLI', () => {
  it('prints its version and the runner usage, exit 0', async () => {
    const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { version: string };
    const version = await cli(['--version']);
    expect(version.exitCode).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = await cli(['runner', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('blitz-bot runner --server URL [--token T] --repos');
  });

  it('creates a token printed once and stored hashed, then revokes it', async () => {
    const db = join(tempDir('blitz-cli-'), 'blitz.db');
    const env = { DATABASE_URL: `sqlite:${db}` };
    const created = await cli(['runner-token', 'create', 'host-a'], env);
    expect(created.exitCode).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^brt_[0-9a-f]{16}_[\w-]{43}$/);
    const secret = parseRunnerToken(token)!.secret;
    expect(readFileSync(db).includes(Buffer.from(secret))).toBe(false);
    const registry = openSqliteRunnerRegistry(db);
    expect(await registry.authenticate(token)).toMatchObject({ name: 'host-a' });

    const twice = await cli(['runner-token', 'create', 'host-a'], env);
    expect(twice.exitCode).toBe(1);
    expect(twice.stderr).toContain('already has a live token');

    const listed = await cli(['runner-token', 'list'], env);
    expect(listed.stdout).toContain('host-a\tlive');
    expect(listed.stdout).not.toContain(secret);

    expect((await cli(['runner-token', 'revoke', 'host-a'], env)).exitCode).toBe(0);
    expect(await registry.authenticate(token)).toBeUndefined();
    expect((await cli(['runner-token', 'revoke', 'host-a'], env)).exitCode).toBe(1);
    await registry.close();
  }, 60_000);

  it('refuses to start a runner without a server, a token or repos, or with a bad server URL', async () => {
    const ws = join(tempDir('blitz-cli-ws-'), 'ws');
    const noServer = await cli(['runner', '--token', 't', '--repos', 'acme/app', '--workspace', ws]);
    expect(noServer.exitCode).toBe(1);
    expect(noServer.stderr).toContain('--server: is required');
    const noRepos = await cli([
      'runner',
      '--server',
      'http://127.0.0.1:1',
      '--token',
      't',
      '--workspace',
      ws,
    ]);
    expect(noRepos.stderr).toContain('--repos: is required');
    const badRepo = await cli([
      'runner',
      '--server',
      'http://x',
      '--token',
      't',
      '--repos',
      'acme',
      '--workspace',
      ws,
    ]);
    expect(badRepo.stderr).toContain('--repos: entries must be owner/name');
    const badUrl = await cli([
      'runner',
      '--server',
      'ftp://x',
      '--token',
      't',
      '--repos',
      'acme/app',
      '--workspace',
      ws,
    ]);
    expect(badUrl.exitCode).toBe(1);
    expect(badUrl.stderr).toContain('use http:// or https://');
    const badTick = await cli([
      'runner',
      '--server',
      'http://x',
      '--token',
      't',
      '--repos',
      'acme/app',
      '--workspace',
      ws,
      '--tick-ms',
      '10',
    ]);
    expect(badTick.exitCode).toBe(1);
    expect(badTick.stderr).toMatch(/--tickMs: .*50/);
  }, 60_000);

  it('stops a runner whose token the bot does not know, with the reason, and records nothing', async () => {
    const registry = openSqliteRunnerRegistry(':memory:');
    const app = createApp({
      store: openSqliteStore(':memory:'),
      metrics: createMetrics(),
      logger: silentLogger(),
      version: 't',
      receive: async () => {
        throw new Error('no webhook expected');
      },
      runnerHub: createRunnerHub({
        queue: new InProcessQueue(),
        registry,
        ledger: new InMemoryAttemptLedger(),
        logger: silentLogger(),
      }),
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    const port = (server.address() as { port: number }).port;
    try {
      const ws = join(tempDir('blitz-cli-ws-'), 'ws');
      const res = await cli([
        'runner',
        '--server',
        `http://127.0.0.1:${port}`,
        '--token',
        'brt_0000000000000000_x',
        '--repos',
        'acme/app',
        '--workspace',
        ws,
      ]);
      expect(res.exitCode).toBe(1);
      expect(res.stderr).toContain('refused this runner (HTTP 401)');
      expect(await registry.listTokens()).toEqual([]);
    } finally {
      server.close();
    }
  }, 60_000);
});

describe('blitz-bot serve with a runner agent', () => {
  it('serves /api/runner/* so an agent with a token made by the CLI registers, and stops cleanly', async () => {
    const dir = tempDir('blitz-serve-runner-');
    const db = join(dir, 'blitz.db');
    const env = { DATABASE_URL: `sqlite:${db}` };
    const token = (await cli(['runner-token', 'create', 'host-a'], env)).stdout.trim();
    // Below the kernel's ephemeral range (32768 and up by default), where no outgoing connection of
    // another test can be holding it.
    const port = 20000 + Math.floor(Math.random() * 10000);
    // Both processes' exits are awaited as events (the stop below).
    const exits: Promise<void>[] = [];
    const onExit = () => {
      let exited: () => void = () => {};
      exits.push(
        new Promise<void>((r) => {
          exited = r;
        }),
      );
      return () => exited();
    };
    const bot = spawnDetached(blitzBotArgv('serve'), {
      cwd: resolve('.'),
      env: { ...testEnv(), ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      logFile: join(dir, 'bot.log'),
      onExit: onExit(),
    });
    const agent = spawnDetached(
      blitzBotArgv(
        'runner',
        '--server',
        `http://127.0.0.1:${port}`,
        '--token',
        token,
        '--repos',
        'acme/app',
        '--tools',
        'custom',
        '--workspace',
        join(dir, 'ws'),
        '--poll-ms',
        '200',
      ),
      {
        cwd: resolve('.'),
        env: { ...testEnv(), LOG_LEVEL: 'info' },
        logFile: join(dir, 'agent.log'),
        onExit: onExit(),
      },
    );
    const registry = openSqliteRunnerRegistry(db);
    try {
      // The agent registers from its own process; its row is all the test sees of it.
      const advert = await until(
        'the agent registered',
        async () => (await registry.listTokens())[0]?.advert,
        {
          timeoutMs: 40_000,
          everyMs: 200,
        },
      );
      expect(advert).toEqual({
        tools: ['custom'],
        roles: ['blitz', 'fleet'],
        repos: ['acme/app'],
        maxSessions: 2,
      });
      process.kill(agent.pid, 'SIGTERM');
      process.kill(bot.pid, 'SIGTERM');
      await Promise.all(exits);
      expect(isAlive(agent.pid)).toBe(false);
      expect(isAlive(bot.pid)).toBe(false);
      expect(readFileSync(join(dir, 'bot.log'), 'utf8')).toContain('"msg":"stopped"');
      // The whole secret (base64url, so it may itself hold `_`), through the store's own parser.
      expect(readFileSync(join(dir, 'bot.log'), 'utf8')).not.toContain(parseRunnerToken(token)!.secret);
    } finally {
      for (const p of [agent.pid, bot.pid]) if (isAlive(p)) killGroup(p, 'SIGKILL');
      await registry.close();
    }
  }, 90_000);
});
