// The run port: blitz runs, the issues inside them, and the queued intents the orchestrator turns
// into runs. Async so a Postgres engine can implement it unchanged; SQLite is sqlite-run-store.ts.

import { AppError } from '../errors.ts';
import type { ForgeKind } from '../forges/types.ts';
import type { BaseChange } from '../plan/base-change.ts';
import type { BlockCause } from '../plan/block-cause.ts';
import type { ProbeAnswer } from '../plan/budget.ts';
import type { EntryParks } from '../plan/entry-park.ts';
import type { RunPark } from '../plan/environment-park.ts';
import type { IssueRowState, RunReasonKind, RunState } from '../plan/states.ts';
import type { StopCause } from '../plan/stop-cause.ts';
import type { Intent } from './types.ts';

/** A run's state: the planner's run state machine (plan/states.ts) owns the list. */
export type RunRecordState = RunState;

export type StepState = 'none' | 'running' | 'passed' | 'failed';

/** What the orchestrator keeps about a run beyond its columns (JSON, owned by the orchestrator). */
/** One issue of the run's dependency graph as the last dashboard drew it. */
export interface RunGraphNode {
  number: number;
  title: string;
  state: string;
  epic?: boolean;
  blockedBy: number[];
}

export interface RunProgress {
  /** The last dashboard's graph (titles, states, edges), so the status page can draw it after a restart. */
  graph?: RunGraphNode[];
  build?: {
    status: StepState;
    /** Which start of the build a result belongs to (a result for an older start is dropped). */
    gate?: string;
    covers: string[];
    failures: number;
    responsible?: string;
    /** Last lines of the failing build, fed back into the bounced issue's prompt. */
    tail?: string;
    /** The integration branch commit the build ran on. */
    sha?: string;
    /** No `build:` command is configured: passed without running, shown as "not configured". */
    notConfigured?: boolean;
  };
  smoke?: StepState;
  /** The smoke check beside its status: the commit it ran on, red passes in a row, the last red tail. */
  smokeGate?: { sha?: string; failures: number; tail?: string; notConfigured?: boolean };
  ship?: {
    status: StepState;
    path?: 'deploy' | 'local';
    /** An address that answered (the preview's port, the deploy's health URL): the only one named live. */
    url?: string;
    /** The deploy's address when nothing polled it (no `ship.healthUrl`). */
    unchecked?: string;
    /** The milestone PR. */
    pr?: string;
    reasons?: string[];
  };
  /**
   * The integration branch head the ship step found when it was not the commit the build was green on
   * (a push by hand, a late merge): nothing shipped, and the planner sends the run back through build
   * and smoke (`regate`), which clears it.
   */
  integrationHead?: string;
  /**
   * The integration branch's tip as the bot itself last set it (a merge it made, a revert it pushed):
   * the base sha its next attempt jobs carry, so a runner whose clone already tracks it starts without a
   * fetch. Absent when the bot does not know it (a run's start, a merge whose commit it could not find).
   */
  integrationTip?: string;
  /** Blitz: each merge into the integration branch and the files its PR changed (plan/base-change.ts). */
  baseChanges?: BaseChange[];
  /** Blitz: per issue, the merge commits its open PR was already compared with. */
  baseChecked?: Record<string, string[]>;
  /** Budget probe result shown on the dashboard. */
  budget?: ProbeAnswer;
  /** Content keys of reports and notifications already posted, so a repeat action posts nothing. */
  posted?: string[];
  /**
   * The run is parked on an environment failure (endpoint down, spend limit) or a budget probe's park:
   * it resumes by itself when a probe allows (decided by plan/park.ts).
   */
  park?: RunPark;
  /**
   * The roster entries' endpoints parked by an environment failure (provider failover, plan/entry-park.ts),
   * by endpoint: their work goes to other entries until a probe finds them back.
   */
  entryParks?: EntryParks;
  /** The forge refused the bot (401, 403): the run is BLOCKED on it until a pass gets through. */
  hardBlocker?: { reason: string; cause?: BlockCause; since: string; issue?: number };
  /**
   * The installation refused the bot's check run for lack of this permission: its reports go as a commit
   * status (forges/github/checks.ts), said once (plan/permission-block.ts). Cleared when new permissions
   * are accepted.
   */
  reportedInstead?: { as: 'status' | 'nothing'; lacking: { name: string; level: 'read' | 'write' } };
  /**
   * A write the forge refused for an App permission the installation lacks (a merge without
   * `contents:write`, a PR without `pull_requests:write`): the run is BLOCKED on it until the credential
   * the bot holds carries it (runs/missing-permission.ts); the lift clears it.
   */
  refusedWrite?: {
    permission: { name: string; level: 'read' | 'write' };
    since: string;
    /** `owner/name` the write was refused on, where the forge said (a fleet works in several). */
    repo?: string;
  };
  /**
   * The run's one blocker issue for the red gate that stopped it (plan/gate-blocker.ts): the gate, written
   * before the issue is filed, and the issue's number once it is.
   */
  gateBlocker?: { cause: 'build' | 'smoke' | 'ship'; issue?: number };
  /** Environment failures already folded into a park, `attemptId@endedAt` (bounded). */
  environmentSeen?: string[];
  /** The state the run was in when paused, to resume into. */
  pausedFrom?: RunRecordState;
  /** Why the run stopped (done / blocked / cancelled), in words. */
  reason?: string;
  /** Which kind of step wrote `reason` (plan/run-reason.ts): what takes it away matches on this. */
  reasonKind?: RunReasonKind;
  /** `budget_park` when the last stop was the budget probe's park: it lifts by itself (plan/park.ts). */
  stopKind?: 'budget_park';
  /** What the last stop was about, typed (plan/stop-cause.ts): a blocked run stopped for it again writes nothing. */
  stopCause?: StopCause;
  /**
   * What a person types to continue the stopped run when it is not `/blitz resume`: a run blocked
   * because its issues gave up continues with `/blitz retry #n` (plan/next-actions.ts).
   */
  continueWith?: string;
  /**
   * Blitz, plan and fleet runs: `owner/name#n` → who with write permission added `blitz/approved` (seen by
   * webhook) and the hash of the title and body it covers. A bare login (no hash) is an approval from
   * before approvals were bound to the text: it counts as lapsed.
   */
  approvals?: Record<string, string | { by: string; hash: string }>;
  /** The last integration review: its verdict, when, and how many findings it filed as issues. */
  integrationReview?: {
    verdict: 'clean' | 'minor' | 'blocking' | 'unclear' | 'no_review';
    at: string;
    filed: number;
    reviewer?: string;
    /** A writer accepted this review as it is (`/blitz accept-review`): readiness no longer waits on it. */
    accepted?: { by: string; at: string };
  };
  /** A writer asked for the integration review again (`/blitz review`); cleared when it has run. */
  reviewRequested?: { by: string; at: string };
  /** Merged issues since the last integration review. */
  mergedSinceReview?: number;
  /** Issue numbers the integration review filed as findings: the planner dispatches them first. */
  reviewFindings?: number[];
  notifyFailures?: { target: string; error: string }[];
  /**
   * The operator's notify targets this run's repository picked by name (`notify:` in its blitz.yml), as
   * the last pass read it; absent: it picked none, so every target is told.
   */
  notifyTo?: string[];
  /** Remote runners that were lost while holding work of this run (compose/lost-runner-notice.ts), for its dashboard. */
  lostRunners?: { runner: string; at: string; sentence: string }[];
  /** Builds run so far on the integration branch: the wave number shown is one more. */
  wave?: number;
  /** Closes of a merged issue that failed, not for a permission, by issue key (plan/close-failures.ts). */
  closeFailures?: Record<string, { count: number; cause: string }>;
  /** A PR went on without a review: no review module, or its review leg kept failing. */
  reviewUnavailable?: boolean;
  /** The PR feedback loop, per issue key (blitz and fleet): orchestrator/pr-feedback.ts owns it. */
  prFeedback?: Record<string, PrFeedbackState>;
  /** Fleet runs: per-ticket facts (merge requests, verdicts, relays), JSON the fleet module parses. */
  fleet?: unknown;
  /** Plan runs: targets, unmatched targets and waves with their landings; plan-blitz/ parses it. */
  planBlitz?: unknown;
}

