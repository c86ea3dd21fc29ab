// The bot's side of remote runners: authenticates a runner's bearer token, hands it jobs from the
// queues of the repos and roles it advertised, keeps leases alive, and applies attempt reports to
// the attempt ledger idempotently on (run, issue, attempt). A report is taken for its results only;
// the attempt it describes is built from the job the bot stored. The HTTP routes are a thin skin on this.
import { AppError } from '../errors.ts';
import { stripControls } from '../forges/outgoing-text.ts';
import type { Logger } from '../observability/logger.ts';
import { queuesForRunner } from '../queue/runner-queues.ts';
import type { JobQueue, JobRef } from '../queue/types.ts';
import { attemptBranch } from '../runner/branch-names.ts';
import {
  type AttemptJob,
  type AttemptLedger,
  type AttemptRecord,
  attemptJobSchema,
  isOpenAttemptRefusal,
} from '../runner/types.ts';
import {
  type RunnerAdvert,
  type RunnerRegistry,
  type RunnerTokenInfo,
  worthNoting,
} from '../store/runner-tokens.ts';
import { appliedSkew, clockSkewOf, resultOnBotClock, skewShown, skewWords } from './clock-skew.ts';
import {
  type AttemptReport,
  type AttemptResult,
  attemptResultFields,
  type ClaimedJob,
  LOG_EXCERPT_CHARS,
  type RefusalReason,
} from './schema.ts';

export interface RunnerHubDeps {
  queue: JobQueue;
  registry: RunnerRegistry;
  /** The bot's attempt ledger: what the orchestrator reads. */
  ledger: AttemptLedger;
  logger: Logger;
  clock?: { now(): Date };
  /** Called with an attempt a report ended unsolved: the bot enqueues its retry (requeue-retry.ts). */
  onUnsolved?: (record: AttemptRecord) => Promise<unknown>;
  /**
   * Called with an attempt a report just ended (it had no outcome, now it has one): the bot asks for a
   * pass of its run at once, as the local runner's exit does, rather than waiting for the cron tick.
   */
  onEnded?: (record: AttemptRecord) => void;
}

export interface RunnerHub {
  /**
   * The runner behind the bearer token, heard from now: live again if it was lost, with its clock's
   * offset from the bot's when `runnerClock` (its `x-blitz-runner-clock` header) says.
   */
  authenticate(authorization: string | undefined, runnerClock?: string): Promise<RunnerTokenInfo>;
  register(
    runner: RunnerTokenInfo,
    advert: RunnerAdvert,
  ): Promise<{ runner: string; queues: string[]; heartbeatSeconds: number }>;
  /** `runner` as authenticate returned it for this request: its advert names the queues pulled. */
  claim(runner: RunnerTokenInfo, job?: JobRef): Promise<ClaimedJob | null>;
  heartbeat(runner: RunnerTokenInfo, job: JobRef): Promise<void>;
  complete(runner: RunnerTokenInfo, job: JobRef, output?: unknown): Promise<{ applied: boolean }>;
  fail(runner: RunnerTokenInfo, job: JobRef, error: string): Promise<{ applied: boolean }>;
  /** A job the runner started nothing for (`open_attempt`): completed, not retried; no attempt changes. */
  refuse(runner: RunnerTokenInfo, job: JobRef, reason: RefusalReason): Promise<{ applied: boolean }>;
  report(runner: RunnerTokenInfo, report: AttemptReport): Promise<{ applied: boolean }>;
}

/** How many stale attempt jobs one claim drops before it answers "nothing" (the next claim goes on). */
const MAX_DROPPED_PER_CLAIM = 20;

const sameIssue = (a: AttemptRecord['issue'], b: AttemptRecord['issue']): boolean =>
  a.number === b.number && a.repo.owner === b.repo.owner && a.repo.name === b.repo.name;

/**
 * The model an attempt ran: its roster entry's (the bot's own word), else the one the runner's tool said
 * it ran (an entry without `model` runs the tool's default). Only shown and priced.
 */
const modelOf = (job: AttemptJob, result: AttemptResult): { model?: string } =>
  job.entry.model ? { model: job.entry.model } : result.model ? { model: result.model } : {};

