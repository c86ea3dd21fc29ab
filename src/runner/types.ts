// The runner's vocabulary: the jobs it executes (zod-checked, since they may arrive over HTTP from
// another host), the attempt record it keeps, and the ledger port the store implements.
import { z } from 'zod';
import type { RosterEntry } from '../config/blitz-config.ts';
import { rosterEntrySchema } from '../config/blitz-config.ts';
import { AppError } from '../errors.ts';
import { environmentCauses } from '../plan/environment-park.ts';

export const repoRefSchema = z.object({ owner: z.string().min(1), name: z.string().min(1) });
export const issueRefSchema = z.object({ repo: repoRefSchema, number: z.number().int().positive() });
export type IssueRefData = z.infer<typeof issueRefSchema>;

export const tierSchema = z.enum(['execution', 'design', 'subtle']);
export type Tier = z.infer<typeof tierSchema>;

export const outcomeSchema = z.enum(['solved', 'unsolved', 'environment_failure', 'stalled', 'cancelled']);
export type AttemptOutcome = z.infer<typeof outcomeSchema>;

/**
 * Why an attempt ended as an environment failure, typed where its end is classified (runner/
 * failure-class.ts `classifyExit`, the supervisor, the runner's setup): what the planner matches on.
 * `environment` parks the run or the entry's endpoint (plan/park.ts), with the reset time the tool
 * printed for a limit; `missing_tool` (the agent CLI not found on the host, or not spawnable) blocks
 * the run (plan/tool-blocker.ts); `lost_before_start` (the runner died setting the attempt up) is
 * dispatched again as any other environment failure. The summary beside it is words for people
 * only. Checked with zod: a remote runner reports it, and a kind or cause outside these closed sets
 * is refused.
 */
export const failureCauseSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('environment'),
      cause: z.enum(environmentCauses),
      /** When the limit lifts (ISO, UTC), as the tool said; the park believes it only within its bound. */
      resetAt: z.iso.datetime().optional(),
    })
    .strict(),
  z.object({ kind: z.literal('missing_tool') }).strict(),
  /** The runner process died while setting the attempt up: no worker ran (nothing parks or blocks). */
  z.object({ kind: z.literal('lost_before_start') }).strict(),
]);
export type FailureCause = z.infer<typeof failureCauseSchema>;

/** A file another issue of the same wave owns: the prompt fences the worker off it. */
export const fenceSchema = z.object({ path: z.string().min(1), ownerIssue: z.number().int().positive() });

/** One merged blocker of an attempt's issue, as the bot recorded it (see `handoff` below). */
export const handoffSchema = z.object({
  /** `owner/name#N` or `#N` (same repository). */
  issue: z.string().min(1).max(300),
  title: z.string().max(1000),
  /** The commit the blocker merged as; only a value that looks like a sha is ever given to git. */
  mergedSha: z
    .string()
    .regex(/^[0-9a-f]{7,64}$/, 'must be a commit sha')
    .optional(),
  /** STATUS and TESTS of the blocker worker's FINAL REPORT (model-written: untrusted). */
  report: z.string().max(4000).optional(),
});
export type Handoff = z.infer<typeof handoffSchema>;

export const attemptJobSchema = z.object({
  kind: z.literal('attempt'),
  runId: z.string().min(1),
  issue: issueRefSchema,
  title: z.string(),
  body: z.string(),
  /** `blitz` → `<slug>/<n>-<title-slug>`; `fleet` → `ticket/<n>-headless`. */
  branchStyle: z.enum(['blitz', 'fleet']),
  /** The run's slug (blitz integration branch is `blitz/<runSlug>`). */
  runSlug: z.string().default('run'),
  baseBranch: z.string().min(1),
  /**
   * The commit the bot expects `baseBranch` at on origin (the tip it last made there itself). A runner
   * whose clone already tracks the base branch at exactly this commit, and knows nothing of the
   * attempt's branch, starts the first try without a fetch. Optional (a runner that does not know the
   * field fetches, as one given no sha does); only a value the runner itself finds to be a commit sha
   * (`expectedBaseSha`) is used, anything else is ignored.
   */
  baseSha: z.string().max(200).optional(),
  /** Clone URL without credentials; credentials come from the injected provider per command. */
  cloneUrl: z.string().min(1),
  entry: rosterEntrySchema,
  tier: tierSchema,
  fences: z.array(fenceSchema).default([]),
  planText: z.string().optional(),
  /**
   * `code` (the default; absent in attempts stored before the field existed): implement the issue.
   * `plan`: write, commit and push `PLAN.md` for it, and implement nothing.
   */
  deliverable: z.enum(['code', 'plan']).optional(),
  /** Extra task instructions written by the bot (never by an issue author), shown outside the fence. */
  instructions: z.string().optional(),
  /**
   * The repository's own build and smoke commands (its blitz.yml, written by people with write access):
   * the agent may run them, so they join claude's allowlist.
   */
  repoCommands: z
    .array(z.array(z.string().min(1).max(1000)).min(1).max(100))
    .max(10)
    .optional(),
  /** What the previous attempt of this issue got wrong, fed back into the prompt. */
  failureFeedback: z.string().optional(),
  /**
   * Start the attempt's branch afresh off `baseBranch` as origin has it now: the runner drops the
   * issue's old attempt repository and its refs of the branch first (a redo after a bounce: the old
   * work was given up, and starting from it would conflict again).
   */
  fresh: z.boolean().optional(),
  /**
   * The issue's blockers that merged before it was dispatched (the dependency handoff): each one's
   * title, the commit it merged as and its worker's FINAL REPORT summary. The runner adds the files
   * the merge changed (its own git, its own clone) and the prompt fences it all as untrusted.
   */
  handoff: z.array(handoffSchema).max(50).optional(),
  /** Which retry this is (0 = first try). */
  retry: z.number().int().min(0).default(0),
});

