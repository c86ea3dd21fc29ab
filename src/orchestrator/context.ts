// The orchestrator's ports (what createOrchestrator is given) and the per-reconcile context every
// step works from. Nothing here does IO itself; it only names what the steps may use.
import type { BlitzConfig } from '../config/blitz-config.ts';
import type { RepoConfig } from '../config/repo-config.ts';
import type { TimerPort } from '../dashboard/coalescer.ts';
import type { DashboardInput } from '../dashboard/types.ts';
import type { Pace } from '../forges/rate-budget.ts';
import {
  type Forge,
  type ForgeKind,
  type IssueRef,
  type ProgressReport,
  type RepoRef,
  repoRefOf,
} from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { RunOptions, RunSnapshot } from '../plan/snapshot.ts';
import type { IssueKey, PlanIssue } from '../plan/types.ts';
import type { Dispatcher } from '../queue/dispatcher.ts';
import type { RunnerPort } from '../runner/runner-port.ts';
import type { AttemptLedger, AttemptRecord } from '../runner/types.ts';
import type { Notifier } from '../ship/notice.ts';
import type { PrFacts } from '../ship/pr-facts.ts';
import type { RunIssueRecord, RunRecord, RunStore } from '../store/run-store.ts';
import type { ProbeResult } from './budget-probe.ts';
import type { ReviewLeg } from './review-leg.ts';

/** The forge connection for a repository (on GitHub: the App installation that covers it). */
export type RunForgeResolver = (target: {
  forge: ForgeKind;
  repo: RepoRef;
  installationId?: number;
}) => Promise<Forge>;

export type { RunnerPort } from '../runner/runner-port.ts';
export type { ReviewLeg } from './review-leg.ts';

export interface OrchestratorDeps {
  store: RunStore;
  ledger: AttemptLedger;
  forges: RunForgeResolver;
  runner: RunnerPort;
  /** The operator's blitz.config.yml. */
  config: BlitzConfig;
  clock: { now(): Date };
  logger: Logger;
  notifiers?: readonly Notifier[];
  /** Environment for the budget probe, builds and smoke checks (PATH, HOME…), from config/. */
  baseEnv: Record<string, string>;
  /** The URL workers clone from; default the forge's plain clone URL. */
  cloneUrl?: (forge: Forge, repo: RepoRef) => Promise<string>;
  /** The review module; absent, the dashboard says review legs are not available. */
  review?: ReviewLeg;
  /** Fleet runs' review legs: the Ollama host (`OLLAMA_HOST`, from config/) and the diff bound. */
  fleet?: { ollamaHost?: string; maxDiffBytes?: number };
  /**
   * Asks the provider budget probe once (seed 000 §1.5); composed as `runBudgetProbe` over the config's
   * `budget:` argv (absent: `{ status: 'absent' }`). budget-probe.ts keeps and records its answers.
   */
  budgetProbe: () => Promise<ProbeResult>;
  /** Machine contention; default the runner's own sample. */
  machine?: () => { limit: number; contended: boolean };
  dashboard?: { intervalMs?: number; timers?: TimerPort; clock?: { now(): number } };
  newId?: () => string;
  /** Told whenever a run may have changed (after each reconcile, on worker events), with the
   *  dashboard input when one was just built: the status pages' live updates (status/run-events). */
  onRunChanged?: (runId: string, dashboard?: DashboardInput) => void;
  /** The job queue's dispatcher (dispatcher.ts): every attempt of every run kind goes through it. */
  dispatcher: Dispatcher;
  /**
   * How much the run's forge budget asks it to slow down (forges/rate-budget.ts pace): fewer sessions,
   * cron reconciles further apart, and the reason on the dashboard. Absent: full speed.
   */
  forgePace?: (run: RunRecord) => Pace;
  /** Told how long each reconcile of a run took (ms, wall clock, its passes together): `/metrics`, the scale bench. */
  onReconciled?: (runId: string, ms: number) => void;
  /** The line a dashboard shows after a store outage (compose/store-outage.ts); absent: none. */
  storeOutage?: () => string | undefined;
  /** The bot's view of its store: a pass that failed for the store's fault is an outage, not a bug. */
  storeHealth?: { failed(err: unknown): boolean };
}

/** The part of the ports a step uses: each step takes only what it names (`Ports<'store' | 'logger'>`). */
export type Ports<K extends keyof OrchestratorDeps> = Pick<OrchestratorDeps, K>;

/** The forge connection a run uses for one repository (its own, or another a fleet works in). */
export const forgeOfRun = (
  deps: Ports<'forges'>,
  run: Pick<RunRecord, 'forge' | 'installationId'>,
  repo: RepoRef,
): Promise<Forge> =>
  deps.forges({
    forge: run.forge,
    repo,
    ...(run.installationId ? { installationId: run.installationId } : {}),
  });

export interface RunOptionsStored extends RunOptions {
  /** Who started the run (for the dashboard and notices). */
  sender: string;
}

/** What one reconcileRun call keeps across its passes. */
export interface ReconcileCall {
  /** The budget probe's answer asked this call (seed 000: before each wave); absent until asked. */
  budget?: ProbeResult;
}

/** Everything one reconcile pass of one run has read. */
export interface RunCtx {
  /** What this reconcileRun call keeps across passes (the executor's `probe_budget` writes it). */
  call: ReconcileCall;
  run: RunRecord;
  forge: Forge;
  repo: RepoRef;
  repoConfig: RepoConfig;
  defaultBranch: string;
  snap: RunSnapshot;
  rows: Map<string, RunIssueRecord>;
  attempts: AttemptRecord[];
  /** Open issues of the milestone, by key. */
  issues: Map<string, PlanIssue>;
  /** Issues whose `blitz/approved` lapsed: edited since a writer approved them. */
  lapsedApprovals: ReadonlySet<string>;
  /** What the PR feedback loop read this pass about each open worker PR (pr-feedback-step.ts). */
  prFacts?: ReadonlyMap<string, PrFacts>;
  /**
   * The merge this pass performs after the issue's PR feedback (perform.ts `mergeAfterFeedback`), on a
   * forge whose merge can carry the bot's report: the feedback leaves its completing report here, and
   * the merge sends it with itself.
   */
  mergeNext?: { issue: IssueKey; head: string; report?: ProgressReport };
}

export { repoRefOf };

/** The issue an `owner/name#n` key names. */
export const refOf = (key: IssueKey): IssueRef => {
  const at = key.lastIndexOf('#');
  return { repo: repoRefOf(key.slice(0, at)), number: Number(key.slice(at + 1)) };
};
