// The whole bot for end-to-end plan-blitz tests: the contract-checked fake GitHub or Gitea over a
// World with a real bare git origin, the real forge adapter, the real intake (signed webhooks, SQLite
// deliveries and intents), the runner with a fake planner/worker agent that really commits and
// pushes (PLAN.md for planner tasks, a file for XS work), a fake reviewer CLI whose verdict the
// issue text picks, and the orchestrator over an SQLite file.
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { type BlitzConfig, blitzConfigSchema } from '../../src/config/blitz-config.ts';
import type { Forge, ForgeKind } from '../../src/forges/types.ts';
import { createLogger, silentLogger } from '../../src/observability/logger.ts';
import type { RunnerEvent } from '../../src/runner/types.ts';
import {
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
import { tempDir } from './git.ts';
import { fakeAgent } from './runner-harness.ts';
import { roundsUntil } from './until.ts';
import { type SeedIssue, World } from './world.ts';
import { createRealGitRepo } from './world-git.ts';

const GITHUB_SECRET = 'plan-github-secret';
const GITEA_SECRET = 'plan-gitea-secret';
const fakeReviewer = resolve('test/support/fake-agents/fake-reviewer.mjs');

export interface PlanHarnessOptions extends RunWatchOptions {
  forge: ForgeKind;
  issues: SeedIssue[];
  /** Labels created before the issues, with descriptions (a `hold` label's reason). */
  labels?: { name: string; description?: string }[];
  milestone?: string;
  maxSessions?: number;
  /** Extra environment of the fake planner/worker (FAKE_AGENT_PLAN_DELAY_MS …). */
  agentEnv?: Record<string, string>;
  onRunnerEvent?: (e: RunnerEvent) => void;
  /** Wraps the bot's forge connection (a test that stops the bot right after a forge call). */
  wrapForge?: (forge: Forge) => Forge;
  /** The clock of the runner and the orchestrator (default the system's): a test moves it past a backoff. */
  clock?: { now(): Date };
}

export const startPlanHarness = async (opts: PlanHarnessOptions) => {
  const kind = opts.forge;
  const botLogin = botLoginFor(kind);
  const world = new World(botLogin);
  const origin = await createRealGitRepo({ files: { 'README.md': '# app\n' } });
  const repo = world.addRepo('acme/app', { git: origin.git });
  grantUsualPeople(world, repo, kind);
  noCiSettle(repo);
  world.addMilestone(repo, opts.milestone ?? 'M1');
  // Gitea adds only labels that exist: the operator creates the plan labels once (README).
  const planLabels = ['plan/draft', 'plan/approved', 'plan/ready', 'size/XS', 'size/S', 'size/M', 'size/L'];
  const labels: { name: string; description?: string }[] = [
    ...planLabels.map((name) => ({ name })),
    ...(opts.labels ?? []),
  ];
  for (const l of labels) world.addLabel(repo, l.name, l.description);
  for (const seed of opts.issues)
    world.addIssue(repo, { milestone: opts.milestone ?? 'M1', author: 'alice', ...seed });
  const trigger = world.addIssue(repo, { title: 'Planning room', author: 'alice' });

  const logger = process.env.PLAN_DEBUG ? createLogger({ level: 'warn' }) : silentLogger();
  const fake = await startFakeForge(kind, world, logger);

  const dir = tempDir('plan-e2e-');
  const dbPath = join(dir, 'blitz.db');
  const config: BlitzConfig = blitzConfigSchema.parse({
    runner: {
      workspace: join(dir, 'workspace'),
      maxSessions: opts.maxSessions ?? 3,
      retries: 0,
      attemptTimeoutMinutes: 10,
    },
    roster: [
      {
        name: 'planner',
        tool: 'custom',
        command: ['node', fakeAgent, '{prompt_file}'],
        resume: ['node', fakeAgent, '--resume', '{prompt_file}'],
        roles: ['plan', 'blitz'],
        tiers: ['execution', 'design', 'subtle'],
        env: { FAKE_AGENT_MODE: 'plan', ...(opts.agentEnv ?? {}) },
      },
      {
        name: 'plan-reviewer',
        tool: 'custom',
        provider: 'other',
        command: ['node', fakeReviewer, '--verdict-from-prompt', '--verdict', 'APPROVED', '{prompt_file}'],
        resume: ['node', fakeReviewer, '{prompt_file}'],
        roles: ['review'],
        tiers: ['execution', 'design', 'subtle'],
      },
    ],
    modelNotesPath: join(dir, 'models.md'),
    reviewTimeoutSeconds: 60,
  });

  const startBot = () =>
    startBotProcess({
      kind,
      dbPath,
      config,
      forge: opts.wrapForge ? opts.wrapForge(fake.forge) : fake.forge,
      logger,
      secrets: { github: GITHUB_SECRET, gitea: GITEA_SECRET },
      cloneUrl: async () => origin.bareDir,
      ...(opts.onRunnerEvent ? { onRunnerEvent: opts.onRunnerEvent } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
      orchestrator: runWatchDeps(opts),
    });
  let bot = startBot();

  /** A signed `issue_comment` from `login` on the planning room, through the real intake. */
  const comment = async (body: string, login = 'alice') => {
    const c = world.addComment(repo, trigger.number, body, login);
    const req = issueCommentRequest(kind, kind === 'github' ? GITHUB_SECRET : GITEA_SECRET, {
      repo,
      number: trigger.number,
      commentId: c.id,
      body,
      login,
    });
    const res = await bot.post(webhookPath(kind), req(randomUUID()));
    if (res.status >= 300) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
    await bot.queue.idle();
  };

  const round = async () => {
    await bot.runner.tick({ stalls: false });
    await bot.orch.tick();
    await bot.orch.idle();
  };

  const latestRun = async () =>
    (await bot.runs.listRuns()).sort((a, b) => a.createdAt.localeCompare(b.createdAt)).at(-1);

  /** What the latest run and its attempts are now: what a wait that gave up saw last. */
  const seenLast = async () => {
    const run = await latestRun();
    return JSON.stringify({
      state: run?.state,
      progress: run?.progress,
      rows: run ? await bot.runs.listRunIssues(run.id) : [],
      attempts: run
        ? (await bot.runs.ledger.listByRun(run.id)).map((a) => ({ n: a.issue.number, outcome: a.outcome }))
        : [],
    });
  };

  /** Rounds until `done()` holds (bounded by `timeoutMs`), the next on runner progress (roundsUntil). */
  const drive = async (done: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<void> => {
    await roundsUntil('the plan run reached the expected state', round, done, {
      timeoutMs,
      detail: seenLast,
    });
  };

  /** Rounds until the latest run has stopped and no worker is left (bounded by `timeoutMs`). */
  const driveToStop = (timeoutMs = Number(process.env.PLAN_TIMEOUT_MS ?? 120_000)) =>
    roundsUntil(
      'the plan run stopped',
      round,
      async () => {
        const run = await latestRun();
        return run &&
          ['done', 'blocked'].includes(run.state) &&
          (await bot.runs.ledger.listOpen()).length === 0
          ? run
          : undefined;
      },
      { timeoutMs, detail: seenLast },
    );

  return {
    kind,
    botLogin,
    world,
    repo,
    origin,
    trigger: trigger.number,
    get runs() {
      return bot.runs;
    },
    comment,
    round,
    drive,
    driveToStop,
    latestRun,
    /** Drops the bot without shutdown (workers keep running detached) and starts one on the same files. */
    restart() {
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

export type PlanHarness = Awaited<ReturnType<typeof startPlanHarness>>;
