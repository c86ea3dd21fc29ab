// Two composed bot replicas over one PostgreSQL schema, the fake GitHub serving one World, and real
// `blitz-bot runner` processes, for issue 9's acceptance test. Each replica is composeBot itself
// (its own pools, its own pg-boss handle, its own replica name, localRunner off); every webhook the
// World's changes would send (PR opened / merged, issue closed) is signed and delivered to BOTH.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { stringify } from 'yaml';
import { type Bot, type BotOptions, composeBot } from '../../src/compose/bot.ts';
import { loadBlitzConfig } from '../../src/config/blitz-config.ts';
import { loadEnv } from '../../src/config/env.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { isAlive, killGroup, spawnDetached } from '../../src/runner/exec.ts';
import { noCiSettle } from './bot-harness.ts';
import { blitzBotArgv } from './cli.ts';
import { fastRetry } from './fake-github/harness.ts';
import { type FakeGithub, startFakeGithub } from './fake-github/server.ts';
import { removeDir, tempDir, testEnv } from './git.ts';
import { postgresAvailable, testSchemas } from './pg.ts';
import { fixture, githubExample, type SignedRequest, signedGithubRequest } from './signing.ts';
import { World, type WorldRepo } from './world.ts';
import { createRealGitRepo } from './world-git.ts';

export type Cleanups = (() => Promise<void> | void)[];

const fakeAgent = resolve('test/support/fake-agents/fake-agent.mjs');
const secret = 'replicas-webhook-secret';
const appId = 4343;
const installationId = 78;
const botLogin = 'blitz-bot[bot]';

/** Issue numbers of the milestone: a chain 1→2→3, a diamond 4→{5,6}→7, and 8, 9, 10 on their own. */
export const milestoneIssues = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

export interface MilestoneWorld {
  world: World;
  repo: WorldRepo;
  fake: FakeGithub;
  privateKey: string;
  trigger: number;
}

export const milestoneWorld = async (cleanups: Cleanups): Promise<MilestoneWorld> => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const world = new World(botLogin);
  const origin = await createRealGitRepo({ files: { 'README.md': '# app\n' } });
  cleanups.push(() => origin.cleanup());
  const repo = world.addRepo('acme/app', { git: origin.git });
  noCiSettle(repo);
  world.grant(repo, botLogin, 'write');
  world.grant(repo, 'alice', 'write');
  world.addMilestone(repo, 'M1');
  const blockers: Record<number, number[]> = { 2: [1], 3: [2], 5: [4], 6: [4], 7: [5, 6] };
  for (const n of milestoneIssues)
    world.addIssue(repo, {
      number: n,
      title: `Part ${n}`,
      body: `Add \`src/part-${n}.ts\`.`,
      milestone: 'M1',
      ...(blockers[n] ? { blockedBy: blockers[n] } : {}),
    });
  const trigger = world.addIssue(repo, { title: 'Blitz control room', author: 'alice' }).number;
  const fake = await startFakeGithub(world, {
    tokens: {},
    app: { appId, publicKey, installationId },
    cloneUrl: () => origin.bareDir,
  });
  cleanups.push(async () => {
    await fake.close();
    fake.assertNoViolations();
  });
  return { world, repo, fake, privateKey, trigger };
};

