// The role ports of every run step and run kind: small interfaces named for what they do. A step or
// handler is typed by the roles it uses (`Records & Log`), and createOrchestrator is given their sum
// (`OrchestratorDeps`, context.ts). Nothing here does IO itself; it only names what a step may use.
import type { BlitzConfig } from '../config/blitz-config.ts';
import type { TimerPort } from '../dashboard/coalescer.ts';
import type { DashboardInput } from '../dashboard/types.ts';
import type { Pace } from '../forges/rate-budget.ts';
import type { Forge, ForgeKind, RepoRef } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Dispatcher } from '../queue/dispatcher.ts';
import type { ReviewLeg } from '../review/review-leg.ts';
import type { RunnerPort } from '../runner/runner-port.ts';
import type { AttemptLedger } from '../runner/types.ts';
import type { Notifier } from '../ship/notice.ts';
import type { RunRecord, RunStore } from '../store/run-store.ts';

/** The forge connection for a repository (on GitHub: the App installation that covers it). */
export type RunForgeResolver = (target: {
  forge: ForgeKind;
  repo: RepoRef;
  installationId?: number;
}) => Promise<Forge>;

/** Where runs, their issue rows and the intents are kept, and the ids new runs get. */
export interface Records {
  store: RunStore;
  newId?: () => string;
}

/** The workers: the runner that runs them, the queue that sends their jobs, and their attempts. */
export interface Workers {
  runner: RunnerPort;
  /** The job queue's dispatcher (dispatcher.ts): every attempt of every run kind goes through it. */
  dispatcher: Dispatcher;
  ledger: AttemptLedger;
  /** The URL workers clone from; default the forge's plain clone URL. */
  cloneUrl?: (forge: Forge, repo: RepoRef) => Promise<string>;
  /** Machine contention; default the runner's own sample. */
  machine?: () => { limit: number; contended: boolean };
}

/** The forges a run talks to, and how much a run's forge budget asks it to slow down. */
export interface Forges {
  forges: RunForgeResolver;
  /**
   * How much the run's forge budget asks it to slow down (forges/rate-budget.ts pace): fewer sessions,
   * cron reconciles further apart, and the reason on the dashboard. Absent: full speed.
   */
  forgePace?: (run: RunRecord) => Pace;
}

/** Who is told of a run's notices besides its issue (the operator's notify targets). */
export interface Announcer {
  notifiers?: readonly Notifier[];
}

export interface Clock {
  clock: { now(): Date };
}

export interface Log {
  logger: Logger;
}

/** The operator's settings: blitz.config.yml, and the environment builds and checks run with. */
export interface Settings {
  /** The operator's blitz.config.yml. */
  config: BlitzConfig;
  /** Environment for the budget probe, builds and smoke checks (PATH, HOME…), from config/. */
  baseEnv: Record<string, string>;
}

/** The review legs: the review module, and the fleet's reviewer host and diff bound. */
export interface Reviewers {
  /** The review module; absent, the dashboard says review legs are not available. */
  review?: ReviewLeg;
  /** Fleet runs' review legs: the Ollama host (`OLLAMA_HOST`, from config/) and the diff bound. */
  fleet?: { ollamaHost?: string; maxDiffBytes?: number };
}

/** The bot's view of its store, for a pass that failed and for the dashboard's outage line. */
export interface StoreHealth {
  /** The line a dashboard shows after a store outage (compose/store-outage.ts); absent: none. */
  storeOutage?: () => string | undefined;
  /** A pass that failed for the store's fault is an outage, not a bug. */
  storeHealth?: { failed(err: unknown): boolean };
}

/** Told of runs as they change: the status pages' live updates and `/metrics`. */
export interface RunListeners {
  /** Told whenever a run may have changed (after each reconcile, on worker events), with the
   *  dashboard input when one was just built: the status pages' live updates (status/run-events). */
  onRunChanged?: (runId: string, dashboard?: DashboardInput) => void;
  /** Told how long each reconcile of a run took (ms, wall clock, its passes together): `/metrics`, the scale bench. */
  onReconciled?: (runId: string, ms: number) => void;
}

/** How often a run's dashboard comment may be edited, and the timers and clock that pace the edits. */
export interface DashboardPacing {
  dashboard?: { intervalMs?: number; timers?: TimerPort; clock?: { now(): number } };
}