/** A writer's `/blitz tell` message; `sent`: a nudge carrying it went to that attempt's running session. */
export interface TellMessage {
  id: number;
  by: string;
  text: string;
  /**
   * `base_change`: the bot's own (plan/base-change.ts): the integration branch changed these files
   * under the worker. It waits for the session's next resume (never a nudge), which merges the branch in.
   */
  kind?: 'base_change';
  /** With `base_change`: the files both sides changed (a worker named them: fenced in the prompt). */
  files?: string[];
  sent?: { attemptId: string; resumes: number };
}

/** What the PR feedback loop keeps about one worker PR (issue 21). */
export interface PrFeedbackState {
  /** The PR head the bot last saw and when it first saw it (the CI settle window counts from then). */
  head?: { sha: string; seenAt: string };
  /** CI fix resumes spent (`ci.maxFixAttempts` caps them); `/blitz retry` starts the count again. */
  fixAttempts: number;
  /** Writers' reviews and comments up to this time (the forge's own timestamps) reached the session. */
  reviewSince?: string;
  /** The last resume asked: carried out once the attempt's `feedbackResumes` is above `resumes`. */
  asked?: { attemptId: string; resumes: number; head: string; commentIds: number[] };
  /** Review comments answered on their thread with the commit that addressed them. */
  replied?: number[];
  /** Why the PR is held (fix attempts spent, CI timed out): until `/blitz retry`. */
  held?: string;
  /**
   * `/blitz tell` messages for the session (intent ids keep them once): waiting for its next resume,
   * or sent to a running session by a nudge (src/ship/tell-delivery.ts says which).
   */
  tells?: TellMessage[];
  /** The review leg's verdict on the PR (`clean by reviewer`), for the bot's `blitz` check. */
  reviewVerdict?: string;
  /** Review legs on PR `pr` that produced no review (plan/review-leg-failures.ts bounds them). */
  reviewLegFailures?: { pr: number; count: number };
  /** The bot's own check last reported on the head (`sha state title`): written once per change. */
  reported?: string;
}