/** One composed replica; `restart` boots a fresh one under the same name on the same port. */
export interface Replica {
  name: string;
  bot: Bot;
  url: string;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

export const startReplica = async (
  name: string,
  m: MilestoneWorld,
  databaseUrl: string,
  cleanups: Cleanups,
  /** `agentDelays`: a worker's time on one issue (by number), instead of `agentDelayMs`. */
  opts: {
    agentDelayMs: number;
    jobLeaseSeconds: number;
    agentDelays?: Record<number, number>;
    /** What composeBot takes besides (notify targets, a cron the test fires, the runners' clock). */
    bot?: Pick<BotOptions, 'notifyTargets' | 'cron' | 'runnerClock'>;
    /** Turns the status pages on with this token. */
    statusToken?: string;
  },
): Promise<Replica> => {
  const dir = tempDir(`blitz-${name}-`);
  cleanups.push(() => removeDir(dir));
  const configPath = join(dir, 'blitz.config.yml');
  writeFileSync(
    configPath,
    stringify({
      runner: { workspace: join(dir, 'workspace'), maxSessions: 4, retries: 0, attemptTimeoutMinutes: 10 },
      roster: [
        {
          name: 'fake',
          tool: 'custom',
          command: [process.execPath, fakeAgent, '{prompt_file}'],
          resume: [process.execPath, fakeAgent, '--resume', '{prompt_file}'],
          roles: ['blitz'],
          tiers: ['execution', 'design', 'subtle'],
          env: {
            FAKE_AGENT_MODE: 'slow-push',
            FAKE_AGENT_DELAY_MS: String(opts.agentDelayMs),
            FAKE_AGENT_DELAYS: JSON.stringify(
              Object.fromEntries(
                Object.entries(opts.agentDelays ?? {}).map(([n, ms]) => [`acme/app#${n}`, ms]),
              ),
            ),
          },
        },
      ],
      modelNotesPath: join(dir, 'models.md'),
    }),
  );
  let port = 0;
  const boot = async () => {
    const env = loadEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: databaseUrl,
      // Each replica's own data dir (its webhook spool), as on its own host.
      BLITZ_DATA_DIR: join(dir, 'data'),
      BLITZ_CONFIG: configPath,
      APP_ID: String(appId),
      PRIVATE_KEY: m.privateKey,
      WEBHOOK_SECRET: secret,
      GHE_HOST: new URL(m.fake.url).host,
      GHE_PROTOCOL: 'http',
      BOT_LOGIN: botLogin,
      ...(opts.statusToken ? { STATUS_TOKEN: opts.statusToken } : {}),
    });
    const bot = await composeBot({
      env,
      config: loadBlitzConfig(env.BLITZ_CONFIG, {}),
      logger: silentLogger(),
      version: '0.0.0-replicas',
      baseEnv: testEnv(),
      notifyTargets: {},
      tickSeconds: 1,
      supervisionSeconds: 1,
      defaultMetrics: false,
      localRunner: false,
      name,
      jobLeaseSeconds: opts.jobLeaseSeconds,
      ...opts.bot,
      // The fake takes writes as fast as they come: GitHub's write spacing, scaled down.
      githubRetry: fastRetry,
    });
    port = (await bot.start()).port;
    return bot;
  };
  const r: Replica = {
    name,
    bot: await boot(),
    url: `http://127.0.0.1:${port}`,
    stop: () => r.bot.stop(),
    async restart() {
      await r.bot.stop();
      r.bot = await boot();
    },
  };
  cleanups.push(() => r.bot.stop());
  return r;
};

/** A `blitz-bot runner` process serving acme/app for `roles` (blitz) with the `custom` tool, one session. */
export const startRunnerProcess = (
  server: string,
  token: string,
  roles: readonly string[] = ['blitz'],
  /** Runs it under faketime with this offset (`-10m`): its host's clock that far off the bot's. */
  clockOffset?: string,
) => {
  const dir = tempDir('blitz-runner-');
  const workspace = join(dir, 'ws');
  const config = join(dir, 'blitz.config.yml');
  // The fake agent and the tests' builds write traces outside their worktrees, which a sandbox hides.
  writeFileSync(config, 'runner:\n  retries: 0\n  maxSessions: 1\n  sandbox: none\n');
  const child = spawnDetached(
    [
      ...(clockOffset ? ['faketime', '-f', clockOffset] : []),
      ...blitzBotArgv(
        'runner',
        ...['--server', server, '--token', token, '--repos', 'acme/app', '--roles', roles.join(',')],
        ...[
          '--tools',
          'custom',
          '--workspace',
          workspace,
          '--poll-ms',
          '200',
          '--tick-ms',
          '200',
          '--config',
          config,
        ],
      ),
    ],
    { cwd: resolve('.'), env: { ...testEnv(), LOG_LEVEL: 'info' }, logFile: join(dir, 'runner.log') },
  );
  const records = join(workspace, '.runner', 'attempts.json');
  return {
    pid: child.pid,
    workspace,
    buffer: join(workspace, '.runner', 'buffer.jsonl'),
    records,
    log: join(dir, 'runner.log'),
  };
};

