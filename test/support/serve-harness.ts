// Boots the composed bot (compose/bot.ts, what `npm start` runs) in-process for the serve tests: a
// World with a real bare origin, a temp dir holding blitz.config.yml (fake agents as a `custom`
// roster entry), the SQLite file and the workspace, and the env serve would read.
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { type Bot, type BotOptions, composeBot } from '../../src/compose/bot.ts';
import { loadBlitzConfig } from '../../src/config/blitz-config.ts';
import { loadEnv } from '../../src/config/env.ts';
import { type Logger, silentLogger } from '../../src/observability/logger.ts';
import { noCiSettle } from './bot-harness.ts';
import { removeDir, tempDir, testEnv } from './git.ts';
import { fixture, signedGiteaRequest } from './signing.ts';
import { World, type WorldRepo } from './world.ts';
import { createRealGitRepo, type RealGitRepo } from './world-git.ts';

const fakeAgent = join(import.meta.dirname, 'fake-agents', 'fake-agent.mjs');

export const statusToken = 'serve-e2e-status-token-0123456789';

export type Cleanups = (() => Promise<void> | void)[];

/** A port nothing listens on now (a bot restarted on it keeps the webhook URL the forge sends to). */
export const freePort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

/** acme/app on a real bare origin: milestone `milestone` with #1 and #2 (blocked by #1), and a control-room issue. */
export const seedWorld = async (botLogin: string, milestone: string, cleanups: Cleanups) => {
  const world = new World(botLogin);
  const origin: RealGitRepo = await createRealGitRepo({ files: { 'README.md': '# app\n' } });
  cleanups.push(() => origin.cleanup());
  const repo: WorldRepo = world.addRepo('acme/app', { git: origin.git });
  noCiSettle(repo);
  // Gitea lets only repo admins read others' permission: the bot account is an admin there.
  world.grant(repo, botLogin, botLogin.endsWith('[bot]') ? 'write' : 'admin');
  world.grant(repo, 'alice', 'write');
  world.addMilestone(repo, milestone);
  world.addIssue(repo, { number: 1, title: 'The data model', body: 'Add `src/a.ts`.', milestone });
  world.addIssue(repo, { number: 2, title: 'The store', body: 'Add `src/b.ts`.', milestone, blockedBy: [1] });
  const trigger = world.addIssue(repo, { title: 'Blitz control room', author: 'alice' }).number;
  return { world, origin, repo, trigger };
};

/** Writes blitz.config.yml in a fresh temp dir, boots the composed bot over `vars`, and starts it. */
export const bootComposed = async (
  vars: Record<string, string>,
  cleanups: Cleanups,
  logger: Logger = silentLogger(),
  /** Added to the environment workers get (fake agent modes). */
  workerEnv: Record<string, string> = {},
  /** Further options of the composed bot (tick period, spool backoff …). */
  options: Partial<
    Pick<BotOptions, 'tickSeconds' | 'spoolRetry' | 'recoveryLimits' | 'health' | 'store' | 'notifyTargets'>
  > = {},
): Promise<{ bot: Bot; port: number; dir: string }> => {
  const dir = tempDir('blitz-serve-e2e-');
  cleanups.push(() => removeDir(dir));
  const configPath = join(dir, 'blitz.config.yml');
  writeFileSync(
    configPath,
    stringify({
      runner: { workspace: join(dir, 'workspace'), maxSessions: 2, retries: 0, attemptTimeoutMinutes: 10 },
      roster: [
        {
          name: 'fake',
          tool: 'custom',
          command: [process.execPath, fakeAgent, '{prompt_file}'],
          resume: [process.execPath, fakeAgent, '--resume', '{prompt_file}'],
          roles: ['blitz'],
          tiers: ['execution', 'design', 'subtle'],
        },
      ],
      modelNotesPath: join(dir, 'models.md'),
    }),
  );
  const env = loadEnv({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: `sqlite:${join(dir, 'blitz.db')}`,
    BLITZ_CONFIG: configPath,
    STATUS_TOKEN: statusToken,
    ...vars,
  });
  const bot = await composeBot({
    env,
    // As serve does: the file named by BLITZ_CONFIG.
    config: loadBlitzConfig(env.BLITZ_CONFIG, {}),
    logger,
    version: '0.0.0-e2e',
    baseEnv: { ...testEnv(), ...workerEnv },
    notifyTargets: {},
    tickSeconds: 1,
    supervisionSeconds: 1,
    defaultMetrics: false,
    ...options,
  });
  const { port } = await bot.start();
  cleanups.push(() => bot.stop());
  return { bot, port, dir };
};

/** A signed Gitea `issue_comment` carrying `body` from alice on `issue` (the comment is added to the forge). */
export const giteaCommentRequest = (
  o: { world: World; repo: WorldRepo; issue: number; secret: string },
  body: string,
  deliveryId: string,
) => {
  const c = o.world.addComment(o.repo, o.issue, body, 'alice');
  const p = fixture('gitea', 'issue_comment.created');
  const r = p.repository as Record<string, unknown>;
  Object.assign(r, { name: 'app', full_name: 'acme/app' });
  r.owner = { ...(r.owner as object), login: 'acme' };
  (p.issue as Record<string, unknown>).number = o.issue;
  const pc = p.comment as Record<string, unknown>;
  Object.assign(pc, { id: c.id, body, user: { ...(pc.user as object), login: 'alice', type: 'User' } });
  p.sender = { ...(p.sender as object), login: 'alice', type: 'User' };
  return {
    deliveryId,
    req: signedGiteaRequest({ secret: o.secret, eventType: 'issue_comment', payload: p, deliveryId }),
  };
};