export interface NewRun {
  id: string;
  forge: ForgeKind;
  installationId?: number;
  repo: string;
  /** A fleet run's milestoneNumber is minus its trigger issue: one live fleet per trigger issue. */
  kind: 'blitz' | 'fleet' | 'plan';
  milestoneNumber: number;
  milestoneTitle: string;
  slug: string;
  triggerIssue?: number;
  options: unknown;
  state: RunRecordState;
  integrationBranch: string;
  /** The progress the run starts with (a plan run's targets, a fleet's triage), in the same insert. */
  progress?: RunProgress;
}

export interface RunRecord extends NewRun {
  dashboardCommentId?: number;
  progress: RunProgress;
  /** Counts the writes of state, progress and options: a write names the version it read. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * A live run without its progress (a run's largest column, parsed on every read of the whole row):
 * enough to know which forge and installation serve a repository.
 */
export type LiveRunHead = Pick<RunRecord, 'id' | 'forge' | 'installationId' | 'repo' | 'kind' | 'options'>;

export interface RunIssueRecord {
  runId: string;
  /** `owner/name` */
  repo: string;
  number: number;
  state: IssueRowState;
  branch?: string;
  worktree?: string;
  prNumber?: number;
  reviewPosted: boolean;
  mergedSha?: string;
  attempts: number;
  lastError?: string;
  /** Why the issue waits in its state: the last action on it that failed, in words (cleared by the next success). */
  waitReason?: string;
  bouncedAfter?: string;
  /** `/blitz retry` or `unhold`: failures count only after this attempt (`-`: from the first). */
  retriedAfter?: string;
  /** `/blitz skip`: left out of the run (open on the tracker) until `/blitz retry`. */
  skipped?: boolean;
  /** Conflict resumes sent to this pass's session (plan/merge-conflict.ts); absent: none. */
  conflictResumes?: number;
  /** The attempt's `launchedAt` when the last conflict resume was sent (the resume pending while it still shows). */
  conflictResumeAt?: string;
  /** When the last conflict resume was sent (ISO): its lease counts from it. */
  conflictResumeSentAt?: string;
  updatedAt: string;
}

/** Fields to change; `null` clears a PR or merge that no longer counts (a bounce). */
export interface RunIssuePatch {
  state?: IssueRowState;
  branch?: string;
  worktree?: string;
  prNumber?: number | null;
  reviewPosted?: boolean;
  mergedSha?: string | null;
  attempts?: number;
  lastError?: string;
  /** `null` clears it: the action that failed went through. */
  waitReason?: string | null;
  bouncedAfter?: string;
  retriedAfter?: string;
  skipped?: boolean;
  conflictResumes?: number;
  /** `null` clears it (a bounce: the redo's session starts from scratch). */
  conflictResumeAt?: string | null;
  conflictResumeSentAt?: string | null;
}

export type RunPatch = Partial<Pick<RunRecord, 'state' | 'dashboardCommentId' | 'progress' | 'options'>>;

export interface RunResult {
  id: number;
  runId: string;
  name: string;
  value: unknown;
  recordedAt: string;
}

/** A write computed from a run that changed since it was read: refused, never applied. */
export class StaleRunWriteError extends AppError {
  constructor(
    readonly runId: string,
    readonly expected: number,
    readonly found: number,
  ) {
    super(
      'conflict',
      `Run ${runId} changed since it was read (version ${expected}, now ${found}); the write was refused.`,
      {
        runId,
        expected,
        found,
      },
    );
  }
}

export const isStaleRunWrite = (err: unknown): err is StaleRunWriteError => err instanceof StaleRunWriteError;

/** An issue row write computed from a state the stored row is no longer in: refused, never applied. */
export class StaleIssueWriteError extends AppError {
  constructor(
    readonly runId: string,
    readonly repo: string,
    readonly number: number,
    readonly expected: IssueRowState,
    readonly found: IssueRowState,
  ) {
    super(
      'conflict',
      `Issue ${repo}#${number} of run ${runId} is ${found}, not ${expected} as read; the write was refused.`,
      { runId, repo, number, expected, found },
    );
  }
}

export const isStaleIssueWrite = (err: unknown): err is StaleIssueWriteError =>
  err instanceof StaleIssueWriteError;

/** The state an issue row write was computed from; a missing row counts as `ready` (it is created so). */
export interface IssueExpect {
  state: IssueRowState;
}

export interface RunStore {
  /** Creates the run; `conflict` with the live run when the milestone already has one. */
  createRun(run: NewRun): Promise<{ created: true; run: RunRecord } | { created: false; live: RunRecord }>;
  getRun(id: string): Promise<RunRecord | undefined>;
  /** The run of this milestone that is not done or cancelled, if any. */
  liveRun(forge: ForgeKind, repo: string, milestoneNumber: number): Promise<RunRecord | undefined>;
  /** Runs that are not done or cancelled (what the cron tick reconciles). */
  listLiveRuns(): Promise<RunRecord[]>;
  /** listLiveRuns without their progress, in the same order (runner credentials ask on every git context). */
  listLiveRunHeads(): Promise<LiveRunHead[]>;
  listRuns(filter?: { forge?: ForgeKind; repo?: string }): Promise<RunRecord[]>;
  /**
   * Applies the patch to the run as it is in the store. With `expect`, the write is refused with a
   * StaleRunWriteError (and changes nothing) when the run's version is no longer the one named. Only
   * runs/run-writer.ts calls this outside the store and its tests.
   */
  updateRun(id: string, patch: RunPatch, expect?: { version: number }): Promise<RunRecord>;
  /** Background work's result (a build, a smoke check): one row, never the run itself. */
  recordRunResult(runId: string, name: string, value: unknown): Promise<void>;
  /** The results not yet folded into the run, oldest first. */
  listRunResults(runId: string): Promise<RunResult[]>;
  /** Drops the results up to and including `upToId` (folded into the run). */
  dropRunResults(runId: string, upToId: number): Promise<void>;
  listRunIssues(runId: string): Promise<RunIssueRecord[]>;
  /**
   * Creates the row when missing, then applies the patch; a state that is not an IssueRowState is refused.
   * With `expect`, the patch applies only where the stored row is in `expect.state` (checked in the
   * write itself); otherwise a StaleIssueWriteError naming the stored state, and nothing is written.
   * Only runs/run-writer.ts (`writeIssue`) calls this outside the store and its tests.
   */
  upsertRunIssue(
    runId: string,
    repo: string,
    number: number,
    patch: RunIssuePatch,
    expect?: IssueExpect,
  ): Promise<RunIssueRecord>;
  /** Intents not yet taken by the orchestrator, oldest first. */
  listQueuedIntents(): Promise<Intent[]>;
  /** Marks a queued intent with its result; false when it was already taken (by another replica). */
  claimIntent(id: number, status: string): Promise<boolean>;
  /**
   * Runs `fn` holding the run's lock, so one reconcile per run runs at a time: across replicas on
   * Postgres (an advisory lock), within the process on SQLite. Waits while another holder runs; the
   * lock is released when `fn` settles, whether it resolves or throws.
   */
  withRunLock<T>(runId: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
