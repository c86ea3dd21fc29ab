// What nextActions needs to know about a run: plain data the orchestrator assembles from the
// tracker and the store on every reconcile. Nothing here is read from a clock or a process.

import type { ShipPolicy } from '../ship/decide.ts';
import type { AttemptRecord, ModelNotes, Override, Pick, ReviewPick, RosterEntry } from './routing.ts';
import type { RunIssueState } from './states.ts';
import type { ExternalBlocker, IssueKey, PlanIssue } from './types.ts';
import type { Budget } from './wave.ts';

export type RunKind = 'blitz' | 'fleet' | 'plan';

export interface RunOptions {
  maxSessions: number;
  dryRun: boolean;
  /** `--tool` / `--model` for this run. */
  override?: Override;
  /** `--deploy` / `--local` on the command; wins over the repo's policy. */
  shipOverride?: 'deploy' | 'local';
  /** The repo config's `ship.policy` (auto when unset). */
  shipPolicy?: ShipPolicy;
  /** plan-blitz: waves to run (default 1, seed 002). */
  maxWaves?: number;
  /** Consecutive failed builds before the run stops blocked (default 3). */
  maxBuildAttempts?: number;
  /** Failed attempts (unsolved / stalled) on one issue before it is held for a person (default 3). */
  maxAttemptsPerIssue?: number;
}

export interface IssueProgress {
  key: IssueKey;
  state: RunIssueState;
  /** Oldest first; the last one is the current one. */
  attempts: AttemptRecord[];
  branchPushed: boolean;
  pr?: { number: number; merged: boolean };
  reviewPosted: boolean;
  /** Fleet: a person said `/merge` on the PR. */
  mergeRequested?: boolean;
  /** False when the worker process is gone (e.g. lost across a restart) before it pushed. */
  workerAlive?: boolean;
  /** Failures count from this index of `attempts` on: a person's `/blitz retry` (default 0). */
  countFrom?: number;
  /** A person's `/blitz skip`: left out of the run (still open) until `/blitz retry`. */
  skipped?: boolean;
  /**
   * The PR feedback loop's answer for an open PR (src/ship/pr-gate.ts over its CI and people's
   * reviews): only `merge` lets it merge, and only at `head`, the commit the answer was given on.
   */
  prGate?: { kind: 'merge' | 'wait' | 'resume' | 'hold'; why: string; head?: string };
}

export interface BuildStatus {
  status: 'none' | 'running' | 'passed' | 'failed';
  /** The merged issues the latest build ran over. */
  covers: IssueKey[];
  /** Consecutive failed builds. */
  failures: number;
  /** The merge the orchestrator found responsible for the latest failure, if it could tell. */
  responsible?: IssueKey;
}

export type StepStatus = 'none' | 'running' | 'passed' | 'failed';

export interface PlanWaveTally {
  approved: number;
  executionReady: number;
  closed: number;
}

export interface RunSnapshot {
  kind: RunKind;
  options: RunOptions;
  milestoneTitle: string;
  milestoneDescription: string;
  /** The repo config's deploy argv; absent when nothing is configured. */
  deployCommand?: readonly string[];
  /** Paths changed on the integration branch against the default branch (destructive migrations veto a deploy). */
  changedFiles: string[];
  issues: PlanIssue[];
  external: ExternalBlocker[];
  progress: IssueProgress[];
  budget: Budget;
  machine: { limit: number; contended: boolean };
  build: BuildStatus;
  smoke: StepStatus;
  ship: StepStatus;
  roster: RosterEntry[];
  notes?: ModelNotes;
  /** plan-blitz: waves landed so far and the tally of the last one. */
  waves?: { completed: number; last?: PlanWaveTally };
  /** Fleet: repos with another session active right now; their tickets go last (seed 004). */
  busyRepos?: string[];
  /** A hard blocker the orchestrator met (missing credentials, …), in words. */
  hardBlocker?: string;
}

export type StopState = 'done' | 'blocked' | 'paused';

export type Action =
  | { type: 'report_cycle'; members: IssueKey[] }
  | { type: 'report_unknown_blocker'; blocker: IssueKey; namedBy: IssueKey[] }
  | { type: 'post_plan'; wave: IssueKey[]; explanations: string[] }
  | {
      type: 'dispatch';
      issue: IssueKey;
      attempt: number;
      worker: Pick;
      fenceOff: { path: string; owner: IssueKey }[];
    }
  | { type: 'resume'; issue: IssueKey; entry: string }
  | { type: 'open_pr'; issue: IssueKey }
  | { type: 'review'; issue: IssueKey; pr: number; reviewer: ReviewPick }
  | { type: 'merge'; issue: IssueKey; pr: number; head?: string }
  /** Act on the PR feedback gate's answer: resume with feedback, hold, answer threads, report the check. */
  | { type: 'pr_feedback'; issue: IssueKey; pr: number }
  | { type: 'run_build'; covers: IssueKey[] }
  | { type: 'bounce'; issue: IssueKey; reason: string }
  | { type: 'close_issue'; issue: IssueKey }
  | { type: 'close_epic'; issue: IssueKey }
  | { type: 'run_smoke' }
  | { type: 'ship'; path: 'deploy' | 'local'; reason: string }
  | { type: 'notify'; level: 'info' | 'ready' | 'blocked'; title: string; message: string }
  | { type: 'stop'; state: StopState; reason: string };

export type ActionType = Action['type'];
