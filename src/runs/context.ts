// What createOrchestrator is given (the sum of the role ports, ports.ts) and the per-reconcile context
// every step works from. Nothing here does IO itself; it only names what the steps may use.
import type { RepoConfig } from '../config/repo-config.ts';
import type { Forge, ProgressReport, RepoRef } from '../forges/types.ts';
import type { ProbeAnswer } from '../plan/budget.ts';
import type { RunSnapshot } from '../plan/snapshot.ts';
import type { IssueKey, PlanIssue } from '../plan/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { PrFacts } from '../ship/pr-facts.ts';
import type { RunIssueRecord, RunRecord } from '../store/run-store.ts';
import type {
  Announcer,
  Clock,
  DashboardPacing,
  Forges,
  Log,
  Records,
  Reviewers,
  RunListeners,
  Settings,
  StoreHealth,
  Workers,
} from './ports.ts';

/** What createOrchestrator is given: the sum of the role ports, and what only its wiring uses. */
export interface OrchestratorDeps
  extends Records,
    Workers,
    Forges,
    Announcer,
    Clock,
    Log,
    Settings,
    Reviewers,
    StoreHealth,
    RunListeners,
    DashboardPacing {
  /**
   * Asks the provider budget probe once (seed 000 §1.5); composed as `runBudgetProbe` over the config's
   * `budget:` argv (absent: `{ status: 'absent' }`). budget-probe.ts keeps and records its answers.
   */
  budgetProbe: () => Promise<ProbeAnswer>;
}

/** The forge connection a run uses for one repository (its own, or another a fleet works in). */
export const forgeOfRun = (
  deps: Forges,
  run: Pick<RunRecord, 'forge' | 'installationId'>,
  repo: RepoRef,
): Promise<Forge> =>
  deps.forges({
    forge: run.forge,
    repo,
    ...(run.installationId ? { installationId: run.installationId } : {}),
  });

/** What one reconcileRun call keeps across its passes. */
export interface ReconcileCall {
  /** The budget probe's answer asked this call (seed 000: before each wave); absent until asked. */
  budget?: ProbeAnswer;
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
   * The merge this pass performs after the issue's PR feedback (plan/merge-after-feedback.ts), on a
   * forge whose merge can carry the bot's report: the feedback leaves its completing report here, and
   * the merge sends it with itself.
   */
  mergeNext?: { issue: IssueKey; head: string; report?: ProgressReport };
  /** The pass's closes planned back to back, sent together (close-issue.ts `batchedClose`). */
  closes?: CloseBatch;
}

/**
 * A pass's closes sent together where the forge can (`Forge.closeIssues`; GitHub: one request): `runs`
 * gives each issue the closes planned back to back with it (consecutive `close_issue` actions), `sent`
 * each issue's answer once its run went out.
 */
export interface CloseBatch {
  runs: ReadonlyMap<IssueKey, readonly IssueKey[]>;
  sent: Map<IssueKey, Promise<void>>;
}