const onRepo = (p: Record<string, unknown>, sender: string) => {
  const r = p.repository as Record<string, unknown>;
  Object.assign(r, { name: 'app', full_name: 'acme/app', owner: { ...(r.owner as object), login: 'acme' } });
  p.sender = { ...(p.sender as object), login: sender, type: sender.endsWith('[bot]') ? 'Bot' : 'User' };
  p.installation = { id: installationId, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzg=' };
  return p;
};

/** A signed `issue_comment.created` from alice on the control-room issue (the comment is added to the World). */
export const commentRequest = (m: MilestoneWorld, body: string): SignedRequest => {
  const c = m.world.addComment(m.repo, m.trigger, body, 'alice');
  const p = onRepo(githubExample('issue_comment', 'created'), 'alice');
  (p.issue as Record<string, unknown>).number = m.trigger;
  const pc = p.comment as Record<string, unknown>;
  Object.assign(pc, { id: c.id, body, user: { ...(pc.user as object), login: 'alice', type: 'User' } });
  return signedGithubRequest({ secret, event: 'issue_comment', payload: p });
};

/** The webhook GitHub would send for one World log entry, or undefined for entries that send none here. */
export const webhookFor = (
  m: MilestoneWorld,
  entry: { action: string; target?: number },
  deliveryId: string,
): SignedRequest | undefined => {
  const n = entry.target;
  if (n === undefined) return undefined;
  const pull = m.world.pull(m.repo, n)?.pull;
  if ((entry.action === 'merge' || entry.action === 'open_pull') && pull) {
    const p = onRepo(
      entry.action === 'merge'
        ? fixture('github', 'pull_request.closed.merged')
        : githubExample('pull_request', 'opened'),
      botLogin,
    );
    p.number = n;
    const pr = p.pull_request as Record<string, Record<string, unknown>>;
    Object.assign(pr, { number: n, merged: entry.action === 'merge' });
    if (pull.mergeCommitSha) Object.assign(pr, { merge_commit_sha: pull.mergeCommitSha });
    pr.head = { ...pr.head, ref: pull.head, sha: pull.headSha };
    pr.base = { ...pr.base, ref: pull.base };
    return signedGithubRequest({ secret, event: 'pull_request', payload: p, deliveryId });
  }
  if (entry.action === 'close' && !pull) {
    // The examples hold no issues.closed: a reopened one, turned round.
    const p = onRepo(githubExample('issues', 'reopened'), botLogin);
    p.action = 'closed';
    Object.assign(p.issue as Record<string, unknown>, { number: n, state: 'closed' });
    return signedGithubRequest({ secret, event: 'issues', payload: p, deliveryId });
  }
  return undefined;
};

/** Posts one signed delivery to every replica at once; the HTTP statuses, in replica order. */
export const deliverToAll = async (replicas: Replica[], req: SignedRequest): Promise<number[]> =>
  Promise.all(
    replicas.map(async (r) => {
      const res = await fetch(`${r.url}/api/github/webhooks`, {
        method: 'POST',
        body: req.body,
        headers: req.headers,
      });
      await res.text();
      return res.status;
    }),
  );

/**
 * Forwards each new World log entry's webhook to every replica that is up (`up()` says which), one
 * delivery id per entry. Returns a pump to call from the test's polling loop, and the statuses seen.
 */
export const webhookForwarder = (m: MilestoneWorld, up: () => Replica[]) => {
  let next = 0;
  const sent: { id: string; statuses: number[] }[] = [];
  return {
    sent,
    async pump() {
      while (next < m.world.log.length) {
        const entry = m.world.log[next]!;
        const id = `world-${next}`;
        next++;
        const req = webhookFor(m, entry, id);
        if (req) sent.push({ id, statuses: await deliverToAll(up(), req) });
      }
    },
  };
};

/**
 * Runs `step` every `everyMs` until the test's cleanups stop it: it stands in for GitHub's deliveries
 * and the bots' cron, which come on their own time. A driver, not a wait (tests wait with until.ts).
 * A step that throws is kept in `errors` (a pass on a replica being stopped may fail) and the pump
 * goes on; `paused` skips steps while a test holds the world still; `stop` ends it early.
 */
export const startPump = (cleanups: Cleanups, step: () => Promise<void>, everyMs = 250) => {
  const pump = { errors: [] as unknown[], paused: false };
  let pumping = true;
  const loop = (async () => {
    while (pumping) {
      if (!pump.paused) {
        try {
          await step();
        } catch (err) {
          pump.errors.push(err);
        }
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  const stop = async () => {
    pumping = false;
    await loop;
  };
  cleanups.push(stop);
  return Object.assign(pump, { stop });
};

/**
 * The per-file scope of a test on replicas and runner processes: whether PostgreSQL answers (and
 * whether CI insists it must), schemas dropped after the file, and after each test its runner
 * processes killed and its cleanups run, newest first.
 */
export const replicaTestScope = async () => {
  const pgUp = await postgresAvailable();
  const schemas = testSchemas();
  afterAll(() => schemas.dropAll());
  const cleanups: Cleanups = [];
  const pids: number[] = [];
  afterEach(async () => {
    for (const pid of pids.splice(0)) if (isAlive(pid)) killGroup(pid, 'SIGKILL');
    for (const c of cleanups.splice(0).reverse()) await c();
  }, 60_000);
  return { pgUp, inCi: Boolean(process.env.CI), schemas, cleanups, pids };
};
