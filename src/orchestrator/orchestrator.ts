// createOrchestrator: the blitz run loop over the ports. Intents (stored by intake) start runs;
// forge events, runner events and cron ticks only say "look at run X again"; reconcileRun does the
// rest. Two reconciles of one run never overlap (a per-run serialiser in this process, the store's run
// lock across replicas); an intent handler's change to a run takes the same two (underRunLock).
// createOrchestrator only wires: intent-router.ts routes intents, run-dashboards.ts edits dashboards.
import { createTrustCheck } from '../commands/trust-check.ts';
import { renderDashboard } from '../dashboard/render.ts';
import type { DashboardInput } from '../dashboard/types.ts';
import type { ForgeEvent } from '../intake/events.ts';
import { createKeyedRunner, type KeyedRunner } from '../keyed-runner.ts';
import { fleetTouchesRepo } from '../plan/fleet-progress.ts';
import type { RunnerEvent } from '../runner/types.ts';
import { createBudgetProbe } from '../runs/budget-probe.ts';
import { forgeOfRun, type OrchestratorDeps } from '../runs/context.ts';
import type { Forges, Log, Records, RunListeners, StoreHealth } from '../runs/ports.ts';
import { createKeptPrReads, type KeptPrReads } from '../ship/pr-reads-kept.ts';
import { runLogger } from '../status/log-context.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';
import { wakeInstallation } from './installation-wake.ts';
import { createIntentRouter } from './intent-router.ts';
import type { PerformPorts } from './perform.ts';
import { reconcileRun, recordApproval } from './reconcile.ts';
import { createRunDashboards, type RunDashboards } from './run-dashboards.ts';
import { createEffects } from './run-effects.ts';
import type { RunKind, RunKindOf } from './run-kind.ts';
import type { IntentOutcome } from './start-run.ts';

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

/** `kinds`: the run kinds beside the blitz, registered by the composition root (compose/run-kinds.ts). */
export const createOrchestrator = (deps: OrchestratorDeps, kinds: readonly RunKindOf[]): Orchestrator => {
  const serial = createKeyedRunner(reconcileFailed(deps));
  const { background, track } = backgroundWork();
  let closed = false;
  const dashboards = createRunDashboards(deps);
  const changed = changeListener(deps);
  const reconcile = (runId: string): Promise<void> =>
    closed ? Promise.resolve() : serial.request(runId, () => timed(deps, runId, changed, reconcileOnce));
  const reconcileSoon = (runId: string): void => void reconcile(runId);
  const underRunLock = runLocked(serial, deps);
  const effects = createEffects(deps, {
    background: (fn) => track(fn()),
    reconcileSoon,
    flushDashboard: (runId) => dashboards.coalescer.flush(runId),
  });
  // One budget probe for every run kind (a fresh answer before a blitz wave, up to a minute old otherwise).
  const performDeps = { ...deps, effects, probe: createBudgetProbe(deps) };
  const trusted = createTrustCheck({ clock: deps.clock, logger: deps.logger });
  const runKinds = kinds.map((k) =>
    k(performDeps, { reconcileSoon, serialized: underRunLock, dashboards, trusted }),
  );
  // PR feedback reads kept across calls while a PR only waits; webhooks end them (pr-reads-kept.ts).
  const keptPrReads = createKeptPrReads(() => deps.clock.now().getTime());
  const reconcileOnce = runReconciler(performDeps, { trusted, dashboards, changed, runKinds, keptPrReads });
  const intents = createIntentRouter(deps, { reconcileSoon, serialized: underRunLock, dashboards, runKinds });
  const cronPace = createCronPace(deps);

  return {
    async handleIntent(intent) {
      const outcome = await intents.handle(intent);
      if (outcome !== 'not_mine') await deps.store.claimIntent(intent.id, outcome);
      return outcome;
    },
    async handleEvent(event) {
      if (closed) return;
      // An installation-wide event names no repository and changes no PR's feedback.
      if ('repo' in event) keptPrReads.observe(event);
      await handleForgeEvent(performDeps, event, reconcile);
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
      await intents.drain();
      for (const r of await deps.store.listLiveRuns()) if (cronPace(r)) await reconcile(r.id);
    },
    reconcileRun: reconcile,
    async idle() {
      for (let i = 0; i < 50; i++) {
        await intents.settled();
        await serial.idle();
        if (background.size === 0) break;
        await Promise.all([...background]);
      }
      // Edits in flight are waited for; a pending one keeps its slot (the interval), as in the running bot.
      await dashboards.coalescer.settle();
    },
    async close() {
      await serial.idle();
      await Promise.all([...background]);
      closed = true;
      for (const id of dashboards.coalescer.pendingRuns()) await dashboards.coalescer.flush(id);
    },
  };
};

/** Work after a pass (gates, worker events), tracked so idle() and close() wait for it. */
const backgroundWork = () => {
  const background = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    background.add(p);
    void p.finally(() => background.delete(p));
  };
  return { background, track };
};

/**
 * Where an intent handler changes a run (pause, resume, cancel, steering, fleet person commands):
 * alone in this process, after the pass queued before it, and under the run lock across replicas,
 * like a reconcile pass. Its writes go through run-writer, which checks the version it read.
 */
