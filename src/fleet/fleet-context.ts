// The fleet run kind's ports: the orchestrator's own deps plus the hooks it lends the fleet (the
// per-run serialiser, the scoreboard coalescer), and the per-pass context the
// fleet steps work from. Nothing here does IO.
import type { Pace } from '../forges/rate-budget.ts';
import type { Forge, RepoRef } from '../forges/types.ts';
import type { FleetOptions, FleetProgress } from '../plan/fleet-progress.ts';
import type { RunSnapshot } from '../plan/snapshot.ts';
import type { PlanIssue } from '../plan/types.ts';
import type { ReviewLegPorts } from '../review/review-leg.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { BudgetProbe } from '../runs/budget-probe.ts';
import type { Announcer, Clock, Forges, Log, Records, Reviewers, Settings, Workers } from '../runs/ports.ts';
import type { PrFacts } from '../ship/pr-facts.ts';
import type { RunIssueRecord, RunRecord } from '../store/run-store.ts';

export interface FleetHooks {
  reconcileSoon(runId: string): void;
  /** Runs a change to a run between its reconcile passes, never during one. */
  serialized<T>(runId: string, fn: () => Promise<T>): Promise<T>;
  /** Replaces the scoreboard text (coalesced; published by the orchestrator's dashboard coalescer). */
  scoreboard(runId: string, body: string): void;
  /** Publishes the scoreboard now (run start, run end). */
  flushScoreboard(runId: string): Promise<void>;
  /** Whether the author may write in the repo (or is the bot itself): the same check as blitz. */
  trusted(forge: Forge, repo: string, author: string): Promise<boolean>;
}

/** What the fleet run kind uses of the orchestrator's ports; each step takes its own part of it. */
export type FleetPorts = Records &
  Workers &
  Forges &
  Announcer &
  Clock &
  Log &
  Settings &
  Reviewers & {
    probe: BudgetProbe;
  };

/** Per-repository facts read once per pass. */
export interface RepoFacts {
  forge: Forge;
  repo: RepoRef;
  defaultBranch: string;
}

export interface FleetCtx {
  run: RunRecord;
  options: FleetOptions;
  fleet: FleetProgress;
  /** The forge of the run's own repository (where the scoreboard lives). */
  forge: Forge;
  repos: Map<string, RepoFacts>;
  /** Every ticket as the tracker shows it now (open or closed), by key. */
  tickets: Map<string, PlanIssue>;
  snap: RunSnapshot;
  rows: Map<string, RunIssueRecord>;
  attempts: AttemptRecord[];
  /** Fences for tickets of repos another live run works in: path and the other run's issue. */
  busyFences: Map<string, { path: string; ownerIssue: number }[]>;
  /** Tickets whose approval lapsed: edited since it was given (by naming or by `blitz/approved`). */
  lapsedApprovals: ReadonlySet<string>;
  /** What the PR feedback loop read this pass about each open ticket PR. */
  prFacts: ReadonlyMap<string, PrFacts>;
  /** How much the forge's rate budget asks the run to slow down this pass (run-pace.ts). */
  pace?: Pace;
}

/** The review leg's ports in a fleet: its Ollama host and diff bound come from `deps.fleet`. */
export const fleetReviewPorts = (deps: Log & Settings & Reviewers): ReviewLegPorts => ({
  config: deps.config,
  baseEnv: deps.baseEnv,
  logger: deps.logger,
  ollamaHost: deps.fleet?.ollamaHost,
  maxDiffBytes: deps.fleet?.maxDiffBytes,
});
