// What nextActions needs to know about a run: plain data the orchestrator assembles from the
// tracker and the store on every reconcile. Nothing here is read from a clock or a process.

import type { AppPermission } from '../forges/app-permission.ts';
import type { ShipPolicy } from '../ship/decide.ts';
import type { BaseChangeView, CheckBaseChange } from './base-change.ts';
import type { BlockCause } from './block-cause.ts';
import type { CloseFailures } from './close-failures.ts';
import type { EntryPark, EntryParks, EnvironmentFailureSeen } from './entry-park.ts';
import type { GateCause, StopCause } from './stop-cause.ts';

export type { EnvironmentFailureSeen } from './entry-park.ts';

import type { EnvironmentBackoff, RunPark } from './environment-park.ts';
import type { IssueCaps, IssueUsage } from './issue-caps.ts';
import type { MemberFacts, MemberOp, MemberRead } from './plan-member.ts';
import type { AttemptRecord, ModelNotes, Override, Pick, ReviewPick, RosterEntry } from './routing.ts';
import type { IntegrationReviewVerdict, RunIssueState, RunState } from './states.ts';
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
  /** `--require-checks` on the command: ship only what a configured check ran green on. */
  requireChecks?: boolean;
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
  /** Fleet: the PR has no review, and why in words (plan/fleet-progress.ts `reviewMissing`). */
  reviewMissing?: string;
  /** False when the worker process is gone (e.g. lost across a restart) before it pushed. */
  workerAlive?: boolean;
  /** Failures count from this index of `attempts` on: a person's `/blitz retry` (default 0). */
  countFrom?: number;
  /**
   * Passes since the person's last retry whose solved work was bounced (a refused merge, a red build):
   * they count towards the failures hold like failed attempts, so a merge that is refused every time
   * holds the issue for a person instead of dispatching it again and again.
   */
  bounces?: number;
  /** Times this pass's session was resumed to resolve a merge conflict (plan/merge-conflict.ts). */
  conflictResumes?: number;
  /** A person's `/blitz skip`: left out of the run (still open) until `/blitz retry`. */
  skipped?: boolean;
  /**
   * The PR feedback loop's answer for an open PR (src/ship/pr-gate.ts over its CI and people's
   * reviews): only `merge` lets it merge, and only at `head`, the commit the answer was given on.
   */
  prGate?: { kind: 'merge' | 'wait' | 'resume' | 'hold'; why: string; head?: string };
  /** Writers' `/blitz tell` messages wait and the issue's session is running: a nudge carries them now. */
  tellNow?: boolean;
  /** What the issue spent since the person's last retry (plan/issue-caps.ts), against `RunSnapshot.issueCaps`. */
  usage?: IssueUsage;
}

export interface BuildStatus {
  status: 'none' | 'running' | 'passed' | 'failed';
  /** The merged issues the latest build ran over. */
  covers: IssueKey[];
  /** Consecutive failed builds. */
  failures: number;
  /** The merge the orchestrator found responsible for the latest failure, if it could tell. */
  responsible?: IssueKey;
  /** The integration branch commit the latest build ran on. */
  sha?: string;
  /** It "passed" without running: no `build:` command was configured then. */
  notConfigured?: boolean;
}

/** The readiness gate's smoke check beyond its status (plan/gate-checks.ts). */
export interface SmokeGate {
  /** False: no `smoke:` command is configured (never shown as green). */
  configured: boolean;
  /** Red smoke passes in a row. */
  failures: number;
  /** Red passes before the run stops BLOCKED (repo config `smokeAttempts`). */
  maxFailures: number;
  /** The integration branch commit the latest smoke check ran on. */
  sha?: string;
  /** The latest smoke "passed" without running: no `smoke:` command was configured then. */
  passedUnconfigured?: boolean;
}

export type StepStatus = 'none' | 'running' | 'passed' | 'failed';

/** What a plan run keeps of its waves, as the planner reads it (plan/plan-waves.ts). */
export interface PlanRunView {
  /** Targeted mode: only these issues are candidates; the others stay blockers. */
  targets?: IssueKey[];
  /** Issues an earlier wave of this run landed: never candidates again in this run. */
  finished: IssueKey[];
  /** The wave in flight: its members, those of them that have landed, and what the pass read of the others. */
  wave?: { members: IssueKey[]; landed: IssueKey[]; facts: MemberRead[] };
  /** Worker sessions: the run's limit (paced), those running now, and the runner's own retries of an unsolved attempt. */
  sessions?: { limit: number; running: number; runnerRetries: number };
}

export interface PlanWaveTally {
  approved: number;
  executionReady: number;
  closed: number;
}

/** What an integration review said (seed 000 §3.5). */
export type { IntegrationReviewVerdict };