export const resumeJobSchema = z.object({
  kind: z.literal('resume'),
  attemptId: z.string().min(1),
  /**
   * `conflict`: the base branch was merged into the worktree and left conflicts in `conflictFiles`.
   * `ci_failed`, `review`, `tell` (the PR feedback loop): `feedback` carries the text the bot built for
   * the session (red checks, a writer's review comments, a writer's `/blitz tell`), untrusted parts fenced.
   */
  reason: z.enum(['nudge', 'interrupted', 'conflict', 'ci_failed', 'review', 'tell']),
  conflictFiles: z.array(z.string()).default([]),
  feedback: z.string().min(1).max(100_000).optional(),
  /**
   * With `conflict` (or a `tell` that the base moved under the session): the runner itself merges
   * `origin/<mergeBase>` into the worktree first (it lives on the runner's host), and the files that
   * merge leaves conflicted are the `conflictFiles`.
   */
  mergeBase: z.string().min(1).optional(),
  /**
   * With `tell`: the session is running, and the message reaches it at once. The runner stops it and
   * resumes it with `feedback`, only while it is still the session the bot saw (running, this many
   * feedback resumes); otherwise it refuses, and the bot keeps the message for the next resume.
   */
  interrupt: z.object({ feedbackResumes: z.number().int().min(0) }).optional(),
});

export const cancelJobSchema = z.object({ kind: z.literal('cancel'), attemptId: z.string().min(1) });

export const cleanupJobSchema = z.object({
  kind: z.literal('cleanup'),
  repo: repoRefSchema,
  /** Branch that counts as merged-into (e.g. `blitz/m1` or `main`). */
  mergedInto: z.string().min(1),
  /** Worktrees of these attempts are removed (never one that backs unmerged work). */
  attemptIds: z.array(z.string()).default([]),
  /**
   * Branch tips merged by a squash or rebase, so never ancestors of `mergedInto`: a branch still at
   * one of them, its worktree holding nothing uncommitted, is merged too.
   */
  mergedHeads: z.array(z.string().regex(/^[0-9a-f]{7,64}$/, 'must be a commit sha')).default([]),
  /**
   * The start-up sweep instead: issues of this repo closed on the tracker. Only their worktrees and
   * local branches go (never one an open attempt uses, nor work found nowhere else), merged or not;
   * `attemptIds` and `mergedHeads` only say which host gets the job.
   */
  closedIssues: z.array(z.number().int().positive()).max(10_000).optional(),
});

export const gateJobSchema = z.object({
  kind: z.literal('gate'),
  name: z.enum(['build', 'smoke']),
  argv: z.array(z.string().min(1)).min(1),
  /** Directory inside the workspace to run in (a job for the bot's own runner). */
  cwd: z.string().min(1).optional(),
  /** Or: the worktree of this attempt, as this runner's own ledger has it (a job sent to a remote runner). */
  attemptId: z.string().min(1).optional(),
  timeoutSeconds: z.number().int().positive().default(1800),
});

/**
 * The base commit a runner may trust a job's word on: a full lowercase sha (40 hex; 64 in a SHA-256
 * repository), on the first try of the first delivery only. A retry comes after a worker ran (the base
 * and the branch may have moved), a redelivered job after another runner held it (and may have pushed
 * the branch): both fetch.
 */
