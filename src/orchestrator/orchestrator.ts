// createOrchestrator: the blitz run loop over the ports. Intents (stored by intake) start runs;
// forge events, runner events and cron ticks only say "look at run X again"; reconcileRun does the
// rest. Two reconciles of one run never overlap (a per-run serialiser in this process, the store's run
// lock across replicas); an intent handler's change to a run takes the same two (underRunLock).
import { commandSchema } from '../commands/schema.ts';
import { createTrustCheck } from '../commands/trust-check.ts';
import { createDashboardCoalescer } from '../dashboard/coalescer.ts';
import { initialPlanDashboard } from '../dashboard/plan-dashboard.ts';
import { dashboardMarkerText, renderDashboard } from '../dashboard/render.ts';
import type { DashboardInput } from '../dashboard/types.ts';
import type { Forge } from '../forges/types.ts';
import type { ForgeEvent } from '../intake/events.ts';
import { createKeyedRunner } from '../keyed-runner.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import type { RunnerEvent } from '../runner/types.ts';
import { runLogger } from '../status/log-context.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';
import { createBudgetProbe } from './budget-probe.ts';
import { forgeOfRun, type OrchestratorDeps, repoRefOf } from './context.ts';
import { createFleet, fleetTouchesRepo } from './fleet/index.ts';
import { reconcilePlanRun } from './plan-blitz/reconcile-plan-run.ts';
import { createPlanIntentHandler } from './plan-blitz/start-plan-run.ts';
import { reconcileRun, recordApproval } from './reconcile.ts';
import { createReviewSteering } from './review-steer.ts';
import { createEffects } from './run-effects.ts';
import { setDashboardComment } from './run-writer.ts';
import { createIntentHandler, type IntentOutcome } from './start-run.ts';
import { createSteerHandler } from './steer-run.ts';
import { handleTell } from './tell.ts';

export interface Orchestrator {
  /** Starts or steers a run from one stored intent, and marks the intent taken. */
  handleIntent(intent: Intent): Promise<IntentOutcome>;
  /** A normalised forge event: reconciles the live runs of its repository. */
  handleEvent(event: ForgeEvent): Promise<void>;
  /** The runner's event sink: a finished or stuck worker reconciles its run. */
  onRunnerEvent(event: RunnerEvent): void;
  /** Cron: takes queued intents, then reconciles every live run. */
  tick(): Promise<void>;
  reconcileRun(runId: string): Promise<void>;
  /** Resolves when no reconcile, background gate or dashboard edit is in flight (a coalesced edit waits for its slot). */
  idle(): Promise<void>;
  /** Publishes pending dashboards and stops taking work (workers keep running detached). */
  close(): Promise<void>;
}