/** The integration review as the planner sees it. */
export interface IntegrationReviewView {
  /** Issues merged into the integration branch since the last review. */
  mergedSince: number;
  /** A writer asked for the review again (`/blitz review`): it is due whatever else holds. */
  requested?: boolean;
  /**
   * The last review: its verdict, when (ISO-8601, only compared), how many findings it filed, and
   * whether a writer accepted it as it is (`/blitz accept-review`: readiness no longer waits on it).
   */
  last?: { verdict: IntegrationReviewVerdict; at: string; filed: number; accepted?: boolean };
}

/**
 * Everything the planner decides from. The orchestrator's `load` (reconcile.ts) fills it; each field
 * says what it stands for, and a new decision adds the field it needs here (optional, so the other
 * run kinds that build snapshots keep planning as before).
 */
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
  /**
   * The integration branch head the ship step found, when it differs from the commit the build was
   * green on: the gate no longer counts, the run is gated again (plan/readiness.ts). Absent: no move seen.
   */
  integrationHead?: string;
  roster: RosterEntry[];
  notes?: ModelNotes;
  /** plan-blitz: waves landed so far and the tally of the last one. */
  waves?: { completed: number; last?: PlanWaveTally };
  /** plan-blitz: the targets, the issues landed in earlier waves and the wave in flight (plan/plan-waves.ts). */
  planRun?: PlanRunView;
  /** Fleet: repos with another session active right now; their tickets go last (seed 004). */
  busyRepos?: string[];
  /** Issues closed on the tracker (or moved out of the milestone) while a worker is still on them. */
  abandoned?: IssueKey[];
  /** Closes of merged issues that failed, not for a permission (plan/close-failures.ts). */
  closeFailures?: Readonly<Record<IssueKey, CloseFailures>>;
  /**
   * A hard blocker met by this pass (the forge refused the bot's credentials, …), typed: the run stops
   * BLOCKED on it (`block`). When the forge refused, nothing else of the snapshot was read.
   */
  hardBlocker?: BlockCause;
  /**
   * The hard blocker kept on the run from an earlier pass; a pass that got through lifts it (`unblock`).
   * `cause` is absent on a blocker kept before causes were: it matches no blocker met now.
   */
  keptBlocker?: { reason: string; cause?: BlockCause; issue?: number };
  /**
   * The cause of the run's last stop, while its reason is the stop's (`progress.stopCause`): a blocked
   * run whose plan stops it blocked for this same cause again writes nothing (plan/next-actions.ts).
   * Absent: none kept.
   */
  stopCause?: StopCause;
  /** Blitz: an issue's worker could not start because its agent CLI is missing (plan/tool-blocker.ts). */
  missingTool?: MissingToolView;
  /**
   * Blitz: a read of this pass was refused for an App permission the installation lacks and the bot
   * cannot do without (plan/permission-block.ts): the run blocks on it. Absent: every read got through.
   */
  missingPermission?: MissingPermissionView;
  /**
   * Blitz: the bot's own report went as a commit status (or, without that permission either, nowhere)
   * for lack of the check-run permission `lacking`.
   */
  reportedInstead?: { as: 'status' | 'nothing'; lacking: AppPermission };
  /** Blitz: the run's environment park and the environment failures no park has seen (plan/park.ts). */
  park?: ParkView;
  /** The forge's rate limit is nearly spent: no new worker until it resets (the dashboard says why). */
  forgeSpent?: boolean;
  /**
   * True when `budget` is an answer from before this reconcile call: a wave that would go out asks
   * the probe first (`probe_budget`) and the next pass plans on the answer (seed 000: before each wave).
   * Absent or false: plan on `budget` as it is.
   */
  budgetStale?: boolean;
  /**
   * The integration review where a review module is wired; absent, no review runs and none gates
   * readiness (the dashboard says it is not available).
   */
  integrationReview?: IntegrationReviewView;
  /**
   * Worker reports waiting to be handed on (seed 000 §3.6): out-of-scope bugs not filed as issues yet,
   * and finished attempts' uncertainties not relayed to the dashboard issue yet.
   */
  unfiledFindings?: number;
  /** The run's blocker issue for a red gate, kept from the pass that filed it (plan/gate-blocker.ts). */
  gateBlocker?: GateBlockerView;
  /** Issues the integration review filed as findings: dispatched before any unrelated new issue (plan/findings-first.ts). */
  reviewFindings?: IssueKey[];
  /** Blitz: the merges into the integration branch and what each open PR was compared with (plan/base-change.ts). */
  baseChanges?: BaseChangeView;
  /** The smoke check beyond its status; absent: configured, no red passes, the default allowance. */
  smokeGate?: SmokeGate;
  /** False when no `build:` command is configured (a build that passed ran nothing). */
  buildConfigured?: boolean;
  /** Ship only verified work: `--require-checks`, the repo's or the operator's `ship.requireChecks`. */
  requireChecks?: boolean;
  /** What the finished ship left answering (plan/gate-checks.ts `ShipClaim`): absent before a ship. */
  shipped?: { url?: string; unchecked?: string };
  /** `runner.maxTokensPerIssue`, `…AttemptsPerIssue`, `…SessionsPerIssue`; absent: no per-issue caps. */
  issueCaps?: IssueCaps;
}