export const expectedBaseSha = (job: Pick<AttemptJob, 'baseSha' | 'retry'>): string | undefined =>
  job.retry === 0 && job.baseSha !== undefined && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(job.baseSha)
    ? job.baseSha
    : undefined;

/** A job as a runner claims it: one delivered before (its lease ran out elsewhere) loses its base sha. */
export const asClaimed = <J extends { kind: string }>(job: J, retryCount: number): J => {
  if (retryCount === 0 || job.kind !== 'attempt' || !('baseSha' in job)) return job;
  const { baseSha: _, ...rest } = job as J & { baseSha?: string };
  return rest as J;
};

export const runnerJobSchema = z.discriminatedUnion('kind', [
  attemptJobSchema,
  resumeJobSchema,
  cancelJobSchema,
  cleanupJobSchema,
  gateJobSchema,
]);
export type RunnerJob = z.input<typeof runnerJobSchema>;
export type AttemptJob = z.infer<typeof attemptJobSchema>;
export type Deliverable = NonNullable<AttemptJob['deliverable']>;
export type ResumeReason = z.infer<typeof resumeJobSchema>['reason'];
export type ResumeJob = z.infer<typeof resumeJobSchema>;
export type CleanupJob = z.infer<typeof cleanupJobSchema>;
export type GateJob = z.infer<typeof gateJobSchema>;

/**
 * Tokens one attempt used, as its tool reported them: `input` is the uncached input, `cache` the
 * cached input read and written together, `cacheWrite` the written part of it (plan/cost.ts prices
 * each kind; absent on records kept before the split, whose cache cost is then unknown).
 */
export interface TokenUsage {
  input: number;
  output: number;
  cache?: number;
  cacheWrite?: number;
}

/** What was found in an interrupted worker's worktree before it was resumed. */
export interface SurvivedWork {
  unpushedCommits: number;
  dirtyFiles: number;
}

export interface AttemptRecord {
  id: string;
  runId: string;
  issue: IssueRefData;
  rosterEntry: string;
  tool: RosterEntry['tool'];
  model?: string;
  tier: Tier;
  branch: string;
  baseBranch: string;
  repoDir: string;
  worktree: string;
  pid?: number;
  /**
   * The start time of `pid` (field 22 of `/proc/<pid>/stat`), read when the runner spawned it: with
   * the pid it names that one process, so a reused pid is never signalled.
   */
  pidStartTime?: string;
  /**
   * The runner process setting the attempt up (clone, worktree, prompt) until its worker has a `pid`:
   * its pid and start time. A pid-less attempt whose setter is gone (a restart, a kill -9) never starts.
   */
  setupBy?: { pid: number; startTime?: string };
  logPath: string;
  promptPath: string;
  /** Written by the worker wrapper when the process exits, so the exit code survives a bot restart. */
  exitPath: string;
  /** When the current process (first launch or latest resume) started: the timeout counts from here. */
  launchedAt: string;
  /** The job that started the attempt: a resume or retry after a restart needs its fences and text. */
  job: AttemptJob;
  argvRedacted: string[];
  /** Branch sha on origin when the attempt started (null: branch not on origin yet). */
  originShaAtStart: string | null;
  startedAt: string;
  endedAt?: string;
  exitCode?: number;
  outcome?: AttemptOutcome;
  nudges: number;
  tokens: TokenUsage;
  /**
   * A remote runner's attempt: the tail of its worker's log as the runner reported it (control
   * characters stripped, at most LOG_EXCERPT_CHARS, redacted on the way into the ledger).
   */
  logExcerpt?: string;
  /** Words for people: what ended the attempt. Nothing decides on them (see `failureCause`). */
  failureSummary?: string;
  /**
   * Why an environment failure ended the attempt, for the planner to match on; absent on any other end,
   * and on attempts recorded before causes were typed (read as no cause: neither park nor block).
   */
  failureCause?: FailureCause;
  survived?: SurvivedWork;
  /**
   * The machine whose workspace holds the worktree, for the bot's own runner (several replicas share
   * one ledger); absent on a remote runner's attempts (see `runner`).
   */
  host?: string;
  /**
   * The remote runner that reported this attempt, set by the bot's runner hub from the runner token
   * that sent the report (never from the report's content). A remote attempt's paths and pid are on
   * that runner's host: the bot never supervises, signals or resumes it.
   */
  runner?: string;
  /**
   * That runner's clock minus the bot's when the attempt was first reported (ms): the times of its
   * reports were moved onto the bot's clock by this much (remote-runner/clock-skew.ts).
   */
  runnerClockSkewMs?: number;
  /** Files a base merge left conflicted for the worker to resolve (a resume with `mergeBase`). */
  conflictFiles?: string[];
  /**
   * How many times the PR feedback loop resumed this session (`ci_failed`, `review`, `tell`): the bot
   * reads it to know that a resume it asked for has been carried out (a queued one has not, yet).
   */
  feedbackResumes?: number;
  /** The worker's whole FINAL REPORT, so readers need not reach the log (which lives on the runner host). */
  finalReport?: StoredFinalReport;
  /** The last stall check's observation, so the first check after a bot restart can already count. */
  stallFingerprint?: StallFingerprint;
  /** Calls the agent CLI refused (its allowlist); an attempt that ended for them needs a person. */
  permissionDenials?: PermissionDenial[];
  /**
   * The agent CLI's session (claude session id chosen by the runner, codex thread id, opencode
   * sessionID): a nudge or restart resumes exactly this one, never "the last session here".
   */
  sessionId?: string;
}

