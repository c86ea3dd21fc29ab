// The whole bot for end-to-end blitz tests and the demo: a World with a real bare git origin
// (RealGit), the contract-checked fake GitHub or Gitea over it, the real forge adapter, the real
// intake (signed webhooks, SQLite deliveries and intents), the runner with fake agents that really
// commit and push, and the orchestrator over an SQLite file. `restart()` drops the bot and starts a
// new one over the same database file and workspace, as a crashed process would be restarted.

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type BlitzConfig, blitzConfigSchema } from '../../src/config/blitz-config.ts';
import { budgetKey, createBudgetTracker } from '../../src/forges/rate-budget.ts';
import type { ForgeKind } from '../../src/forges/types.ts';
import { createLogger, type Logger, silentLogger } from '../../src/observability/logger.ts';
import { createReviewLeg } from '../../src/review/review-leg.ts';
import type { RunnerEvent } from '../../src/runner/types.ts';
import type { OrchestratorDeps } from '../../src/runs/context.ts';
import {
  type Bot,
  botLoginFor,
  grantUsualPeople,
  issueCommentRequest,
  noCiSettle,
  type RunWatchOptions,
  runWatchDeps,
  startBot as startBotProcess,
  startFakeForge,
  webhookPath,
} from './bot-harness.ts';
import type { PermissionChanges } from './fake-github/app-permissions.ts';
import { tempDir, testEnv } from './git.ts';
import { reviewWebhooks } from './review-webhooks.ts';
import { fakeEntry } from './runner-harness.ts';
import { fixture, signedGiteaRequest, signedGithubRequest } from './signing.ts';
import { roundsUntil } from './until.ts';
import { type SeedIssue, World, type WorldRepo } from './world.ts';
import { createRealGitRepo, type RealGitRepo } from './world-git.ts';

const fakeReviewer = join(import.meta.dirname, 'fake-agents', 'fake-reviewer.mjs');

export const GITHUB_SECRET = 'blitz-github-secret';
export const GITEA_SECRET = 'blitz-gitea-secret';

export interface BlitzHarnessOptions extends RunWatchOptions {
  forge: ForgeKind;
  issues: SeedIssue[];
  milestone?: string;
  /** Files on the default branch (e.g. `.github/blitz.yml`). */
  files?: Record<string, string>;
  /** Deliver every webhook twice (a second delivery id), as GitHub may. */
  deliverTwice?: boolean;
  /** Environment of the fake agent (FAKE_AGENT_MODE …). */
  agentEnv?: Record<string, string>;
  maxSessions?: number;
  logger?: Logger;
  /** Dashboard coalescing interval; 0 publishes every change. */
  dashboardIntervalMs?: number;
  onRunnerEvent?: (e: RunnerEvent) => void;
  /** Told each time the orchestrator shows a run anew (the status pages' live updates, as in the composed bot). */
  onRunChanged?: OrchestratorDeps['onRunChanged'];
  /** argv of the worker instead of the fake agent (`{prompt_file}` is substituted). */
  agentCommand?: string[];
  /** Review legs by the fake reviewer CLI (a roster entry with the review role). */
  review?: boolean;
  /** Arguments of the fake reviewer (default `--verdict clean`). */
  reviewerArgs?: string[];
  /** The reviewer's program instead of the fake reviewer (`[node, fake-reviewer.mjs]`), e.g. one not installed. */
  reviewerProgram?: string[];
  /** The bot's public address for the notify targets' links (`notifiers`). */
  publicUrl?: string;
  /**
   * Clone URL and git credentials come from the forge (`GET /repos/{owner}/{repo}` and a token), as in
   * the composed bot, instead of the harness handing the origin's path: the request accounting bench.
   */
  credentialsFromForge?: boolean;
  /** false: the forge adapter's request caches are off (the bench baseline). */
  requestCache?: boolean;
  /** More `runner:` settings of blitz.config.yml (caps, environmentBackoff …). */
  runner?: Record<string, unknown>;
  /** The fake roster entry's `model` (what its attempts are priced by). */
  model?: string;
  /** More roster entries after the fake one (a second author entry on another endpoint …). */
  moreRoster?: Record<string, unknown>[];
  /** The roster's author entries instead of the fake agent's (real CLIs); the reviewer and `moreRoster` follow. */
  roster?: Record<string, unknown>[];
  /** `prices:` of blitz.config.yml (dollars per million tokens, by model). */
  prices?: Record<string, unknown>;
  /** The bot's clock (runner and orchestrator); default the system's. */
  clock?: { now(): Date };
  /**
   * The fake GitHub reports these primary limits, and the bot paces its run on them as the composed bot
   * does (a budget tracker fed by every request, `forgePace`); `now` is the clock of both.
   */
  rateLimit?: { core?: number; graphql?: number; now: () => number };
  /**
   * GitHub: the bot is an App installation with this id (installation tokens the fake mints with the
   * installation's permissions; `fakeGithub.setPermission` changes what a new token gets).
   */
  githubApp?: { installationId: number; permissions?: PermissionChanges };
}