/** What plan/park.ts decides a park from; the orchestrator reads the clock, the ledger and the run. */
export interface ParkView {
  /** The time of this pass (ISO). */
  now: string;
  policy: EnvironmentBackoff;
  /** The park kept on the run. */
  current?: RunPark;
  /** Environment failures of the latest attempt of each issue that no park has seen yet. */
  failures: EnvironmentFailureSeen[];
  /** While probing: an interrupted attempt has ended, and not on an environment failure. */
  answered: boolean;
  /** The park's interrupted attempts still the latest of their issue and still ended on the outage. */
  resumable: string[];
  /** The run stopped paused on the budget probe's park (nothing running); `resetAt` when the probe named one. */
  budgetStopped?: { resetAt?: string };
  /** The budget probe's answer this reconcile call: true when it allows work; absent when none is configured or it failed. */
  probeAllows?: boolean;
  /** The parks of the roster entries' endpoints (plan/entry-park.ts), by endpoint. */
  entries?: EntryParks;
  /** Probing endpoints an attempt started since the probe has answered (ended on anything but the outage). */
  entryAnswered?: string[];
}

/** A permission a read of this pass was refused for, and the installation's settings page when known. */
export interface MissingPermissionView {
  permission: AppPermission;
  /** Where an admin of the repository's owner accepts it; absent where the bot cannot tell. */
  page?: string;
}

/** An agent CLI the runner did not find, as the latest attempts of one issue show it. */
export interface MissingToolView {
  /** The tool, its roster entry and the host, typed (the blocker's words are made from it). */
  cause: Extract<BlockCause, { kind: 'missing_tool' }>;
  /** The issue whose next attempt is the probe (the runner checks for the tool before anything else). */
  issue: IssueKey;
  /** Attempts in a row of that issue that met the missing tool. */
  failures: number;
  /** When the latest of them ended (ISO). */
  lastAt: string;
  /** A probe attempt is under way and has not shown the tool is there yet. */
  probing: boolean;
  /** The time of this pass (ISO) and the wait between probes (`runner.environmentBackoff`). */
  now: string;
  policy: EnvironmentBackoff;
}

export type StopState = 'done' | 'blocked' | 'paused';

export type { StopKind } from './stop-cause.ts';

/** An issue a plan wave skips, with the reason. */
export interface HeldIssue {
  key: IssueKey;
  reason: string;
}

