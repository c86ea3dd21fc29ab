// A kind of run beside the blitz (a fleet, a plan run): its own intents and its own reconcile over the
// pass loop. The composition root registers the kinds (compose/run-kinds.ts) and createOrchestrator
// makes each with what it lends them, so the orchestrator imports no kind.
import type { Forge } from '../forges/types.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';
import type { PerformPorts } from './perform.ts';
import type { RunDashboards } from './run-dashboards.ts';
import type { CommandHooks, IntentOutcome } from './start-run.ts';

/** What the orchestrator lends a kind: its per-run serialiser, the dashboards, the author check. */
export interface RunKindHooks extends CommandHooks {
  dashboards: RunDashboards;
  /** Whether the author may write in the repo (or is the bot itself): the same check as a blitz's. */
  trusted(forge: Forge, repo: string, author: string): Promise<boolean>;
}

export interface RunKind {
  /** The `kind` of the runs it reconciles. */
  kind: RunRecord['kind'];
  /** Starts or steers one of its runs from an intent; `not_mine` for another kind's command. */
  handleIntent(intent: Intent): Promise<IntentOutcome>;
  /** One reconcile of one of its runs; the caller holds the run's lock, `deps` log with the run's id. */
  reconcile(deps: PerformPorts, runId: string): Promise<void>;
}

/** A kind as the composition root registers it, made once the orchestrator's hooks exist. */
export type RunKindOf = (deps: PerformPorts, hooks: RunKindHooks) => RunKind;
