// The composed bot: every part built from the parsed env and operator config, in the order each needs
// the last (stores → forges → runner → orchestrator → intake → HTTP → cron), started and stopped as
// one. `serve` calls it; the end-to-end test boots the very same thing in-process. Stopping goes in
// reverse order and leaves workers running detached (the next start re-attaches them).

import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { serve as serveHttp } from '@hono/node-server';
import type { BlitzConfig } from '../config/blitz-config.ts';
import type { Env } from '../config/env.ts';
import type { NotifyTargetValues } from '../config/notify-targets.ts';
import { createAppHookDeliveries } from '../forges/github/hook-deliveries.ts';
import { githubBaseUrl, type RetryOptions } from '../forges/github/index.ts';
import { type BudgetTracker, budgetKey, createBudgetTracker, paceFor } from '../forges/rate-budget.ts';
import type { ForgeKind } from '../forges/types.ts';
import type { createApp } from '../http/app.ts';
import type { EarlyListener } from '../http/early-listener.ts';
import { createDeliveryQueue } from '../intake/delivery-queue.ts';
import { createForgeResolver } from '../intake/forge-resolver.ts';
import { createEventProcessor, type DeliveryWork } from '../intake/process-events.ts';
import { createReceiver, resumeUnprocessed, startDeliveryRetry } from '../intake/receive.ts';
import { createRecovery, type RecoveryLimits, type RecoveryReport } from '../intake/recover.ts';
import { loadRepoPolicy } from '../intake/repo-policy.ts';
import { openSpool } from '../intake/spool.ts';
import { createSpooledReceiver, type SpoolRetry } from '../intake/spooled-receive.ts';
import type { Logger } from '../observability/logger.ts';
import { createMetrics, type Metrics } from '../observability/metrics.ts';
import { createRedactor } from '../observability/redact.ts';
import { createOrchestrator, type Orchestrator } from '../orchestrator/orchestrator.ts';
import { priceTableOf } from '../plan/cost.ts';
import { isTerminalRunState } from '../plan/states.ts';
import { defaultLeaseSeconds } from '../queue/dispatcher.ts';
import { localOnlyLedger } from '../queue/local-consumer.ts';
import { type LostRunnerDeps, sweepLostRunners } from '../remote-runner/lost-runners.ts';
import { openRunnerSide } from '../remote-runner/open-runner-side.ts';
import { createRetryRequeue } from '../remote-runner/requeue-retry.ts';
import { createReviewLeg } from '../review/review-leg.ts';
import { redactingLedger } from '../runner/redacting-ledger.ts';
import { Runner } from '../runner/runner.ts';
import { startSupervision } from '../runner/schedule.ts';
import type { RunnerEvent } from '../runner/types.ts';
import { configuredBudgetProbe } from '../runs/budget-probe.ts';
import { buildNotifiers } from '../ship/notify.ts';
import { createRunEvents, type RunEvents } from '../status/run-events.ts';
import { openRunStore, openStore, storeEngineName } from '../store/open-store.ts';
import { createStoreHealth, type StoreHealth, writeProbeOf } from '../store/store-health.ts';
import type { Store } from '../store/types.ts';
import { type CronStarter, startBlitzCron } from './cron.ts';
import { learnGiteaLogin } from './gitea-login.ts';
import { scanBlitzMarkers } from './gitea-markers.ts';
import { startGithubApp } from './github-app.ts';
import { buildHttpApp } from './http-app.ts';
import { tellLostRunner } from './lost-runner-notice.ts';
import { createQueueDispatch } from './queue-dispatch.ts';
import { runKinds } from './run-kinds.ts';
import { runnerCredentials } from './runner-credentials.ts';
import { configuredSecrets } from './secrets.ts';
import { tellStoreOutages } from './store-outage.ts';