/**
 * The attempt a runner's `started` report creates: everything the bot acts on comes from the job it
 * stored itself (roster entry, branch, clone URL, texts); from the report only its results. The paths
 * and pid are on the runner's host and stay there: the record has none, and `runner` says whose it is.
 */
export const remoteAttemptRecord = (
  runner: string,
  job: AttemptJob,
  result: AttemptResult,
  clockSkewMs?: number,
): AttemptRecord => ({
  id: result.id,
  runId: job.runId,
  issue: job.issue,
  rosterEntry: job.entry.name,
  tool: job.entry.tool,
  ...modelOf(job, result),
  tier: job.tier,
  branch: attemptBranch(job),
  baseBranch: job.baseBranch,
  repoDir: '',
  worktree: '',
  logPath: '',
  promptPath: '',
  exitPath: '',
  argvRedacted: [],
  // The retry count is the stored job's too: retries are jobs the bot enqueued (requeue-retry.ts).
  job,
  runner,
  ...(clockSkewMs ? { runnerClockSkewMs: clockSkewMs } : {}),
  launchedAt: result.launchedAt,
  startedAt: result.startedAt,
  originShaAtStart: result.originShaAtStart,
  nudges: result.nudges,
  tokens: result.tokens,
  ...optionalResults(result),
});

/** The optional results a report has (a `started` record leaves the others out). */
const optionalResults = (result: AttemptResult): Partial<AttemptRecord> => {
  const out: Partial<AttemptRecord> = {};
  for (const [k, v] of Object.entries(resultPatch(result)))
    if (v !== undefined) Object.assign(out, { [k]: v });
  return out;
};

/**
 * A reported log excerpt as the bot keeps it: control characters stripped (bidi overrides, NUL,
 * terminal escapes), then its last LOG_EXCERPT_CHARS. Secrets are redacted by the ledger it goes to.
 */
export const cleanLogExcerpt = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined;
  const clean = stripControls(text);
  return clean.length > LOG_EXCERPT_CHARS ? clean.slice(-LOG_EXCERPT_CHARS) : clean;
};

/** A report's results as a ledger patch; an optional result it lacks is cleared. */
const resultPatch = (result: AttemptResult): Partial<AttemptRecord> => {
  const patch: Partial<AttemptRecord> = {};
  for (const k of attemptResultFields) Object.assign(patch, { [k]: result[k] });
  patch.logExcerpt = cleanLogExcerpt(result.logExcerpt);
  return patch;
};