export const createOrchestrator = (deps: OrchestratorDeps): Orchestrator => {
  const log = deps.logger;
  const serial = createKeyedRunner((runId, err) => {
    // The store went away mid-pass: the pass is redone once it is back (store-health.ts backs off).
    if (deps.storeHealth?.failed(err))
      log.warn({ runId, err }, 'reconcile stopped: the store is unavailable');
    else log.error({ runId, err }, 'reconcile failed');
  });
  const background = new Set<Promise<void>>();
  let closed = false;
  /** Cron ticks a run sat out while its forge pace asks for a longer interval. */
  const skipped = new Map<string, number>();

  const track = (p: Promise<void>) => {
    background.add(p);
    void p.finally(() => background.delete(p));
  };

  // One writer of a run's dashboard at a time, across replicas too: two replicas that both found no
  // dashboard comment would each create one. Its own lock key, so a pass holding the run lock never
  // waits on an edit (nor an edit on a pass).
  const dashboardLock = <T>(runId: string, fn: () => Promise<T>): Promise<T> =>
    deps.store.withRunLock(`dashboard:${runId}`, fn);
  /** Posts a new run's dashboard on its trigger issue at once; returns the comment's id. */
  const lockedFirstDashboard =
    (body: (run: RunRecord) => string) =>
    (run: RunRecord, forge: Forge): Promise<number | undefined> =>
      dashboardLock(run.id, async () => {
        if (run.triggerIssue === undefined) return undefined;
        const ref = { repo: repoRefOf(run.repo), number: run.triggerIssue };
        // The run was created just now: no comment carries its marker yet (a lost answer is found
        // by the next edit, which looks).
        return (await forge.upsertStickyComment(ref, dashboardMarkerText(run.id), body(run), { fresh: true }))
          .id;
      });
  const publishDashboard = (runId: string, body: string): Promise<void> =>
    dashboardLock(runId, async () => {
      const run = await deps.store.getRun(runId);
      if (!run || run.triggerIssue === undefined) return;
      const repo = repoRefOf(run.repo);
      const forge = await forgeOfRun(deps, run, repo);
      const c = await forge.upsertStickyComment(
        { repo, number: run.triggerIssue },
        dashboardMarkerText(run.id),
        body,
      );
      if (run.dashboardCommentId !== c.id) await setDashboardComment(deps.store, run.id, c.id);
    });
  const coalescer = createDashboardCoalescer({
    publish: publishDashboard,
    ...(deps.dashboard?.intervalMs !== undefined ? { intervalMs: deps.dashboard.intervalMs } : {}),
    ...(deps.dashboard?.timers ? { timers: deps.dashboard.timers } : {}),
    ...(deps.dashboard?.clock ? { clock: deps.dashboard.clock } : {}),
    onError: (runId, err) => log.warn({ runId, err }, 'dashboard edit failed; retried at the next slot'),
  });

  const changed = (runId: string, view?: DashboardInput): void => {
    try {
      deps.onRunChanged?.(runId, view);
    } catch (err) {
      log.warn({ runId, err }, 'run change listener failed');
    }
  };

  const reconcile = (runId: string): Promise<void> => {
    if (closed) return Promise.resolve();
    return serial.request(runId, async () => {
      const started = performance.now();
      try {
        await reconcileOnce(runId);
      } finally {
        deps.onReconciled?.(runId, performance.now() - started);
        changed(runId);
      }
    });
  };
  const reconcileOnce = async (runId: string): Promise<void> => {
    // Plan and fleet runs have their own loops; a blitz goes through reconcileRun.
    const run = await deps.store.getRun(runId);
    // Every line a pass logs carries the run id and repository (status/log-context.ts).
    const runDeps = run ? { ...performDeps, logger: runLogger(log, run) } : performDeps;
    // One reconcile per run across replicas too (an advisory lock on Postgres).
    return deps.store.withRunLock(runId, async () => {
      if (run?.kind === 'plan') return reconcilePlanRun(runDeps, planHooks, runId);
      if (run?.kind === 'fleet') return fleet.reconcile(runId);
      return reconcileRun(runDeps, hooks, runId);
    });
  };
  const reconcileSoon = (runId: string): void => void reconcile(runId);
  /**
   * Where an intent handler changes a run (pause, resume, cancel, steering, fleet person commands):
   * alone in this process, after the pass queued before it, and under the run lock across replicas,
   * like a reconcile pass. Its writes go through run-writer, which checks the version it read.
   */
  const underRunLock = <T>(runId: string, fn: () => Promise<T>): Promise<T> =>
    serial.exclusive(runId, () => deps.store.withRunLock(runId, fn));

  const effects = createEffects(deps, {
    background: (fn) => track(fn()),
    reconcileSoon,
    flushDashboard: (runId) => coalescer.flush(runId),
  });
  // One budget probe for every run kind (a fresh answer before a blitz wave, up to a minute old otherwise).
  const probe = createBudgetProbe(deps);
  const performDeps = { ...deps, effects, probe };

  const hooks = {
    trusted: createTrustCheck({ clock: deps.clock, logger: log }),
    sweptRuns: new Set<string>(),
    dashboard(runId: string, view: DashboardInput) {
      coalescer.update(runId, renderDashboard(view));
      changed(runId, view);
    },
  };

  const planHooks = {
    trusted: hooks.trusted,
    dashboardBody: (runId: string, body: string) => coalescer.update(runId, body),
  };
  const handlePlanIntent = createPlanIntentHandler(deps, {
    reconcileSoon,
    serialized: underRunLock,
    postDashboard: lockedFirstDashboard(initialPlanDashboard),
  });

  const handleBlitzIntent = createIntentHandler(deps, {
    reconcileSoon,
    postDashboard: lockedFirstDashboard((run) =>
      renderDashboard({
        runId: run.id,
        milestone: run.milestoneTitle,
        runState: run.state,
        wave: 1,
        integrationBranch: run.integrationBranch,
        issues: [],
        awaitingApproval: [],
        blockers: [],
        notifyFailures: [],
      }),
    ),
    serialized: underRunLock,
    async cancelWorkers(run: RunRecord) {
      const open = (await deps.ledger.listByRun(run.id)).filter((a) => a.outcome === undefined);
      // A remote runner's attempt is cancelled on its host, through that host's queue.
      for (const a of open) await onAttemptHost(deps, { kind: 'cancel', attemptId: a.id }, [a]);
      return open.length;
    },
  });

  const handleReviewSteer = createReviewSteering(deps, {
    reconcileSoon,
    serialized: underRunLock,
  });

  const fleet = createFleet(performDeps, {
    reconcileSoon,
    serialized: underRunLock,
    scoreboard: (runId, body) => coalescer.update(runId, body),
    flushScoreboard: (runId) => coalescer.flush(runId),
    trusted: hooks.trusted,
  });

  const handleSteer = createSteerHandler(deps, {
    reconcileSoon,
    serialized: underRunLock,
  });

  const handleIntentOnce = async (intent: Intent): Promise<IntentOutcome> => {
    const outcome = await handleBlitzIntent(intent);
    if (outcome !== 'not_mine') return outcome;
    const cmd = commandSchema.safeParse(intent.command);
    if (cmd.success && cmd.data.name === 'plan-blitz') return handlePlanIntent(intent, cmd.data);
    // `/blitz retry | skip | unhold #n` (writers only, checked at intake) steer one issue of the live run.
    if (cmd.success && cmd.data.name === 'blitz-issue') return handleSteer(intent, cmd.data);
    if (cmd.success && cmd.data.name === 'blitz-review') return handleReviewSteer(intent, cmd.data);
    // `/blitz tell #n`: kept for the worker's next resume by the PR feedback loop.
    if (cmd.success && cmd.data.name === 'blitz-tell')
      return handleTell(deps, { reconcileSoon }, intent, cmd.data);
    // Fleet commands: /ticket-fleet, /merge, /review.
    return fleet.handleIntent(intent);
  };

  // Drains run one after another. The chain never holds a rejection: a drain that failed (the store
  // went away under listQueuedIntents) fails its own caller only, and the next drain reads the store
  // again instead of handing every later tick the same stale error.
  let intentsBusy: Promise<void> = Promise.resolve();
  const drainIntents = (): Promise<void> => {
    const drain = intentsBusy.then(async () => {
      for (const intent of await deps.store.listQueuedIntents()) {
        try {
          const outcome = await handleIntentOnce(intent);
          if (outcome !== 'not_mine') await deps.store.claimIntent(intent.id, outcome);
        } catch (err) {
          log.error({ intent: intent.id, err }, 'intent failed; it stays queued for the next tick');
        }
      }
    });
    intentsBusy = drain.catch(() => {});
    return drain;
  };

  const runsOfRepo = async (forge: string, repo: string): Promise<RunRecord[]> =>
    (await deps.store.listLiveRuns()).filter(
      (r) => r.forge === forge && (r.repo.toLowerCase() === repo.toLowerCase() || fleetTouchesRepo(r, repo)),
    );

  return {
    async handleIntent(intent) {
      const outcome = await handleIntentOnce(intent);
      if (outcome !== 'not_mine') await deps.store.claimIntent(intent.id, outcome);
      return outcome;
    },
    async handleEvent(event) {
      if (closed) return;
      // What the forge adapter keeps (the milestone snapshot) learns of the change first (forges/kept-reads.ts).
      await forgeOfRun(deps, event, event.repo).then(
        (forge) => forge.observeEvent?.(event),
        (err: unknown) => log.debug({ err }, 'no forge for the event; kept reads age out instead'),
      );
      // Who added `blitz/approved` is only in the event: recorded before the runs look again.
      const unrecorded = await recordApproval(performDeps, event).then(
        () => undefined,
        (err: unknown) => ({ err }),
      );
      // Level-triggered: which run an event concerns is not worked out; every live run of the repo looks again.
      const runs = await runsOfRepo(event.forge, `${event.repo.owner}/${event.repo.name}`);
      await Promise.all(runs.map((r) => reconcile(r.id)));
      // An approval not recorded (the permission lookup or the store failed) fails the delivery, which
      // is tried again with backoff, and shown as failed on the status page after its last try: the
      // label is neither lost nor taken for an unauthorised one.
      if (unrecorded) {
        log.warn({ err: unrecorded.err }, 'approval not recorded yet; the delivery is tried again');
        throw unrecorded.err;
      }
    },
    onRunnerEvent(event) {
      if (closed || !('attemptId' in event)) return;
      track(
        deps.ledger.get(event.attemptId).then((a) => {
          if (a) reconcileSoon(a.runId);
        }),
      );
    },
    async tick() {
      if (closed) return;
      await drainIntents();
      for (const r of await deps.store.listLiveRuns()) {
        // Close to the forge's rate limit, the cron looks at the run every n-th tick only (events still do).
        const every = Math.max(1, Math.ceil(deps.forgePace?.(r).intervalFactor ?? 1));
        const n = (skipped.get(r.id) ?? 0) + 1;
        if (n < every) {
          skipped.set(r.id, n);
          continue;
        }
        skipped.delete(r.id);
        await reconcile(r.id);
      }
    },
    reconcileRun: reconcile,
    async idle() {
      for (let i = 0; i < 50; i++) {
        await intentsBusy;
        await serial.idle();
        if (background.size === 0) break;
        await Promise.all([...background]);
      }
      // Edits in flight are waited for; a pending one keeps its slot (the interval), as in the running bot.
      await coalescer.settle();
    },
    async close() {
      await serial.idle();
      await Promise.all([...background]);
      closed = true;
      for (const id of coalescer.pendingRuns()) await coalescer.flush(id);
    },
  };
};
