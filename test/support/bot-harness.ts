// What the end-to-end harnesses (blitz-harness, fleet-harness, plan-harness) share: the usual people
// on a World repo, the contract-checked fake GitHub or Gitea with the real forge adapter over it, and
// one bot process: the runner behind the in-process job queue, the orchestrator over an SQLite file,
// and the real intake (signed webhooks, SQLite deliveries and intents) behind the HTTP app.
import { Webhooks } from '@octokit/webhooks';
import { createQueueDispatch } from '../../src/compose/queue-dispatch.ts';
import { runKinds } from '../../src/compose/run-kinds.ts';
import type { BlitzConfig } from '../../src/config/blitz-config.ts';
import { createGiteaForge } from '../../src/forges/gitea/index.ts';
import { createGithubForge } from '../../src/forges/github/index.ts';
import { withCleanOutgoing } from '../../src/forges/outgoing-text.ts';
import type { ForgeRequestHook } from '../../src/forges/request-hook.ts';
import type { Forge, ForgeKind } from '../../src/forges/types.ts';
import { createApp } from '../../src/http/app.ts';
import { createDeliveryQueue } from '../../src/intake/delivery-queue.ts';
import { createEventProcessor } from '../../src/intake/process-events.ts';
import { createReceiver, resumeUnprocessed } from '../../src/intake/receive.ts';
import type { Logger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { createRedactor } from '../../src/observability/redact.ts';
import { createOrchestrator, type Orchestrator } from '../../src/orchestrator/orchestrator.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import type { CredentialsProvider } from '../../src/runner/git.ts';
import { Runner } from '../../src/runner/runner.ts';
import type { RunnerEvent } from '../../src/runner/types.ts';
import { configuredBudgetProbe } from '../../src/runs/budget-probe.ts';
import type { OrchestratorDeps } from '../../src/runs/context.ts';
import { openSqliteRunStore, type SqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/types.ts';
import { startFakeGitea } from './fake-gitea/server.ts';
import type { PermissionChanges } from './fake-github/app-permissions.ts';
import { appKeyPair } from './fake-github/app-tokens.ts';
import { fastRetry } from './fake-github/harness.ts';
import { startFakeGithub } from './fake-github/server.ts';
import { testEnv } from './git.ts';
import { runnerProgress } from './runner-progress.ts';
import {
  fixture,
  githubExample,
  type SignedRequest,
  signedGiteaRequest,
  signedGithubRequest,
} from './signing.ts';
import type { World, WorldRepo } from './world.ts';

export const botLoginFor = (kind: ForgeKind): string => (kind === 'github' ? 'blitz-bot[bot]' : 'blitz-bot');

export const webhookPath = (kind: ForgeKind): string =>
  kind === 'github' ? '/api/github/webhooks' : '/api/gitea/webhooks';

/**
 * A signed `issue_comment` (created) from `login` on issue or PR `number` of `repo`, as GitHub or Gitea
 * sends it; a function of the delivery id, so a redelivery can carry the same one.
 */
export const issueCommentRequest =
  (
    kind: ForgeKind,
    secret: string,
    c: {
      repo: { owner: string; name: string };
      number: number;
      commentId: number;
      body: string;
      login: string;
    },
  ) =>
  (deliveryId: string): SignedRequest => {
    const p =
      kind === 'github'
        ? githubExample('issue_comment', 'created')
        : fixture('gitea', 'issue_comment.created');
    const r = p.repository as Record<string, unknown>;
    Object.assign(r, {
      name: c.repo.name,
      full_name: `${c.repo.owner}/${c.repo.name}`,
      owner: { ...(r.owner as object), login: c.repo.owner },
    });
    (p.issue as Record<string, unknown>).number = c.number;
    const type = kind === 'github' ? { type: 'User' } : {};
    const pc = p.comment as Record<string, unknown>;
    Object.assign(pc, {
      id: c.commentId,
      body: c.body,
      user: { ...(pc.user as object), login: c.login, ...type },
    });
    p.sender = { ...(p.sender as object), login: c.login, ...type };
    delete p.installation;
    return kind === 'github'
      ? signedGithubRequest({ secret, event: 'issue_comment', payload: p, deliveryId })
      : signedGiteaRequest({ secret, eventType: 'issue_comment', payload: p, deliveryId });
  };

/** The bot, alice (write) and rita (read) on `repo`. */
/**
 * The test repositories have no CI of their own: their repo config says so (`ci.settleSeconds: 0`, a
 * head with no check merges at once instead of after the default 60 s settle window), unless the test
 * wrote a `ci:` section itself. Both config paths, so it holds whichever forge serves the repo.
 */
export const noCiSettle = (repo: WorldRepo): void => {
  for (const path of ['.github/blitz.yml', '.gitea/blitz.yml']) {
    const text = repo.files.get(path);
    if (text === undefined) repo.files.set(path, 'ci:\n  settleSeconds: 0\n');
    else if (!/^ci:/m.test(text))
      repo.files.set(path, `${text.replace(/\n*$/, '\n')}ci:\n  settleSeconds: 0\n`);
  }
};

export const grantUsualPeople = (world: World, repo: WorldRepo, kind: ForgeKind): void => {
  // Gitea lets only repo admins read others' permission: the bot account is an admin there.
  world.grant(repo, botLoginFor(kind), kind === 'gitea' ? 'admin' : 'write');
  world.grant(repo, 'alice', 'write');
  world.grant(repo, 'rita', 'read');
};

/** The fake forge of `kind` over `world` and the real adapter talking to it. */
export const startFakeForge = async (
  kind: ForgeKind,
  world: World,
  logger: Logger,
  /** The clone URL the fake advertises (a real bare origin); `requestCache: false` turns the adapter's caches off (the bench baseline). */
  o: {
    cloneUrl?: (repo: WorldRepo) => string;
    requestCache?: boolean;
    /** The fake GitHub's primary rate limits (its `x-ratelimit-*` headers) and the clock of their window. */
    rateLimit?: { core?: number; graphql?: number; now?: () => number };
    /** Told after every API request of the adapter (as the composed bot's budget tracker is). */
    onRequest?: ForgeRequestHook;
    /**
     * GitHub: the adapter authenticates as an App installation (a JWT, then installation tokens the fake
     * mints with the installation's permissions), not with a static token.
     */
    githubApp?: { installationId: number; permissions?: PermissionChanges };
  } = {},
) => {
  const botLogin = botLoginFor(kind);
  const keys = o.githubApp ? appKeyPair() : undefined;
  const app = o.githubApp && keys ? { appId: 4242, installationId: o.githubApp.installationId } : undefined;
  const fakeOpts = {
    ...(o.cloneUrl ? { cloneUrl: o.cloneUrl } : {}),
    ...(o.rateLimit && kind === 'github' ? { rateLimit: o.rateLimit } : {}),
    ...(app && keys ? { app: { ...app, publicKey: keys.publicKey } } : {}),
    ...(o.githubApp?.permissions ? { permissions: o.githubApp.permissions } : {}),
  };
  const hook = o.onRequest ? { onRequest: o.onRequest } : {};
  const cache = o.requestCache === undefined ? {} : { requestCache: o.requestCache };
  const fakeGithub = kind === 'github' ? await startFakeGithub(world, fakeOpts) : undefined;
  const fakeGitea = kind === 'gitea' ? await startFakeGitea(world, fakeOpts) : undefined;
  const forge: Forge =
    kind === 'github'
      ? createGithubForge({
          baseUrl: fakeGithub!.apiUrl,
          auth: app && keys ? { ...app, privateKey: keys.privateKey } : { token: 'test-token' },
          botLogin,
          logger,
          retry: fastRetry,
          ...cache,
          ...hook,
        })
      : createGiteaForge({
          url: fakeGitea!.url,
          token: fakeGitea!.token,
          botLogin,
          logger,
          retry: { retries: 2, minDelayMs: 1, maxDelayMs: 4, maxRetryAfterMs: 1500, sleep: async () => {} },
          ...cache,
          ...hook,
        });
  return {
    forge,
    fakeGithub,
    fakeGitea,
    /** Stops the fake forge and fails if the bot broke its contract. */
    async close() {
      if (fakeGithub) {
        await fakeGithub.close();
        fakeGithub.assertNoViolations();
      }
      if (fakeGitea) {
        await fakeGitea.close();
        fakeGitea.assertNoViolations?.();
      }
    },
  };
};

/**
 * What a harness test may give the orchestrator in place of the composed bot's: its own budget probe
 * (instead of the absent configured one) and notify targets. Blitz, fleet and plan harnesses take it alike.
 */
export interface RunWatchOptions {
  budgetProbe?: OrchestratorDeps['budgetProbe'];
  notifiers?: OrchestratorDeps['notifiers'];
}

/** The orchestrator deps of `RunWatchOptions` (only those the test passed). */
export const runWatchDeps = (o: RunWatchOptions): Partial<OrchestratorDeps> => ({
  ...(o.budgetProbe ? { budgetProbe: o.budgetProbe } : {}),
  ...(o.notifiers ? { notifiers: o.notifiers } : {}),
});

export interface BotOptions {
  kind: ForgeKind;
  dbPath: string;
  config: BlitzConfig;
  forge: Forge;
  logger: Logger;
  /** Webhook secrets the intake verifies. */
  secrets: { github: string; gitea: string };
  /** Absent: the orchestrator asks the forge for clone credentials, as the composed bot does. */
  cloneUrl?: OrchestratorDeps['cloneUrl'];
  /** Git credentials of the runner (default none: the origin is a local bare repository). */
  credentials?: CredentialsProvider;
  onRunnerEvent?: (e: RunnerEvent) => void;
  /** The clock of the runner and the orchestrator (default the system's): tests move it instead of waiting. */
  clock?: { now(): Date };
  /** Further orchestrator deps (review leg, budget probe, dashboard interval …). */
  orchestrator?: Partial<OrchestratorDeps>;
}

export interface Bot {
  store: Store;
  runs: SqliteRunStore;
  runner: Runner;
  orch: Orchestrator;
  queue: ReturnType<typeof createDeliveryQueue>;
  post: (
    path: string,
    req: { body: string; headers: Record<string, string> },
  ) => Response | Promise<Response>;
  /** The delivery retry's pass (`resumeUnprocessed`) as if run at `at`: deliveries due by then are replayed. */
  resumeDeliveries(at: Date): Promise<number>;
  /** Stops the orchestrator, then closes both connections. */
  close(): Promise<void>;
  /** The process is gone (a crash): its connections are simply dropped, its workers keep running. */
  drop(): void;
}

/** One bot process over the SQLite file `dbPath`; a second call is a restarted process. */
export const startBot = (o: BotOptions): Bot => {
  const { config, logger } = o;
  const clock = o.clock ?? { now: () => new Date() };
  // What the bot writes passes the production filter (controls, commands, secrets): tests see what users would.
  const forge = withCleanOutgoing(o.forge, createRedactor([o.secrets.github, o.secrets.gitea]));
  const store = openSqliteStore(o.dbPath);
  const runs = openSqliteRunStore(o.dbPath);
  let orchRef: Orchestrator | undefined;
  const runner = new Runner({
    // The fake agent reads and writes files a test names outside its worktree: a test asks for the sandbox.
    config: { ...config.runner, sandbox: config.runner.sandbox ?? 'none' },
    ledger: runs.ledger,
    clock,
    events: (e) => {
      o.onRunnerEvent?.(e);
      orchRef?.onRunnerEvent(e);
      runnerProgress.notify();
    },
    // Told, not acted on: the harnesses' rounds tick the runner (they wait on runnerProgress between).
    onWorkerExit: runnerProgress.notify,
    logger,
    credentials: o.credentials ?? (async () => undefined),
    baseEnv: testEnv(),
  });
  // Every job goes through the in-process queue and the bot's own consumer, as in the composed bot.
  const dispatch = createQueueDispatch({
    queue: new InProcessQueue(),
    registry: { getReceipt: async () => undefined },
    store: runs,
    runner,
    logger,
    name: 'harness-bot',
  });
  const orch = createOrchestrator(
    {
      store: runs,
      ledger: runs.ledger,
      forges: async () => forge,
      runner,
      config,
      clock,
      logger,
      baseEnv: testEnv(),
      ...(o.cloneUrl ? { cloneUrl: o.cloneUrl } : {}),
      machine: () => ({ limit: config.runner.maxSessions, contended: false }),
      // The composed bot's probe when the config names one; else the operator's probe is taken to allow
      // the machine's sessions (with none a run goes one worker at a time). A test that needs another
      // answer passes its own (`orchestrator`).
      budgetProbe: config.budget
        ? configuredBudgetProbe(config, testEnv())
        : async () => ({
            status: 'ok',
            recommendedMaxSessions: config.runner.maxSessions,
            preferMedium: false,
            park: false,
          }),
      dashboard: { intervalMs: 0 },
      dispatcher: dispatch.dispatcher,
      ...o.orchestrator,
    },
    runKinds,
  );
  orchRef = orch;
  dispatch.start();
  const metrics = createMetrics();
  const queue = createDeliveryQueue({ logger });
  const policy = { required: 'write' as const, botLogin: botLoginFor(o.kind), allowedBots: [] };
  const processEvents = createEventProcessor({
    store,
    logger,
    metrics,
    forges: async () => forge,
    policies: { github: policy, gitea: policy },
    onEvent: (e) => orch.handleEvent(e),
  });
  const receive = createReceiver({ store, queue, process: processEvents, metrics, logger });
  const webhooks = new Webhooks({ secret: o.secrets.github });
  const app = createApp({
    store,
    metrics,
    logger,
    version: '0.0.0-test',
    receive,
    github: { verify: (payload, signature) => webhooks.verify(payload, signature) },
    gitea: { webhookSecret: o.secrets.gitea },
  });
  const post = (path: string, req: { body: string; headers: Record<string, string> }) =>
    app.request(path, { method: 'POST', body: req.body, headers: req.headers });
  return {
    store,
    runs,
    runner,
    orch,
    queue,
    post,
    resumeDeliveries: (at) =>
      resumeUnprocessed({ store, queue, process: processEvents, metrics, logger, clock: { now: () => at } }),
    async close() {
      await dispatch.stop();
      await orch.close();
      await store.close();
      await runs.close();
    },
    drop() {
      void dispatch.stop();
      void store.close();
      void runs.close();
    },
  };
};
