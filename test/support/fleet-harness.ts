// The whole bot for end-to-end ticket-fleet tests: two repositories (acme/app, acme/lib), each with
// a real bare origin, served by one contract-checked fake forge; the real forge adapter, the real
// intake (signed webhooks, SQLite deliveries and intents), the runner with fake agents that really
// commit and push (a mode per ticket), a fake reviewer in the roster, and the orchestrator over an
// SQLite file. People: alice (write on both), rita (read only).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type BlitzConfig, blitzConfigSchema } from '../../src/config/blitz-config.ts';
import { budgetKey, createBudgetTracker } from '../../src/forges/rate-budget.ts';
import type { ForgeKind } from '../../src/forges/types.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { sendApproval } from './blitz-labels.ts';
import {
  botLoginFor,
  grantUsualPeople,
  issueCommentRequest,
  noCiSettle,
  type RunWatchOptions,
  runWatchDeps,
  startBot,
  startFakeForge,
  webhookPath,
} from './bot-harness.ts';
import type { PermissionChanges } from './fake-github/app-permissions.ts';
import { tempDir } from './git.ts';
import { reviewWebhooks } from './review-webhooks.ts';
import { fakeEntry } from './runner-harness.ts';
import { signedGithubRequest } from './signing.ts';
import { roundsUntil } from './until.ts';
import { type SeedIssue, World, type WorldRepo } from './world.ts';
import { createRealGitRepo, type RealGitRepo } from './world-git.ts';

const SECRET = 'fleet-webhook-secret';
const fakeReviewer = new URL('./fake-agents/fake-reviewer.mjs', import.meta.url).pathname;

export interface FleetHarnessOptions extends RunWatchOptions {
  forge: ForgeKind;
  /** Issues per repo name (`app`, `lib`). */
  issues: Record<'app' | 'lib', SeedIssue[]>;
  /** Fake agent environment (FAKE_AGENT_MODES …). */
  agentEnv?: Record<string, string>;
  /** The fake reviewer's options (fake-agents/fake-reviewer.mjs); default `--verdict minor`. */
  reviewerArgs?: string[];
  maxSessions?: number;
  /** More files in a repository's origin (e.g. a test script a fake CI runs). */
  files?: Partial<Record<'app' | 'lib', Record<string, string>>>;
  /** A repository's `blitz.yml` (GitHub or Gitea path, as the forge reads it). */
  repoConfig?: Partial<Record<'app' | 'lib', string>>;
  /**
   * The fake GitHub reports these primary limits, and the bot paces the fleet on them as the composed bot
   * does (a budget tracker fed by every request, `forgePace`); `now` is the clock of both.
   */
  rateLimit?: { core?: number; now: () => number };
  /** More `runner:` settings of blitz.config.yml (environmentBackoff …). */
  runner?: Record<string, unknown>;
  /** The bot's clock (runner and orchestrator); default the system's. */
  clock?: { now(): Date };
  /** GitHub: the bot is this App installation, holding these permissions (fake-github/app-permissions.ts). */
  githubApp?: { installationId: number; permissions?: PermissionChanges };
}

