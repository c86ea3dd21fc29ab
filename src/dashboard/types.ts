// Plain input of the dashboard renderer: the orchestrator maps its run, issues, probe and notify
// results into these, so rendering needs no store, forge or clock.
import type { GateCheck } from '../plan/gate-checks.ts';
import { runIssueStates } from '../plan/states.ts';

// The dashboard draws exactly the planner's run-issue states (one list, in src/plan/states.ts).
export const dashboardIssueStates = runIssueStates;

export type DashboardIssueState = (typeof dashboardIssueStates)[number];

export interface DashboardIssue {
  number: number;
  title: string;
  state: DashboardIssueState;
  /** Epics are tracked, never dispatched. */
  epic?: boolean;
  /** A person skipped it (`/blitz skip`): left out of this run, still open on the tracker. */
  skipped?: true;
  /** Held until a person looks (stalled past its nudges, attempts spent, a per-issue cap reached). */
  needsPerson?: true;
  /** Roster entry of the latest attempt, and its model. */
  rosterEntry?: string;
  model?: string;
  prNumber?: number;
  prUrl?: string;
  attempts: number;
  /** Tokens over all attempts, when the tool reported them. */
  tokens?: number;
  /** What those attempts cost (plan/cost.ts `formatCost`: `$0.42`, `unknown price`), beside the tokens. */
  cost?: string;
  /** Numbers of the issues in this run that block this one (edges of the flowchart). */
  blockedBy: number[];
  /** `/blitz tell` messages not delivered yet: they wait for the session's next resume. */
  messagesWaiting?: number;
  /** Merge conflicts sent back to its session this pass, of the tries allowed (plan/merge-conflict.ts). */
  conflictTries?: number;
  /** Its latest attempt stopped because the tool refused commands: the allowlist rules to add. */
  refused?: string[];
}

export type DashboardBlocker =
  | { kind: 'cycle'; issues: number[] }
  | {
      kind: 'unknown_blocker';
      issue: number /** As the forge names it, e.g. `acme/api#99`. */;
      blocker: string;
    };

export type DashboardBudget =
  | { status: 'ok'; recommendedMaxSessions: number; preferMedium: boolean; park: boolean }
  | { status: 'absent' }
  | { status: 'failed'; error: string };

export interface DashboardInput {
  runId: string;
  milestone: string;
  /** `running`, `paused`, `gating`, `done`, `blocked`… shown in the heading. */
  runState: string;
  wave: number;
  integrationBranch?: string;
  issues: DashboardIssue[];
  /** What every attempt of the run cost (`$1.20`, `$1.20 + unknown price`); absent before any attempt. */
  cost?: string;
  /** Issues by people without write permission, held until someone adds `blitz/approved`. */
  /** `lapsed`: it was approved, then edited; the approval no longer covers its text. */
  awaitingApproval: { number: number; title: string; lapsed?: true }[];
  blockers: DashboardBlocker[];
  budget?: DashboardBudget;
  notifyFailures: { target: string; error: string }[];
  /** Unmet readiness conditions, once the run reaches the gate. */
  readinessUnmet?: string[];
  /** Blitz: what the gate ran and on which commit (plan/gate-checks.ts), shown from the first build on. */
  checks?: { build: GateCheck; smoke: GateCheck };
  /** `url` answered (a preview, a health check); `unchecked`: the deploy's address nothing polled; `pr`: the milestone PR. */
  ship?: { path: 'deploy' | 'local'; url?: string; unchecked?: string; pr?: string; reasons: string[] };
  /** Why the run goes slower than it could: the forge's rate limit is close (forges/rate-budget.ts). */
  forgePace?: string;
  /** The bot's store was unavailable a while ago (compose/store-outage.ts): when, and for how long. */
  storeOutage?: string;
  /** One sentence each: an issue that spent 80 % of a per-issue cap (plan/notices.ts). */
  warnings?: string[];
  /**
   * Each author roster entry and its state (healthy, parked, probing: plan/entry-park.ts), shown when
   * the run can fail over between entries or one is parked.
   */
  entries?: { name: string; state: string }[];
}