export interface BotOptions {
  env: Env;
  config: BlitzConfig;
  logger: Logger;
  version: string;
  /** Environment workers, builds and the budget probe get (runnerBaseEnv from config/). */
  baseEnv: Record<string, string>;
  notifyTargets: NotifyTargetValues;
  /** Seconds between orchestrator ticks (intents, reconcile of every live run); default 60. */
  tickSeconds?: number;
  /** Seconds between worker supervision passes; default 15. */
  supervisionSeconds?: number;
  /** Run queued jobs in this process too (default true); false leaves them to `blitz-bot runner` agents. */
  localRunner?: boolean;
  /** Process metrics (CPU, memory…); off in tests, where several bots share one process. */
  defaultMetrics?: boolean;
  /** This replica's name on its leases and jobs; default `bot-<host>-<pid>` (one process, one replica). */
  name?: string;
  /** Seconds a runner holds a job before it goes to another; default 120. */
  jobLeaseSeconds?: number;
  /**
   * Retries and write spacing of the GitHub clients (default client.ts's defaultRetry: GitHub's one
   * second between writes, three between notifying ones); tests against the fake shrink the second.
   */
  githubRetry?: RetryOptions;
  /** The delivery store, already open (`serve` opens it first to answer /healthz); the bot closes it. */
  store?: Store;
  /** The backoff between replays of the webhook spool while the store stays away (default 1 s doubling to 60 s). */
  spoolRetry?: SpoolRetry;
  /** Bounds of the recovery of missed webhooks at start and after an outage (intake/recover.ts). */
  recoveryLimits?: Partial<RecoveryLimits>;
  /** The socket `serve` opened before composing (src/http/early-listener.ts); start() hands it the app. */
  listener?: EarlyListener;
  /** Starts the orchestrator's cron tick (default startBlitzCron); a test passes one it fires itself. */
  cron?: CronStarter;
  /** The bot's own files no sandboxed worker may see (botPrivatePaths in config/env.ts). */
  privatePaths?: readonly string[];
  /**
   * The bot's clock for remote runners' liveness (when each was heard from, which are lost); default
   * the system clock. A test moves it on instead of waiting out a lease.
   */
  runnerClock?: { now(): Date };
  /**
   * The host's worker limit instead of the runner's own sample of its load (which on a busy host allows
   * one worker): the scale bench, whose fake workers sleep, plans with the configured sessions.
   */
  machine?: () => { limit: number; contended: boolean };
  /** Told how long each reconcile of a run took (ms), beside `blitz_reconcile_seconds`: the scale bench. */
  onReconciled?: (runId: string, ms: number) => void;
  /**
   * What the bot has seen of its store (`serve` makes it before the store opens, to answer /healthz);
   * default one over `store.ping` with the real clock and BLITZ_STORE_OUTAGE_NOTIFY_SECONDS.
   */
  health?: StoreHealth;
}

export interface Bot {
  app: ReturnType<typeof createApp>;
  metrics: Metrics;
  orchestrator: Orchestrator;
  /** Run changes as the status pages see them (live updates). */
  runEvents: RunEvents;
  /** Each forge installation's rate-limit budget and the pace it calls for (status page, orchestrator). */
  forgeBudget: BudgetTracker;
  /**
   * Re-attaches workers, resumes unfinished deliveries, listens on env.PORT (0: any free port), starts
   * the ticks, and starts a recovery of what was missed while the bot was down (not awaited).
   */
  start(): Promise<{ port: number }>;
  /**
   * Recovers webhooks missed while the bot or its store was away (intake/recover.ts): failed GitHub
   * deliveries redelivered, missed Gitea commands taken. Start calls it; so may the store-is-back path,
   * with `since` the outage's start. Serialised: a call waits for the one under way.
   */
  recover(opts?: { since?: Date }): Promise<RecoveryReport>;
  /** Reverse order: HTTP, ticks, intake queue, orchestrator, stores. Idempotent. */
  stop(): Promise<void>;
}