export type Action =
  | { type: 'report_cycle'; members: IssueKey[] }
  | { type: 'report_unknown_blocker'; blocker: IssueKey; namedBy: IssueKey[] }
  /**
   * A dry run's plan: the first wave, why the others wait, the workers a run would pick for it now
   * (blitz), and (plan-blitz) the held issues.
   */
  | {
      type: 'post_plan';
      wave: IssueKey[];
      explanations: string[];
      picks?: Extract<Action, { type: 'dispatch' }>[];
      held?: HeldIssue[];
    }
  /** plan-blitz: a wave of these members starts; the held issues and the cycles left out are listed with it. */
  | { type: 'start_wave'; members: IssueKey[]; held: HeldIssue[]; cycles: IssueKey[][] }
  /** plan-blitz: take one member of the wave in flight one step down its size lane (plan/plan-member.ts). */
  | { type: 'advance_member'; issue: IssueKey; facts: MemberFacts; ops: MemberOp[] }
  /** plan-blitz: every member of the wave in flight has landed; the wave lands. */
  | { type: 'land_wave' }
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
  /** Send the writers' messages waiting for the issue to its running session, by a nudge. */
  | { type: 'tell'; issue: IssueKey }
  /** Compare an open PR's files with the merges `shas` made under it; the overlap becomes a tell. */
  | CheckBaseChange
  | { type: 'run_build'; covers: IssueKey[] }
  | { type: 'bounce'; issue: IssueKey; reason: string }
  | { type: 'close_issue'; issue: IssueKey }
  | { type: 'close_epic'; issue: IssueKey }
  | { type: 'run_smoke' }
  /** The integration branch moved since the gate: build and smoke start again (the smoke's red count kept). */
  | { type: 'regate'; reason: string }
  | { type: 'ship'; path: 'deploy' | 'local'; reason: string }
  /** `waiting`: nothing moves until a person acts (a fleet's PRs on `/merge`); `command`: what they type. */
  | {
      type: 'notify';
      level: 'info' | 'ready' | 'blocked' | 'waiting';
      title: string;
      message: string;
      command?: string;
    }
  /** End the run; `remaining` (plan-blitz): the work left, reported, never chained. */
  /** `remaining`, `cycles`: plan-blitz, the work left and the cycles left out, as its dashboard lists them. */
  /** `command`: what a person types to continue, when it is not `/blitz resume` (`/blitz retry #3`). */
  | {
      type: 'stop';
      state: StopState;
      reason: string;
      command?: string;
      remaining?: string[];
      cycles?: IssueKey[][];
      /** The red gate that stopped the run: it files the run's blocker issue (plan/gate-blocker.ts). */
      gate?: GateCause;
      /** What the stop is about, typed: the planner matches on it later, the words are made with it. */
      cause: StopCause;
    }
  /** File the run's one blocker issue for the red gate that stops it, blocking `blocks` (plan/gate-blocker.ts). */
  | {
      type: 'file_gate_blocker';
      cause: GateCause;
      reason: string;
      /** What a person types once the cause is fixed. */
      command: string;
      blocks: IssueKey[];
      sha?: string;
    }
  /** The red gate is green again: the run's blocker issue for it is closed, saying so. */
  | { type: 'close_gate_blocker'; cause: GateCause; issue?: IssueKey; sha?: string }
  /** File the red smoke check as a finding in the milestone and run another pass (seed 000 §4). */
  | { type: 'smoke_finding' }
  /** The gate waits on an unclear integration review: the run goes to `review_unclear`, saying why. */
  | { type: 'await_review'; reason: string }
  /** File the reported out-of-scope bugs as milestone issues; the next pass plans them. */
  | { type: 'file_findings' }
  /** Ask the budget probe before a wave goes out; the next pass plans the wave on its answer. */
  | { type: 'probe_budget' }
  /** Review the integration branch's accumulated diff; the next pass plans on its verdict and findings. */
  | { type: 'integration_review' }
  /** Park the run (paused) or keep it parked with this park; `notice`: a new park, said once. */
  | { type: 'park'; park: RunPark; seen: string[]; notice: boolean }
  /** The park lifts: the run goes on in the state it was paused from. */
  | { type: 'unpark'; reason: string }
  /** The park's wait is over: the sessions in `resume` go on as the probe; with none resumed it lifts. */
  | { type: 'probe_park'; park: RunPark; resume: string[] }
  /** Park a roster entry's endpoint (or keep it parked with this park): its work goes to other entries. */
  | { type: 'park_entry'; endpoint: string; park: EntryPark; seen: string[] }
  /** An endpoint's wait is over: it takes work again, on watch (`probingSince`). */
  | { type: 'probe_entry'; endpoint: string; park: EntryPark }
  /** An endpoint's park lifts: an attempt on it ended on something other than the outage. */
  | { type: 'unpark_entry'; endpoint: string; reason: string }
  /** The run stops BLOCKED on a hard blocker: one notice, and a blocker issue filed once the forge lets it. */
  | { type: 'block'; reason: string; cause: BlockCause }
  /** The hard blocker is gone: its blocker issue is closed and the run goes on. */
  | { type: 'unblock'; reason: string; cause?: BlockCause; issue?: number }
  /** Move the run to `to` when it is in one of `from` now (a run that moved meanwhile is left alone). */
  | { type: 'set_state'; from: RunState[]; to: RunState }
  /** A worker whose issue left the run (closed by hand, moved out of the milestone) is stopped. */
  | { type: 'cancel_worker'; issue: IssueKey; reason: string }
  /** Tell the notifiers about one issue or review, once per content key (seed 000 notices). */
  | {
      type: 'issue_notice';
      event: 'failed' | 'needs_person' | 'review_unclear' | 'warning';
      issue?: IssueKey;
      key: string;
      message: string;
      /** The command that continues from here (`/blitz retry #12`). */
      command?: string;
      /**
       * While the cause lasts the dashboard shows the issue `held` with the message, or the message as a
       * `warning` line (a per-issue cap reached, or 80 % of it spent).
       */
      dashboard?: 'held' | 'warning';
    };

export type ActionType = Action['type'];

/**
 * Actions whose result the rest of the plan depends on: once one has been performed the executor ends
 * the pass and the next pass plans on what it found. One that fails is logged and the pass goes on with
 * the rest of the list, which the planner computed without it.
 */
export const replanAfter: ReadonlySet<ActionType> = new Set<ActionType>([
  'check_base_change',
  'file_findings',
  'smoke_finding',
  'probe_budget',
  'integration_review',
  'park',
  'unpark',
  'probe_park',
  'park_entry',
  'probe_entry',
  'unpark_entry',
]);

export type { GateCause };

/** The run's blocker issue as the planner sees it: the gate it is for, and the issue once filed. */
export interface GateBlockerView {
  cause: GateCause;
  issue?: IssueKey;
}