export const startFleetHarness = async (opts: FleetHarnessOptions) => {
  const kind = opts.forge;
  const world = new World(botLoginFor(kind));
  const origins: Record<'app' | 'lib', RealGitRepo> = {
    app: await createRealGitRepo({ files: { 'README.md': '# app\n', ...opts.files?.app } }),
    lib: await createRealGitRepo({ files: { 'README.md': '# lib\n', ...opts.files?.lib } }),
  };
  const repos: Record<'app' | 'lib', WorldRepo> = {
    app: world.addRepo('acme/app', { git: origins.app.git }),
    lib: world.addRepo('acme/lib', { git: origins.lib.git }),
  };
  for (const r of Object.values(repos)) grantUsualPeople(world, r, kind);
  for (const name of ['app', 'lib'] as const) {
    const cfg = opts.repoConfig?.[name];
    if (cfg !== undefined)
      repos[name].files.set(kind === 'github' ? '.github/blitz.yml' : '.gitea/blitz.yml', cfg);
  }
  for (const r of Object.values(repos)) noCiSettle(r);
  for (const name of ['app', 'lib'] as const)
    for (const seed of opts.issues[name]) world.addIssue(repos[name], { author: 'alice', ...seed });
  const trigger = world.addIssue(repos.app, { title: 'Fleet control room', author: 'alice' });

  const logger = silentLogger();
  const budget = opts.rateLimit ? createBudgetTracker({ now: opts.rateLimit.now }) : undefined;
  const fake = await startFakeForge(kind, world, logger, {
    ...(opts.rateLimit && budget
      ? { rateLimit: opts.rateLimit, onRequest: (r) => budget.observe(budgetKey(kind), r) }
      : {}),
    ...(opts.githubApp ? { githubApp: opts.githubApp } : {}),
  });
  const { forge, fakeGithub } = fake;

  const dir = tempDir('fleet-e2e-');
  const dbPath = join(dir, 'blitz.db');
  const workspace = join(dir, 'workspace');
  const reviewerArgv = [
    process.execPath,
    fakeReviewer,
    ...(opts.reviewerArgs ?? ['--verdict', 'minor']),
    '{prompt_file}',
  ];
  const config: BlitzConfig = blitzConfigSchema.parse({
    runner: {
      workspace,
      maxSessions: opts.maxSessions ?? 3,
      retries: 0,
      attemptTimeoutMinutes: 10,
      ...(opts.runner ?? {}),
    },
    roster: [
      {
        ...fakeEntry(opts.agentEnv ?? {}),
        roles: ['blitz', 'fleet'],
        tiers: ['execution', 'design', 'subtle'],
      },
      {
        name: 'fake-reviewer',
        tool: 'custom',
        command: reviewerArgv,
        resume: reviewerArgv,
        roles: ['review'],
        tiers: ['execution'],
      },
    ],
    modelNotesPath: join(dir, 'models.md'),
    reviewTimeoutSeconds: 60,
  });
  const { store, runs, runner, orch, queue, post } = startBot({
    kind,
    dbPath,
    config,
    forge,
    logger,
    secrets: { github: SECRET, gitea: SECRET },
    cloneUrl: async (_f, repo) => (repo.name === 'lib' ? origins.lib : origins.app).bareDir,
    ...(opts.clock ? { clock: opts.clock } : {}),
    orchestrator: {
      ...(budget ? { forgePace: () => budget.paceOf(budgetKey(kind)) } : {}),
      ...runWatchDeps(opts),
    },
  });

  /** A signed `issue_comment` from `login` on issue or PR `number` of `repo`, through the real intake. */
  const comment = async (body: string, login = 'alice', number = trigger.number, repo = repos.app) => {
    const c = world.addComment(repo, number, body, login);
    const req = issueCommentRequest(kind, SECRET, { repo, number, commentId: c.id, body, login })(
      randomUUID(),
    );
    const res = await post(webhookPath(kind), req);
    if (res.status >= 300) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
    await queue.idle();
  };

  /** A signed GitHub webhook `event` with `payload`, through the real intake. */
  const githubWebhook = async (event: string, payload: Record<string, unknown>) => {
    if (kind !== 'github') throw new Error('a GitHub webhook on a Gitea harness');
    const res = await post(
      webhookPath(kind),
      signedGithubRequest({ secret: SECRET, event, payload, deliveryId: randomUUID() }),
    );
    if (res.status >= 300) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
    await queue.idle();
    await orch.idle();
  };

  const reviews = reviewWebhooks(kind, world, SECRET);
  const round = async () => {
    await runner.tick({ stalls: false });
    await orch.tick();
    await orch.idle();
    // The forge's review webhooks for reviews given meanwhile (the bot's kept reads heed them).
    for (const r of reviews()) {
      const res = await post(webhookPath(kind), r.request(randomUUID()));
      if (res.status >= 300) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
    }
    await queue.idle();
    await orch.idle();
  };

  /** Rounds until `done()` holds; the next round starts on runner progress (until.ts's roundsUntil). */
  const drive = async (done: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<void> => {
    await roundsUntil('the fleet reached the expected state', round, done, {
      timeoutMs,
      detail: async () => {
        const run = (await runs.listRuns())[0];
        return JSON.stringify({
          state: run?.state,
          progress: run?.progress,
          rows: run ? await runs.listRunIssues(run.id) : [],
          attempts: run
            ? (await runs.ledger.listByRun(run.id)).map((a) => ({
                n: a.issue,
                outcome: a.outcome,
                s: a.failureSummary,
              }))
            : [],
        });
      },
    });
  };

  return {
    kind,
    world,
    repos,
    origins,
    forge,
    /** The fake GitHub (its requests and violations), on `forge: 'github'`. */
    fakeGithub,
    trigger: trigger.number,
    store,
    runs,
    runner,
    orch,
    comment,
    githubWebhook,
    round,
    drive,
    /** `login` adds `blitz/approved` to `repo`#`n`, with the forge's signed label webhook. */
    approve: (n: number, login: string, repo = repos.app) =>
      sendApproval({ kind, world, repo, secret: SECRET, post, idle: () => queue.idle() }, n, login),
    fleetRun: async () => (await runs.listRuns()).find((r) => r.kind === 'fleet'),
    /** The model notes file the bot keeps (seed 001): what runs taught about the roster's tiers. */
    notesPath: join(dir, 'models.md'),
    async close() {
      await orch.close();
      for (const a of await runs.ledger.listOpen()) await runner.execute({ kind: 'cancel', attemptId: a.id });
      await store.close();
      await runs.close();
      await fake.close();
      origins.app.cleanup();
      origins.lib.cleanup();
    },
  };
};

export type FleetHarness = Awaited<ReturnType<typeof startFleetHarness>>;