const runLocked =
  (serial: KeyedRunner, deps: Records) =>
  <T>(runId: string, fn: () => Promise<T>): Promise<T> =>
    serial.exclusive(runId, () => deps.store.withRunLock(runId, fn));

/** A reconcile that threw: a store outage is redone once the store is back (store-health.ts backs off). */
const reconcileFailed =
  (deps: Log & StoreHealth) =>
  (runId: string, err: unknown): void => {
    if (deps.storeHealth?.failed(err))
      deps.logger.warn({ runId, err }, 'reconcile stopped: the store is unavailable');
    else deps.logger.error({ runId, err }, 'reconcile failed');
  };

/** Tells the run's listeners it may have changed; a listener that throws is logged, never the run's fault. */
const changeListener =
  (deps: Log & RunListeners) =>
  (runId: string, view?: DashboardInput): void => {
    try {
      deps.onRunChanged?.(runId, view);
    } catch (err) {
      deps.logger.warn({ runId, err }, 'run change listener failed');
    }
  };

/** One reconcile, timed for `onReconciled`, and the listeners told after it whatever its end. */
const timed = async (
  deps: RunListeners,
  runId: string,
  changed: (runId: string) => void,
  reconcileOnce: (runId: string) => Promise<void>,
): Promise<void> => {
  const started = performance.now();
  try {
    await reconcileOnce(runId);
  } finally {
    deps.onReconciled?.(runId, performance.now() - started);
    changed(runId);
  }
};

/** One reconcile of a run under its lock: a registered kind's runs by the kind, a blitz by reconcileRun. */
const runReconciler = (
  deps: PerformPorts & StoreHealth,
  wiring: {
    trusted: ReturnType<typeof createTrustCheck>;
    dashboards: RunDashboards;
    changed: (runId: string, view?: DashboardInput) => void;
    runKinds: readonly RunKind[];
    keptPrReads: KeptPrReads;
  },
) => {
  const { trusted, dashboards, changed, runKinds, keptPrReads } = wiring;
  const hooks = {
    trusted,
    sweptRuns: new Set<string>(),
    keptPrReads,
    dashboard(runId: string, view: DashboardInput) {
      dashboards.coalescer.update(runId, renderDashboard(view));
      changed(runId, view);
    },
  };
  return async (runId: string): Promise<void> => {
    const run = await deps.store.getRun(runId);
    // Every line a pass logs carries the run id and repository (status/log-context.ts).
    const runDeps = run ? { ...deps, logger: runLogger(deps.logger, run) } : deps;
    // One reconcile per run across replicas too (an advisory lock on Postgres).
    return deps.store.withRunLock(runId, async () => {
      const kind = runKinds.find((k) => k.kind === run?.kind);
      return kind ? kind.reconcile(runDeps, runId) : reconcileRun(runDeps, hooks, runId);
    });
  };
};

/** Whether this cron tick looks at the run: close to the forge's rate limit, every n-th tick only (events still do). */
const createCronPace = (deps: Forges) => {
  /** Cron ticks a run sat out while its forge pace asks for a longer interval. */
  const skipped = new Map<string, number>();
  return (r: RunRecord): boolean => {
    const every = Math.max(1, Math.ceil(deps.forgePace?.(r).intervalFactor ?? 1));
    const n = (skipped.get(r.id) ?? 0) + 1;
    if (n < every) {
      skipped.set(r.id, n);
      return false;
    }
    skipped.delete(r.id);
    return true;
  };
};

/** A normalised forge event: the forge's kept reads learn of it, an approval is recorded, every live run of the repo looks again. */
const handleForgeEvent = async (
  deps: Records & Forges & Log,
  event: ForgeEvent,
  reconcile: (runId: string) => Promise<void>,
): Promise<void> => {
  if (event.kind === 'installation-permissions-accepted') return wakeInstallation(deps, event, reconcile);
  // What the forge adapter keeps (the milestone snapshot) learns of the change first (forges/kept-reads.ts).
  await forgeOfRun(deps, event, event.repo).then(
    (forge) => forge.observeEvent?.(event),
    (err: unknown) => deps.logger.debug({ err }, 'no forge for the event; kept reads age out instead'),
  );
  // Who added `blitz/approved` is only in the event: recorded before the runs look again.
  const unrecorded = await recordApproval(deps, event).then(
    () => undefined,
    (err: unknown) => ({ err }),
  );
  // Level-triggered: which run an event concerns is not worked out; every live run of the repo looks again.
  const repo = `${event.repo.owner}/${event.repo.name}`;
  // Heads only: which runs to ask needs no run's progress.
  const runs = (await deps.store.listLiveRunHeads()).filter(
    (r) =>
      r.forge === event.forge && (r.repo.toLowerCase() === repo.toLowerCase() || fleetTouchesRepo(r, repo)),
  );
  await Promise.all(runs.map((r) => reconcile(r.id)));
  // An approval not recorded (the permission lookup or the store failed) fails the delivery, which
  // is tried again with backoff, and shown as failed on the status page after its last try: the
  // label is neither lost nor taken for an unauthorised one.
  if (unrecorded) {
    deps.logger.warn({ err: unrecorded.err }, 'approval not recorded yet; the delivery is tried again');
    throw unrecorded.err;
  }
};