export const composeBot = async (o: BotOptions): Promise<Bot> => {
  const { env, config, logger } = o;
  // Every configured secret and every credential shape, out of what the bot writes for people to read.
  const redact = createRedactor(configuredSecrets(env, o.notifyTargets));
  const store = o.store ?? (await openStore(env.DATABASE_URL));
  const engine = storeEngineName(env.DATABASE_URL);
  const health =
    o.health ??
    createStoreHealth({
      engine,
      probe: () => store.ping(),
      writeProbe: writeProbeOf(store),
      logger: logger.child({ name: 'store-health' }),
      notifyAfterMs: env.BLITZ_STORE_OUTAGE_NOTIFY_SECONDS * 1000,
    });
  const runs = await openRunStore(env.DATABASE_URL);
  const ledger = redactingLedger(runs.ledger, redact);
  const runnerClock = o.runnerClock ?? { now: () => new Date() };
  const runners = await openRunnerSide(env.DATABASE_URL, logger, redact, runnerClock);
  const metrics = createMetrics({ defaultMetrics: o.defaultMetrics ?? true });
  const baseUrl = githubBaseUrl({ host: env.GHE_HOST, protocol: env.GHE_PROTOCOL });

  const github = await startGithubApp(env, baseUrl, logger);
  const githubLogin = github?.botLogin ?? '';
  const giteaLogin = env.gitea ? await learnGiteaLogin(env.gitea, logger) : '';
  // What the forges said about their rate limits: on /metrics, and for the status page and pace().
  const budget = createBudgetTracker();
  metrics.setBudgetSource(() => budget.all());
  const forges = createForgeResolver({
    logger,
    redact,
    onRequest: (forge, installationId) => (r) => {
      metrics.forgeRequests.inc({ forge, outcome: r.outcome });
      if (r.remaining !== undefined) metrics.forgeRateLimitRemaining.set({ forge }, r.remaining);
      budget.observe(budgetKey(forge, installationId), r);
    },
    ...(env.github
      ? {
          github: {
            ...env.github,
            baseUrl,
            botLogin: githubLogin,
            ...(o.githubRetry ? { retry: o.githubRetry } : {}),
          },
        }
      : {}),
    ...(env.gitea
      ? {
          gitea: {
            url: env.gitea.url,
            token: env.gitea.token,
            ...(env.gitea.pushToken ? { pushToken: env.gitea.pushToken } : {}),
            botLogin: giteaLogin,
          },
        }
      : {}),
  });
  const configured: ForgeKind[] = [
    ...(env.github ? ['github' as const] : []),
    ...(env.gitea ? ['gitea' as const] : []),
  ];

  const runEvents = createRunEvents({
    onListenerError: (err) => logger.warn({ err }, 'status listener failed'),
  });
  let orch: Orchestrator | undefined;
  // Worker events reach the status pages too (a started or finished attempt), not only the next reconcile.
  const onRunnerEvent = (e: RunnerEvent) => {
    orch?.onRunnerEvent(e);
    if ('attemptId' in e)
      void runs.ledger.get(e.attemptId).then(
        (a) => a && runEvents.publish(a.runId),
        (err: unknown) => logger.debug({ err }, 'attempt of a runner event not found'),
      );
  };
  const clock = { now: () => new Date() };
  // Attempts are tagged with this machine: replicas on other machines share the ledger, not the worktrees.
  const machine = hostname();
  const localRunner = !(o.localRunner === false || env.BLITZ_LOCAL_RUNNER === 'false');
  const runner = new Runner({
    config: config.runner,
    startsWorkers: localRunner,
    // Attempts remote runners reported are theirs to supervise, not this host's.
    ledger: localOnlyLedger(ledger, machine),
    host: machine,
    clock,
    events: onRunnerEvent,
    logger: logger.child({ name: 'runner' }),
    credentials: runnerCredentials({ runs, forges, configured }),
    baseEnv: o.baseEnv,
    ...(o.privatePaths ? { hidden: o.privatePaths } : {}),
    requeue: (r) => requeue(r),
    // A worker that exits is collected at once (its outcome reconciles its run), not at the next tick.
    onWorkerExit: () =>
      void runner
        .collectExits()
        .catch((err: unknown) => logger.error({ err }, 'collecting a worker exit failed')),
  });
  // Every dispatch goes through the job queue; this bot's own consumer runs the jobs no remote runner takes.
  const queueDispatch = createQueueDispatch({
    queue: runners.queue,
    registry: runners.registry,
    store: runs,
    runner,
    logger,
    ...(localRunner ? {} : { localRunner: false }),
    ...(o.name ? { name: o.name } : {}),
    machine,
    ...(o.jobLeaseSeconds ? { leaseSeconds: o.jobLeaseSeconds } : {}),
    gate: health,
  });
  // An unsolved attempt's retry, local or remote, is a new job on the queue (any runner claims it).
  const requeue = createRetryRequeue({
    dispatcher: queueDispatch.dispatcher,
    ledger,
    retries: config.runner.retries,
    logger: logger.child({ name: 'retries' }),
  });
  runners.onUnsolved(requeue);
  // A remote runner's report that ends an attempt reconciles its run at once, as a local exit does.
  runners.onEnded((r) =>
    onRunnerEvent({
      type: 'attempt.finished',
      attemptId: r.id,
      outcome: r.outcome ?? 'unsolved',
      summary: r.failureSummary ?? '',
    }),
  );
  const notify = buildNotifiers(o.notifyTargets.targets ?? []);
  for (const problem of notify.problems) logger.warn(problem);
  // A long store outage and its end are told to the notify targets and on the dashboards.
  const outages = tellStoreOutages({
    health,
    engine,
    notifiers: notify.notifiers,
    logger,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
  });
  orch = createOrchestrator(
    {
      store: runs,
      ledger,
      runner,
      config,
      clock,
      logger: logger.child({ name: 'orchestrator' }),
      baseEnv: o.baseEnv,
      budgetProbe: configuredBudgetProbe(config, o.baseEnv),
      forges: ({ forge, repo, installationId }) =>
        forges({ forge, repo, ...(installationId !== undefined ? { installationId } : {}) }),
      notifiers: notify.notifiers,
      review: createReviewLeg({
        config,
        baseEnv: o.baseEnv,
        logger,
        ...(env.OLLAMA_HOST ? { ollamaHost: env.OLLAMA_HOST } : {}),
      }),
      ...(env.OLLAMA_HOST ? { fleet: { ollamaHost: env.OLLAMA_HOST } } : {}),
      onRunChanged: (runId, view) => runEvents.publish(runId, view),
      dispatcher: queueDispatch.dispatcher,
      // GitHub's limits (its x-ratelimit headers, the secondary limit on writes) slow a run before they bite.
      forgePace: (run) => paceFor(budget, budgetKey(run.forge, run.installationId)),
      onReconciled: (runId, ms) => {
        metrics.reconcileDuration.observe(ms / 1000);
        o.onReconciled?.(runId, ms);
      },
      ...(o.machine ? { machine: o.machine } : {}),
      storeHealth: health,
      storeOutage: () => outages.dashboardLine(clock.now()),
    },
    runKinds,
  );
  const orchestrator = orch;
  // Runners unheard of for a lease are lost: their jobs move or are dropped, and a person is told once.
  const lostRunners: LostRunnerDeps = {
    registry: runners.registry,
    queue: runners.queue,
    ledger,
    logger: logger.child({ name: 'runners' }),
    lostAfterSeconds: o.jobLeaseSeconds ?? defaultLeaseSeconds,
    since: runnerClock.now(),
    localRunnerServesAttempts: localRunner,
    tell: tellLostRunner({
      runs,
      notifiers: notify.notifiers,
      logger,
      publicUrl: config.publicUrl,
      reconcileRun: (id) => orchestrator.reconcileRun(id),
    }),
  };

  const queue = createDeliveryQueue({ logger });
  const policy = (botLogin: string) => ({
    required: env.BLITZ_PERMISSION,
    botLogin,
    allowedBots: env.BLITZ_ALLOWED_BOTS,
  });
  const processEvents = createEventProcessor({
    store,
    forges,
    logger,
    metrics,
    policies: { github: policy(githubLogin), gitea: policy(giteaLogin) },
    // Gitea comments are read back after an outage: each one taken is marked by its id.
    commentMarks: env.gitea ? ['gitea'] : [],
    repoPolicy: loadRepoPolicy,
    onEvent: (e) => orchestrator.handleEvent(e),
  });
  // A stored command is taken at once rather than at the next cron tick.
  const process = async (work: DeliveryWork) => {
    await processEvents(work);
    if (work.events.some((e) => e.kind === 'command' || e.kind === 'milestone-signal'))
      await sweepLostRunners(lostRunners, runnerClock.now()).catch((err: unknown) =>
        logger.warn({ err }, 'looking for lost runners failed; tried again next tick'),
      );
    await orchestrator.tick();
  };
  // Deliveries are leased under this replica's name, so another replica replays one only if this one died.
  const intake = { store, queue, process, metrics, logger, holder: queueDispatch.name };
  // What the store cannot take while it is down waits on disk, in the data dir, and is replayed in order.
  const spooled = createSpooledReceiver({
    receive: createReceiver(intake),
    spool: openSpool(join(env.dataDir, 'spool'), {
      maxEntries: env.BLITZ_SPOOL_MAX_DELIVERIES,
      maxBytes: env.BLITZ_SPOOL_MAX_MB * 1024 * 1024,
    }),
    metrics,
    logger: logger.child({ name: 'spool' }),
    ...(o.spoolRetry ? { retry: o.spoolRetry } : {}),
    health,
  });
  // What was missed while the bot or its store was away: failed GitHub deliveries, Gitea commands.
  const recovery = createRecovery({
    receive: spooled.receive,
    store,
    runs,
    ...(env.github
      ? {
          github: createAppHookDeliveries({
            baseUrl,
            appId: env.github.appId,
            privateKey: env.github.privateKey,
            logger: logger.child({ name: 'recovery' }),
          }),
        }
      : {}),
    ...(env.gitea ? { gitea: { forge: () => forges({ forge: 'gitea' }), botLogin: giteaLogin } } : {}),
    metrics,
    logger: logger.child({ name: 'recovery' }),
    ...(o.recoveryLimits ? { limits: o.recoveryLimits } : {}),
  });
  let recovering: Promise<unknown> | undefined;
  // The runs an outage notice names: every run change that reached the store adds its run.
  runEvents.subscribe((runId) => {
    if (outages.knows(runId)) return;
    void runs.getRun(runId).then(
      (run) => run && !isTerminalRunState(run.state) && outages.seen(run),
      () => undefined,
    );
  });
  // Once the store is back: the spool goes in at once, then what the forges sent that never came in.
  health.whenBack(async ({ since }) => {
    await spooled.replay();
    recovering = recovery.recover({ since });
    await recovering;
  });
  const app = buildHttpApp({
    env,
    store,
    health,
    runs,
    metrics,
    logger,
    version: o.version,
    receive: spooled.receive,
    runnerHub: runners.hub,
    runnerRegistry: runners.registry,
    runEvents,
    workspace: config.runner.workspace,
    redact,
    baseUrl,
    budget,
    prices: priceTableOf(config.prices),
    ...(github ? { verifyGithub: github.verify } : {}),
  });

  // The cron tick: Gitea's [blitz] milestone markers first (it sends no milestone webhook), then intents and every live run.
  const tick = async () => {
    if (env.gitea) {
      const forge = await forges({ forge: 'gitea' });
      await scanBlitzMarkers({ forge, store, runs, botLogin: giteaLogin, logger }).catch((err: unknown) =>
        logger.warn({ err }, 'looking for [blitz] milestone markers failed; tried again next tick'),
      );
    }
    await sweepLostRunners(lostRunners, runnerClock.now()).catch((err: unknown) =>
      logger.warn({ err }, 'looking for lost runners failed; tried again next tick'),
    );
    await orchestrator.tick();
  };

  const tickSeconds = o.tickSeconds ?? 60;
  // While the store is unavailable the ticks back off with it (store-health.ts); a tick that reached it
  // keeps the live runs, the ones an outage notice names (the store cannot be asked then).
  const storeTick = async () => {
    const r = await health.attempt(async () => {
      await queueDispatch.cronTick(tick, tickSeconds);
      outages.remember(await runs.listLiveRuns());
    });
    if (!r.ran) logger.debug('tick skipped: the store is unavailable, backing off');
  };

  let server: ReturnType<typeof serveHttp> | undefined;
  let ticks: { stop: () => void }[] = [];
  let stopping: Promise<void> | undefined;
  return {
    app,
    metrics,
    orchestrator,
    runEvents,
    forgeBudget: budget,
    recover: (opts) => recovery.recover(opts),
    async start() {
      await runner.reattach();
      if (o.listener) {
        server = o.listener.server;
        o.listener.handOver(app.fetch);
      } else {
        server = serveHttp({ fetch: app.fetch, port: env.PORT, ...(env.HOST ? { hostname: env.HOST } : {}) });
        const opening = server;
        await new Promise<void>((resolve) => opening.once('listening', resolve));
      }
      const listening = server;
      health.start();
      await health.attempt(async () => outages.remember(await runs.listLiveRuns()));
      // A spool a previous process left (it stopped while the store was down) goes in first, in order.
      await spooled.replay();
      await resumeUnprocessed(intake);
      queueDispatch.start();
      // Once listening: a redelivery GitHub is asked for comes back to this port.
      recovering = recovery
        .recover()
        .catch((err: unknown) => logger.error({ err }, 'recovery at start failed'));
      ticks = [
        startDeliveryRetry(intake),
        // Supervision reads the ledger: it backs off with the store too.
        startSupervision(
          { tick: (opts) => health.attempt(() => runner.tick(opts)).then(() => undefined) },
          {
            stallCheckSeconds: config.runner.stallCheckSeconds,
            clock,
            ...(o.supervisionSeconds ? { everySeconds: o.supervisionSeconds } : {}),
          },
        ),
        // One replica runs each slot's tick (a singleton job on the shared queue).
        (o.cron ?? startBlitzCron)({ tick: storeTick }, { everySeconds: tickSeconds, logger }),
      ];
      return { port: (listening.address() as AddressInfo).port };
    },
    stop() {
      stopping ??= (async () => {
        const listening = server;
        if (listening) await new Promise<void>((resolve) => listening.close(() => resolve()));
        spooled.stop();
        health.stop();
        for (const t of ticks) t.stop();
        runner.stopWatching();
        await recovering;
        await queue.drain();
        await queueDispatch.stop();
        await orchestrator.close();
        await runners.close();
        await runs.close();
        await store.close();
      })();
      return stopping;
    },
  };
};