export const startBlitzHarness = async (opts: BlitzHarnessOptions) => {
  const kind = opts.forge;
  const world = new World(botLoginFor(kind));
  const configPath = kind === 'github' ? '.github/blitz.yml' : '.gitea/blitz.yml';
  const origin: RealGitRepo = await createRealGitRepo({
    files: { 'README.md': '# app\n', ...(opts.files ?? {}) },
  });
  const repo: WorldRepo = world.addRepo('acme/app', { git: origin.git });
  for (const [path, text] of Object.entries(opts.files ?? {})) repo.files.set(path, text);
  grantUsualPeople(world, repo, kind);
  noCiSettle(repo);
  world.addMilestone(repo, opts.milestone ?? 'M1');
  for (const seed of opts.issues) world.addIssue(repo, { milestone: opts.milestone ?? 'M1', ...seed });
  // Where people type commands and the dashboard lives: an issue outside the milestone.
  const trigger = world.addIssue(repo, { title: 'Blitz control room', author: 'alice' });

  const logger = opts.logger ?? (process.env.BLITZ_DEBUG ? createLogger({ level: 'warn' }) : silentLogger());
  const budget = opts.rateLimit ? createBudgetTracker({ now: opts.rateLimit.now }) : undefined;
  const fake = await startFakeForge(kind, world, logger, {
    ...(opts.credentialsFromForge ? { cloneUrl: () => origin.bareDir } : {}),
    ...(opts.requestCache === undefined ? {} : { requestCache: opts.requestCache }),
    ...(opts.rateLimit && budget
      ? { rateLimit: opts.rateLimit, onRequest: (r) => budget.observe(budgetKey(kind), r) }
      : {}),
    ...(opts.githubApp ? { githubApp: opts.githubApp } : {}),
  });
  const { forge, fakeGithub, fakeGitea } = fake;

  const dir = tempDir('blitz-e2e-');
  const dbPath = join(dir, 'blitz.db');
  const workspace = join(dir, 'workspace');
  const config: BlitzConfig = blitzConfigSchema.parse({
    runner: {
      workspace,
      maxSessions: opts.maxSessions ?? 2,
      retries: 0,
      attemptTimeoutMinutes: 10,
      ...(opts.runner ?? {}),
    },
    roster: [
      ...(opts.roster ?? [
        {
          ...fakeEntry(opts.agentEnv ?? {}),
          ...(opts.agentCommand ? { command: opts.agentCommand, resume: opts.agentCommand } : {}),
          ...(opts.model ? { model: opts.model } : {}),
          roles: ['blitz', 'fleet'],
          tiers: ['execution', 'design', 'subtle'],
        },
      ]),
      ...(opts.review
        ? [
            {
              name: 'fake-reviewer',
              tool: 'custom',
              command: [
                ...(opts.reviewerProgram ?? [process.execPath, fakeReviewer]),
                ...(opts.reviewerArgs ?? ['--verdict', 'clean']),
                '{prompt_file}',
              ],
              resume: [...(opts.reviewerProgram ?? [process.execPath, fakeReviewer]), '{prompt_file}'],
              roles: ['review'],
              tiers: ['execution'],
            },
          ]
        : []),
      ...(opts.moreRoster ?? []),
    ],
    modelNotesPath: join(dir, 'models.md'),
    ...(opts.prices ? { prices: opts.prices } : {}),
    ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
  });
  const startBot = (): Bot =>
    startBotProcess({
      kind,
      dbPath,
      config,
      forge,
      logger,
      secrets: { github: GITHUB_SECRET, gitea: GITEA_SECRET },
      ...(opts.credentialsFromForge
        ? {
            credentials: async (r: { owner: string; name: string }) => {
              const c = await forge.cloneCredentials(r);
              return { username: c.username, token: c.password };
            },
          }
        : { cloneUrl: async () => origin.bareDir }),
      ...(opts.onRunnerEvent ? { onRunnerEvent: opts.onRunnerEvent } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
      orchestrator: {
        dashboard: { intervalMs: opts.dashboardIntervalMs ?? 0 },
        ...(opts.review ? { review: createReviewLeg({ config, baseEnv: testEnv(), logger }) } : {}),
        ...runWatchDeps(opts),
        ...(opts.onRunChanged ? { onRunChanged: opts.onRunChanged } : {}),
        ...(budget ? { forgePace: () => budget.paceOf(budgetKey(kind)) } : {}),
      },
    });

  let bot = startBot();
  let logSeen = 0;
  const reviews = reviewWebhooks(kind, world, kind === 'github' ? GITHUB_SECRET : GITEA_SECRET);

  const repository = (p: Record<string, unknown>) => {
    const r = p.repository as Record<string, unknown>;
    r.name = 'app';
    r.full_name = 'acme/app';
    r.owner = { ...(r.owner as object), login: 'acme' };
  };

  const deliver = async (req: (deliveryId: string) => { body: string; headers: Record<string, string> }) => {
    const path = webhookPath(kind);
    const times = opts.deliverTwice ? 2 : 1;
    // A redelivery carries the same delivery id, as both forges send it.
    const deliveryId = randomUUID();
    for (let i = 0; i < times; i++) {
      const res = await bot.post(path, req(deliveryId));
      if (res.status >= 300) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
    }
    await bot.queue.idle();
  };

  /** A signed `issue_comment` from `login` on issue `number`, through the real intake. */
  const comment = async (body: string, login = 'alice', number = trigger.number) => {
    const c = world.addComment(repo, number, body, login);
    await deliver(
      issueCommentRequest(kind, kind === 'github' ? GITHUB_SECRET : GITEA_SECRET, {
        repo,
        number,
        commentId: c.id,
        body,
        login,
      }),
    );
  };

  /** A signed GitHub webhook of `event` with `payload`, through the real intake (the App's own events). */
  const githubWebhook = async (event: string, payload: Record<string, unknown>) => {
    if (kind !== 'github') throw new Error('a GitHub webhook on a Gitea harness');
    await deliver((deliveryId) => signedGithubRequest({ secret: GITHUB_SECRET, event, payload, deliveryId }));
  };

  /** What the forge did since the last call, sent back as the webhooks the forge would send (PR merged). */
  const deliverForgeEvents = async () => {
    // Reviews and review comments: the forge's review webhooks (the bot's kept reads heed them).
    for (const r of reviews()) await deliver(r.request);
    const fresh = world.log.slice(logSeen);
    logSeen = world.log.length;
    for (const e of fresh) {
      if (e.action !== 'merge' || e.target === undefined) continue;
      const pr = repo.issues.get(e.target)!;
      const p = fixture(kind, 'pull_request.closed.merged');
      repository(p);
      p.number = pr.number;
      const pp = p.pull_request as Record<string, unknown>;
      Object.assign(pp, {
        number: pr.number,
        merged: true,
        merge_commit_sha: pr.pull?.mergeCommitSha ?? null,
      });
      pp.head = { ...(pp.head as object), ref: pr.pull!.head };
      pp.base = { ...(pp.base as object), ref: pr.pull!.base };
      if (kind === 'github') {
        delete p.installation;
        await deliver((deliveryId) =>
          signedGithubRequest({ secret: GITHUB_SECRET, event: 'pull_request', payload: p, deliveryId }),
        );
      } else {
        await deliver((deliveryId) =>
          signedGiteaRequest({ secret: GITEA_SECRET, eventType: 'pull_request', payload: p, deliveryId }),
        );
      }
    }
  };

  /** One round: supervise workers, cron tick, let everything settle, send the forge's webhooks. */
  const round = async () => {
    await bot.runner.tick({ stalls: false });
    await bot.orch.tick();
    await bot.orch.idle();
    await deliverForgeEvents();
    await bot.orch.idle();
  };

  /**
   * Rounds until `done()` holds (bounded by `timeoutMs`); real worker processes run in between, and the
   * next round starts when a runner made progress (until.ts's roundsUntil).
   */
  const drive = async (done: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<void> => {
    await roundsUntil('the run reached the expected state', round, done, {
      timeoutMs,
      detail: async () => {
        const run = await liveRun();
        const attempts = run ? await bot.runs.ledger.listByRun(run.id) : [];
        return JSON.stringify({
          state: run?.state,
          progress: run?.progress,
          rows: run ? await bot.runs.listRunIssues(run.id) : [],
          attempts: attempts.map((a) => ({
            n: a.issue.number,
            outcome: a.outcome,
            summary: a.failureSummary,
          })),
        });
      },
    });
  };

  const liveRun = async () => (await bot.runs.listRuns())[0];

  return {
    kind,
    trigger: trigger.number,
    world,
    repo,
    origin,
    forge,
    configPath,
    fakeGithub,
    fakeGitea,
    /** The rate budget the run paces on (with `rateLimit`). */
    budget,
    config,
    dbPath,
    workspace,
    get bot() {
      return bot;
    },
    comment,
    githubWebhook,
    deliverForgeEvents,
    round,
    drive,
    liveRun,
    /** Drops the running bot (no shutdown: workers keep running detached) and starts a new one on the same files. */
    async restart() {
      const old = bot;
      bot = startBot();
      old.drop();
    },
    async close() {
      await bot.close();
      await fake.close();
      origin.cleanup();
    },
  };
};

export type BlitzHarness = Awaited<ReturnType<typeof startBlitzHarness>>;

/** Logger that keeps lines for a test to read (never printed). */
export const memoryLogger = () => {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({
      write(chunk, _e, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  });
  return { logger, lines };
};