export const createRunnerHub = (d: RunnerHubDeps): RunnerHub => {
  const now = () => (d.clock?.now() ?? new Date()).toISOString();

  const mustGetJob = async (ref: JobRef) => {
    const job = await d.queue.get(ref);
    if (!job) throw new AppError('not_found', `No job ${ref.id} in ${ref.queue}.`);
    return job;
  };

  /** Attempts a runner that lost this job's lease left open: its host is gone, not the issue's fault. */
  const closeOrphans = async (ref: JobRef, claimer: string) => {
    for (const r of await d.registry.listReceiptsByJob(ref.queue, ref.id)) {
      if (r.runnerName === claimer) continue;
      const rec = await d.ledger.get(r.attemptId);
      if (!rec || rec.outcome) continue;
      await d.ledger.update(rec.id, {
        outcome: 'environment_failure',
        endedAt: now(),
        failureSummary: `Runner ${r.runnerName} stopped answering; the job went to ${claimer}.`,
      });
      d.logger.info({ attemptId: rec.id, runner: r.runnerName, claimer }, 'attempt of a lost runner closed');
    }
  };

  /** The open attempt of an attempt job's issue in the bot's ledger, whichever runner holds it. */
  const openAttemptOf = async (payload: unknown): Promise<AttemptRecord | undefined> => {
    const job = attemptJobSchema.safeParse(payload);
    if (!job.success) return undefined;
    // By issue (an index), not by run: a claim reads the few attempts of one issue.
    return (await d.ledger.listByIssue(job.data.issue)).find(
      (a) => a.outcome === undefined && a.runId === job.data.runId,
    );
  };

  /** Completes a stale attempt job held by `runner`: done, nothing to do, never retried. */
  const dropStale = async (runner: string, ref: JobRef, reason: RefusalReason, openAttempt?: string) => {
    const done = await d.queue.complete(ref, runner, { kind: 'attempt', attemptIds: [], dropped: reason });
    if (done.applied)
      d.logger.info(
        { runner, job: { queue: ref.queue, id: ref.id }, reason, ...(openAttempt ? { openAttempt } : {}) },
        'stale attempt job dropped: its issue has an open attempt',
      );
    return done;
  };

  const handedOut = (runner: string, job: ClaimedJob): ClaimedJob => {
    d.logger.info({ runner, queue: job.queue, jobId: job.id, retry: job.retryCount }, 'job claimed');
    return {
      queue: job.queue,
      id: job.id,
      payload: job.payload,
      retryCount: job.retryCount,
      leaseSeconds: job.leaseSeconds,
    };
  };

  const ended = (record: AttemptRecord) => {
    try {
      d.onEnded?.(record);
    } catch (err) {
      d.logger.warn({ attemptId: record.id, err }, 'the pass an ended attempt asks for was not requested');
    }
  };

  /** Writes down that `runner` was heard from (at most every few seconds), and says when that changes something. */
  const heardFrom = async (runner: RunnerTokenInfo, runnerClock: string | undefined) => {
    const at = d.clock?.now() ?? new Date();
    const skew = clockSkewOf(runnerClock, at);
    const heard: RunnerTokenInfo = {
      ...runner,
      lastSeenAt: at.toISOString(),
      ...(skew !== undefined ? { clockSkewMs: skew } : {}),
    };
    delete heard.lostAt;
    if (!worthNoting(runner, at, skew))
      return { ...heard, lastSeenAt: runner.lastSeenAt ?? heard.lastSeenAt };
    try {
      await d.registry.seen(runner.id, at.toISOString(), skew);
    } catch (err) {
      d.logger.warn({ runner: runner.name, err }, 'could not note that a runner was heard from');
    }
    if (runner.lostAt) d.logger.info({ runner: runner.name, lostAt: runner.lostAt }, 'lost runner is back');
    if (skewShown(skew) && !skewShown(runner.clockSkewMs))
      d.logger.warn(
        { runner: runner.name, clockSkewMs: skew },
        `runner clock is off: ${skewWords(skew)}; the bot's clock decides, times it reports are moved onto it`,
      );
    return heard;
  };

  return {
    async authenticate(authorization, runnerClock) {
      const m = /^Bearer (\S+)$/.exec(authorization ?? '');
      const runner = m ? await d.registry.authenticate(m[1]!) : undefined;
      if (!runner)
        throw new AppError('unauthorized', 'A valid runner token is required (Authorization: Bearer …).');
      return heardFrom(runner, runnerClock);
    },

    async register(runner, advert) {
      await d.registry.advertise(runner.id, advert, now());
      d.logger.info({ runner: runner.name, ...advert }, 'runner registered');
      return { runner: runner.name, queues: queuesForRunner(runner.name, advert), heartbeatSeconds: 10 };
    },

    async claim(runner, ref) {
      if (ref) {
        // A runner that restarted asks for the job it held: it gets it back only if it still holds it.
        const job = await mustGetJob(ref);
        if (job.state !== 'active' || job.holder !== runner.name) {
          throw new AppError('conflict', `Job ${ref.id} is not leased to ${runner.name}.`, {
            state: job.state,
          });
        }
        await d.queue.heartbeat(ref, runner.name);
        return {
          queue: job.queue,
          id: job.id,
          payload: job.payload,
          retryCount: job.retryCount,
          leaseSeconds: job.leaseSeconds,
        };
      }
      // The advert came with the token row this request authenticated by: no second read, and no
      // list of every runner per claim (a claim costs the same with 1 runner or 500).
      if (!runner.advert)
        throw new AppError('conflict', `Runner ${runner.name} must register before claiming.`);
      const queues = queuesForRunner(runner.name, runner.advert);
      for (let dropped = 0; dropped < MAX_DROPPED_PER_CLAIM; dropped++) {
        const job = await d.queue.claim(queues, runner.name);
        if (!job) return null;
        if (job.retryCount > 0) await closeOrphans(job, runner.name);
        // One worker per issue: a job delivered again after its issue was dispatched anew (its attempt
        // open on another runner, or the bot's own) is dropped here, never handed out. Two claims racing
        // past this read meet the ledger's unique index at the `started` report (below).
        const open = await openAttemptOf(job.payload);
        if (open) {
          await dropStale(runner.name, job, 'open_attempt', open.id);
          continue;
        }
        return handedOut(runner.name, job);
      }
      return null;
    },

    heartbeat: (runner, ref) => d.queue.heartbeat(ref, runner.name),
    complete: (runner, ref, output) => d.queue.complete(ref, runner.name, output),
    fail: (runner, ref, error) => d.queue.fail(ref, runner.name, error),
    refuse: (runner, ref, reason) => dropStale(runner.name, ref, reason),

    async report(runner, report) {
      const a = report.attempt;
      const issueRepo = `${a.issue.repo.owner}/${a.issue.repo.name}`;
      const receipt = await d.registry.getReceipt(a.id);
      if (!receipt) {
        if (report.kind !== 'started') {
          throw new AppError(
            'not_found',
            `No attempt ${a.id} of run ${a.runId} for issue #${a.issue.number}.`,
          );
        }
        const job = await mustGetJob(report.job);
        if (job.holder !== runner.name) {
          throw new AppError('conflict', `Job ${job.id} is not leased to ${runner.name}.`);
        }
        // The bot's own job, as it enqueued it: the only source of what the attempt runs and where.
        const own = attemptJobSchema.safeParse(job.payload);
        if (!own.success || own.data.runId !== a.runId || !sameIssue(own.data.issue, a.issue)) {
          throw new AppError('bad_request', `Attempt ${a.id} is not for the run and issue of job ${job.id}.`);
        }
        const existing = await d.ledger.get(a.id);
        if (existing && existing.runner !== runner.name) {
          // An id the bot's own runner (or another runner) already uses: never overwritten by a report.
          throw new AppError('conflict', `Attempt ${a.id} is not ${runner.name}'s.`);
        }
        // The offset taken when the attempt was first reported moves all its times onto the bot's
        // clock: one offset per attempt, so a time read twice compares equal.
        const skew = existing ? existing.runnerClockSkewMs : appliedSkew(runner.clockSkewMs);
        const record = remoteAttemptRecord(runner.name, own.data, resultOnBotClock(a, skew), skew);
        let saved = record;
        try {
          if (existing) saved = await d.ledger.update(a.id, record);
          else await d.ledger.create(record);
        } catch (err) {
          // Its issue's attempt is open (a claim raced past the check above): the job is done with
          // nothing to do, so the runner's next heartbeat is refused and it stops the worker it started.
          if (isOpenAttemptRefusal(err))
            await dropStale(runner.name, report.job, 'open_attempt', err.openAttempt);
          throw err;
        }
        // A runner that was away flushes a `started` report that already carries the outcome.
        if (existing?.outcome === undefined && saved.outcome !== undefined) ended(saved);
      } else {
        const same =
          receipt.runId === a.runId &&
          receipt.issueRepo === issueRepo &&
          receipt.issueNumber === a.issue.number &&
          receipt.runnerName === runner.name;
        if (!same) {
          throw new AppError(
            'not_found',
            `No attempt ${a.id} of run ${a.runId} for issue #${a.issue.number}.`,
          );
        }
        if (report.seq <= receipt.lastSeq) return { applied: false };
        const before = await d.ledger.get(a.id);
        const after = await d.ledger.update(a.id, {
          ...resultPatch(resultOnBotClock(a, before?.runnerClockSkewMs)),
          ...(before ? modelOf(before.job, a) : {}),
        });
        // Ended unsolved by this report: its retry is a new job on the queue, from the stored job.
        if (before?.outcome !== 'unsolved' && after.outcome === 'unsolved')
          await d
            .onUnsolved?.(after)
            .catch((err: unknown) =>
              d.logger.warn({ attemptId: a.id, err }, 'retry not enqueued; the issue shows as failed'),
            );
        if (before?.outcome === undefined && after.outcome !== undefined) ended(after);
      }
      await d.registry.saveReceipt(
        {
          attemptId: a.id,
          runId: a.runId,
          issueRepo,
          issueNumber: a.issue.number,
          jobQueue: receipt?.jobQueue ?? report.job.queue,
          jobId: receipt?.jobId ?? report.job.id,
          runnerName: runner.name,
          lastSeq: report.seq,
        },
        now(),
      );
      return { applied: true };
    },
  };
};
