// The whole bot for end-to-end plan-blitz tests: the contract-checked fake GitHub or Gitea over a
// World with a real bare git origin, the real forge adapter, the real intake (signed webhooks, SQLite
// deliveries and intents), the runner with a fake planner/worker agent that really commits and
// pushes (PLAN.md for planner tasks, a file for XS work), a fake reviewer CLI whose verdict the
// issue text picks, and the orchestrator over an SQLite file.
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Webhooks } from '@octokit/webhooks';
import { type BlitzConfig, blitzConfigSchema } from '../../src/config/blitz-config.ts';
import { createGiteaForge } from '../../src/forges/gitea/index.ts';
import { createGithubForge } from '../../src/forges/github/index.ts';
import type { Forge, ForgeKind } from '../../src/forges/types.ts';
import { createApp } from '../../src/http/app.ts';
import { createDeliveryQueue } from '../../src/intake/delivery-queue.ts';
import { createEventProcessor } from '../../src/intake/process-events.ts';
import { createReceiver } from '../../src/intake/receive.ts';
import { createLogger, silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { createOrchestrator, type Orchestrator } from '../../src/orchestrator/orchestrator.ts';
import { Runner } from '../../src/runner/runner.ts';
import type { RunnerEvent } from '../../src/runner/types.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { fakeAgent } from '../integration/runner-harness.ts';
import { startFakeGitea } from './fake-gitea/server.ts';
import { fastRetry } from './fake-github/harness.ts';
import { startFakeGithub } from './fake-github/server.ts';
import { tempDir, testEnv } from './git.ts';
import { fixture, githubExample, signedGiteaRequest, signedGithubRequest } from './signing.ts';
import { type SeedIssue, World } from './world.ts';
import { createRealGitRepo } from './world-git.ts';

const GITHUB_SECRET = 'plan-github-secret';
const GITEA_SECRET = 'plan-gitea-secret';
const fakeReviewer = resolve('test/support/fake-agents/fake-reviewer.mjs');

export interface PlanHarnessOptions {
  forge: ForgeKind;
  issues: SeedIssue[];
  /** Labels created before the issues, with descriptions (a `hold` label's reason). */
  labels?: { name: string; description?: string }[];
  milestone?: string;
  maxSessions?: number;
  /** Extra environment of the fake planner/worker (FAKE_AGENT_PLAN_DELAY_MS …). */
  agentEnv?: Record<string, string>;
  onRunnerEvent?: (e: RunnerEvent) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const startPlanHarness = async (opts: PlanHarnessOptions) => {
  const kind = opts.forge;
  const botLogin = kind === 'github' ? 'blitz-bot[bot]' : 'blitz-bot';
  const world = new World(botLogin);
  const origin = await createRealGitRepo({ files: { 'README.md': '# app\n' } });
  const repo = world.addRepo('acme/app', { git: origin.git });
  world.grant(repo, botLogin, kind === 'gitea' ? 'admin' : 'write');
  world.grant(repo, 'alice', 'write');
  world.grant(repo, 'rita', 'read');
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

  const fakeGithub = kind === 'github' ? await startFakeGithub(world) : undefined;
  const fakeGitea = kind === 'gitea' ? await startFakeGitea(world) : undefined;
  const logger = process.env.PLAN_DEBUG ? createLogger({ level: 'warn' }) : silentLogger();
  const forge: Forge =
    kind === 'github'
      ? createGithubForge({
          baseUrl: fakeGithub!.apiUrl,
          auth: { token: 'test-token' },
          botLogin,
          logger,
          retry: fastRetry,
        })
      : createGiteaForge({
          url: fakeGitea!.url,
          token: fakeGitea!.token,
          botLogin,
          logger,
          retry: { retries: 2, minDelayMs: 1, maxDelayMs: 4, maxRetryAfterMs: 1500, sleep: async () => {} },
        });

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

  const startBot = () => {
    const store = openSqliteStore(dbPath);
    const runs = openSqliteRunStore(dbPath);
    let orch: Orchestrator | undefined;
    const runner = new Runner({
      config: config.runner,
      ledger: runs.ledger,
      clock: { now: () => new Date() },
      events: (e) => {
        opts.onRunnerEvent?.(e);
        orch?.onRunnerEvent(e);
      },
      logger,
      credentials: async () => undefined,
      baseEnv: testEnv(),
    });
    orch = createOrchestrator({
      store: runs,
      ledger: runs.ledger,
      forges: async () => forge,
      runner,
      config,
      clock: { now: () => new Date() },
      logger,
      baseEnv: testEnv(),
      cloneUrl: async () => origin.bareDir,
      machine: () => ({ limit: config.runner.maxSessions, contended: false }),
      dashboard: { intervalMs: 0 },
    });
    const queue = createDeliveryQueue({ logger });
    const policy = { required: 'write' as const, botLogin, allowedBots: [] };
    const app = createApp({
      store,
      metrics: createMetrics(),
      logger,
      version: '0.0.0-test',
      receive: createReceiver({
        store,
        queue,
        process: createEventProcessor({
          store,
          logger,
          metrics: createMetrics(),
          forges: async () => forge,
          policies: { github: policy, gitea: policy },
          ack: { github: 'reaction', gitea: 'comment' },
          onEvent: (e) => orch!.handleEvent(e),
        }),
        metrics: createMetrics(),
        logger,
      }),
      github: {
        verify: (payload, signature) => new Webhooks({ secret: GITHUB_SECRET }).verify(payload, signature),
      },
      gitea: { webhookSecret: GITEA_SECRET },
    });
    return { store, runs, runner, orch: orch!, queue, app };
  };
  let bot = startBot();

  const repository = (p: Record<string, unknown>) => {
    const r = p.repository as Record<string, unknown>;
    Object.assign(r, {
      name: 'app',
      full_name: 'acme/app',
      owner: { ...(r.owner as object), login: 'acme' },
    });
  };

  /** A signed `issue_comment` from `login` on the planning room, through the real intake. */
  const comment = async (body: string, login = 'alice') => {
    const c = world.addComment(repo, trigger.number, body, login);
    const deliveryId = randomUUID();
    const p =
      kind === 'github'
        ? githubExample('issue_comment', 'created')
        : fixture('gitea', 'issue_comment.created');
    repository(p);
    (p.issue as Record<string, unknown>).number = trigger.number;
    const pc = p.comment as Record<string, unknown>;
    Object.assign(pc, {
      id: c.id,
      body,
      user: { ...(pc.user as object), login, ...(kind === 'github' ? { type: 'User' } : {}) },
    });
    p.sender = { ...(p.sender as object), login, ...(kind === 'github' ? { type: 'User' } : {}) };
    if (kind === 'github') delete p.installation;
    const req =
      kind === 'github'
        ? signedGithubRequest({ secret: GITHUB_SECRET, event: 'issue_comment', payload: p, deliveryId })
        : signedGiteaRequest({ secret: GITEA_SECRET, eventType: 'issue_comment', payload: p, deliveryId });
    const res = await bot.app.request(kind === 'github' ? '/api/github/webhooks' : '/api/gitea/webhooks', {
      method: 'POST',
      body: req.body,
      headers: req.headers,
    });
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

  /** Rounds until the latest run has stopped and no worker is left (bounded by `timeoutMs`). */
  const driveToStop = async (timeoutMs = Number(process.env.PLAN_TIMEOUT_MS ?? 120_000)) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      await round();
      const run = await latestRun();
      if (run && ['done', 'blocked'].includes(run.state) && (await bot.runs.ledger.listOpen()).length === 0)
        return run;
      await sleep(100);
    }
    const run = await latestRun();
    throw new Error(
      `the plan run did not stop in ${timeoutMs} ms: ${JSON.stringify({ state: run?.state, progress: run?.progress, rows: run ? await bot.runs.listRunIssues(run.id) : [] })}`,
    );
  };

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
    driveToStop,
    latestRun,
    /** Drops the bot without shutdown (workers keep running detached) and starts one on the same files. */
    restart() {
      const old = bot;
      bot = startBot();
      void old.store.close();
      void old.runs.close();
    },
    async close() {
      await bot.orch.close();
      await bot.store.close();
      await bot.runs.close();
      if (fakeGithub) {
        await fakeGithub.close();
        fakeGithub.assertNoViolations();
      }
      if (fakeGitea) {
        await fakeGitea.close();
        fakeGitea.assertNoViolations?.();
      }
      origin.cleanup();
    },
  };
};

export type PlanHarness = Awaited<ReturnType<typeof startPlanHarness>>;