export interface StoredFinalReport {
  pr?: string;
  tests?: string;
  review?: string;
  status?: string;
  uncertainties: string[];
  outOfScopeBugs: string[];
}

/**
 * What a stall check saw: log size, worktree HEAD, the pushed branch sha, and the CPU the worker's
 * process tree had used and the commands its agent had running.
 */
export interface StallFingerprint {
  logSize: number;
  head: string | null;
  remote: string | null;
  cpuMs?: number;
  commands?: number;
}

/** A call the agent CLI refused (claude's `permission_denials`): what to allow for the worker to go on. */
export interface PermissionDenial {
  /** The tool the model called (`Bash`, `WebFetch`…). */
  tool: string;
  /** For `Bash`: the command the model wanted to run (its text, shown, never run). */
  command?: string;
  /** The allowlist rule that would let it run (`Bash(pytest:*)`), for the roster entry's `allowedTools`. */
  rule?: string;
}

export interface TokenTotals extends TokenUsage {
  attempts: number;
}

/** Where attempts are kept. Async so the SQLite/Postgres store can implement it unchanged. */
/**
 * A second open attempt of one issue in one run, refused by the ledger that would have stored it (on
 * SQLite and PostgreSQL a unique index, so two starts racing cannot both pass): one worker per issue.
 * `openAttempt` is the attempt that stands, when it was still open as the refusal was read.
 */
export class OpenAttemptError extends AppError {
  constructor(
    readonly issue: IssueRefData,
    readonly openAttempt: string | undefined,
  ) {
    super(
      'conflict',
      `Issue ${issue.repo.owner}/${issue.repo.name}#${issue.number} already has an open attempt${openAttempt ? ` (${openAttempt})` : ''}: no second worker is started.`,
      openAttempt ? { openAttempt } : {},
    );
  }
}

export const isOpenAttemptRefusal = (err: unknown): err is OpenAttemptError =>
  err instanceof OpenAttemptError;

export interface AttemptLedger {
  /** Refuses a second open attempt of the record's run and issue (OpenAttemptError). */
  create(record: AttemptRecord): Promise<void>;
  /** Refuses to reopen an attempt while another of its run and issue is open (OpenAttemptError). */
  update(id: string, patch: Partial<Omit<AttemptRecord, 'id'>>): Promise<AttemptRecord>;
  get(id: string): Promise<AttemptRecord | undefined>;
  listByRun(runId: string): Promise<AttemptRecord[]>;
  listByIssue(issue: IssueRefData): Promise<AttemptRecord[]>;
  /** Attempts without an outcome yet: what a restarted supervisor must re-attach or classify. */
  listOpen(): Promise<AttemptRecord[]>;
  /** Token totals; environment failures are not charged to the issue. */
  totalsByIssue(issue: IssueRefData): Promise<TokenTotals>;
  totalsByRun(runId: string): Promise<TokenTotals>;
}

/** Events the runner emits; every terminal state emits one (silence never looks like success). */
export type RunnerEvent =
  | { type: 'attempt.started'; attemptId: string; pid: number }
  | { type: 'attempt.nudged'; attemptId: string; nudges: number }
  | { type: 'attempt.resumed'; attemptId: string; reason: ResumeReason; survived: SurvivedWork }
  | { type: 'attempt.finished'; attemptId: string; outcome: AttemptOutcome; summary: string }
  | { type: 'attempt.needs_person'; attemptId: string; reason: string }
  | { type: 'attempt.retried'; attemptId: string; nextAttemptId: string; retry: number }
  | { type: 'gate.finished'; name: 'build' | 'smoke'; exitCode: number; timedOut: boolean };

export type EventSink = (event: RunnerEvent) => void;

/** Injected time, so stall checks and timeouts are tested without sleeping. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
