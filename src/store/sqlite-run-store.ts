// The RunStore (and the attempt ledger) over one SQLite file. It opens its own connection to the
// same file as the intake Store (WAL lets both work at once), so a restarted bot finds its runs,
// issues, attempts and queued intents where it left them.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { isIssueRowState, issueRowStates, isTerminalRunState, runStates } from '../plan/states.ts';
import type { AttemptLedger } from '../runner/types.ts';
import {
  type IssueExpect,
  type LiveRunHead,
  type RunIssueRecord,
  type RunProgress,
  type RunRecord,
  type RunRecordState,
  type RunResult,
  type RunStore,
  StaleIssueWriteError,
  StaleRunWriteError,
} from './run-store.ts';
import { createSqliteAttemptLedger } from './sqlite-ledger.ts';
import { openSqliteDatabase, opt } from './sqlite-open.ts';
import { forgeKind, toIntent } from './sqlite-store.ts';

const runState = z.enum(runStates);

const runRow = z.object({
  id: z.string(),
  forge: forgeKind,
  installation_id: z.number().nullable(),
  repo: z.string(),
  kind: z.enum(['blitz', 'fleet', 'plan']),
  milestone_number: z.number(),
  milestone_title: z.string(),
  slug: z.string(),
  trigger_issue: z.number().nullable(),
  options: z.string(),
  state: runState,
  integration_branch: z.string(),
  dashboard_comment_id: z.number().nullable(),
  progress: z.string(),
  version: z.number().default(0),
  created_at: z.string(),
  updated_at: z.string(),
});

const stepState = z.enum(['none', 'running', 'passed', 'failed']);
// Loose at every level: a field this schema does not name is kept as stored, never dropped on a read
// (a plain object here once dropped the build's `sha` and `notConfigured`).
const progressSchema: z.ZodType<RunProgress> = z.looseObject({
  build: z
    .looseObject({
      status: stepState,
      gate: z.string().optional(),
      covers: z.array(z.string()),
      failures: z.number(),
      responsible: z.string().optional(),
      tail: z.string().optional(),
      sha: z.string().optional(),
      notConfigured: z.boolean().optional(),
    })
    .optional(),
  smoke: stepState.optional(),
  ship: z
    .looseObject({
      status: stepState,
      path: z.enum(['deploy', 'local']).optional(),
      url: z.string().optional(),
      reasons: z.array(z.string()).optional(),
    })
    .optional(),
  budget: z
    .discriminatedUnion('status', [
      z.looseObject({
        status: z.literal('ok'),
        recommendedMaxSessions: z.number(),
        preferMedium: z.boolean(),
        park: z.boolean(),
        /** When the provider's limit lifts, if the probe said (ISO): a budget park waits for it. */
        resetAt: z.string().optional(),
      }),
      z.looseObject({ status: z.literal('absent') }),
      z.looseObject({ status: z.literal('failed'), error: z.string() }),
    ])
    .optional(),
  posted: z.array(z.string()).optional(),
  pausedFrom: runState.optional(),
  reason: z.string().optional(),
  continueWith: z.string().optional(),
  mergedSinceReview: z.number().optional(),
  notifyFailures: z.array(z.looseObject({ target: z.string(), error: z.string() })).optional(),
  wave: z.number().optional(),
  reviewUnavailable: z.boolean().optional(),
});

const issueRow = z.object({
  run_id: z.string(),
  issue_repo: z.string(),
  issue_number: z.number(),
  state: z.enum(issueRowStates),
  branch: z.string().nullable(),
  worktree: z.string().nullable(),
  pr_number: z.number().nullable(),
  review_posted: z.number(),
  merged_sha: z.string().nullable(),
  attempts: z.number(),
  last_error: z.string().nullable(),
  wait_reason: z.string().nullable(),
  bounced_after: z.string().nullable(),
  retried_after: z.string().nullable(),
  skipped: z.coerce.number(),
  // Absent on a database read before migration 087.
  conflict_resumes: z.coerce.number().optional(),
  conflict_resume_at: z.string().nullish(),
  // Absent on a database read before migration 088.
  conflict_resume_sent_at: z.string().nullish(),
  updated_at: z.string(),
});

/**
 * Per run, the last progress text the schema passed. The schema is loose at every level, with no
 * default or transform: what it passes it returns as read, so the same text read again (every pass
 * reads its run several times, and a write reads it once more) is parsed as JSON only.
 */
const checkedProgress = new Map<string, string>();
/** Runs whose checked text is kept; past it the list starts again (a long-lived bot reads many runs). */
const CHECKED_PROGRESS_RUNS = 512;

const progressOf = (runId: string, text: string): RunProgress => {
  if (checkedProgress.get(runId) === text) return JSON.parse(text) as RunProgress;
  const progress = progressSchema.parse(JSON.parse(text));
  if (checkedProgress.size >= CHECKED_PROGRESS_RUNS) checkedProgress.clear();
  checkedProgress.set(runId, text);
  return progress;
};

export const toRun = (raw: unknown): RunRecord => {
  const r = runRow.parse(raw);
  return {
    id: r.id,
    forge: r.forge,
    repo: r.repo,
    kind: r.kind,
    milestoneNumber: r.milestone_number,
    milestoneTitle: r.milestone_title,
    slug: r.slug,
    options: JSON.parse(r.options),
    state: r.state,
    integrationBranch: r.integration_branch,
    progress: progressOf(r.id, r.progress),
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...opt('installationId', r.installation_id),
    ...opt('triggerIssue', r.trigger_issue),
    ...opt('dashboardCommentId', r.dashboard_comment_id),
  };
};

const runHeadRow = runRow.pick({
  id: true,
  forge: true,
  installation_id: true,
  repo: true,
  kind: true,
  options: true,
});

/** The columns `toRunHead` reads. */
export const runHeadColumns = 'id, forge, installation_id, repo, kind, options';

export const toRunHead = (raw: unknown): LiveRunHead => {
  const r = runHeadRow.parse(raw);
  return {
    id: r.id,
    forge: r.forge,
    repo: r.repo,
    kind: r.kind,
    options: JSON.parse(r.options),
    ...opt('installationId', r.installation_id),
  };
};

/** A run issue's state as the store takes it: one of plan/states.ts's list, or a `bad_request`. */
export const assertIssueState = (value: unknown): void => {
  if (typeof value !== 'string' || !isIssueRowState(value))
    throw new AppError('bad_request', `Unknown run issue state ${JSON.stringify(value)}.`);
};

export const toIssue = (raw: unknown): RunIssueRecord => {
  const r = issueRow.parse(raw);
  return {
    runId: r.run_id,
    repo: r.issue_repo,
    number: r.issue_number,
    state: r.state,
    reviewPosted: r.review_posted === 1,
    ...(r.skipped === 1 ? { skipped: true } : {}),
    attempts: r.attempts,
    updatedAt: r.updated_at,
    ...opt('branch', r.branch),
    ...opt('worktree', r.worktree),
    ...opt('prNumber', r.pr_number),
    ...opt('mergedSha', r.merged_sha),
    ...opt('lastError', r.last_error),
    ...opt('waitReason', r.wait_reason),
    ...opt('bouncedAfter', r.bounced_after),
    ...opt('retriedAfter', r.retried_after),
    ...(r.conflict_resumes ? { conflictResumes: r.conflict_resumes } : {}),
    ...opt('conflictResumeAt', r.conflict_resume_at ?? null),
    ...opt('conflictResumeSentAt', r.conflict_resume_sent_at ?? null),
  };
};

const resultRow = z.object({
  id: z.coerce.number(),
  run_id: z.string(),
  name: z.string(),
  value: z.string(),
  recorded_at: z.string(),
});

export const toRunResult = (raw: unknown): RunResult => {
  const r = resultRow.parse(raw);
  return { id: r.id, runId: r.run_id, name: r.name, value: JSON.parse(r.value), recordedAt: r.recorded_at };
};

export const terminal: RunRecordState[] = runStates.filter(isTerminalRunState);

export type SqliteRunStore = RunStore & { ledger: AttemptLedger };

// SQLite serves one process, so the run lock is an in-process queue per (file, run). It is keyed by
// the file, not the store object, because two stores on one file (intake and runs) must exclude too.
const runLocks = new Map<string, Promise<void>>();
const withKeyLock = async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
  const previous = runLocks.get(key) ?? Promise.resolve();
  let release = (): void => {};
  const mine = new Promise<void>((r) => {
    release = r;
  });
  const tail = previous.then(() => mine);
  runLocks.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (runLocks.get(key) === tail) runLocks.delete(key);
  }
};

export const openSqliteRunStore = (path: string, opts: { now?: () => Date } = {}): SqliteRunStore => {
  const now = (): string => (opts.now?.() ?? new Date()).toISOString();
  const db = openSqliteDatabase(path, 'SQLite run store');
  const lockScope = path === ':memory:' ? randomUUID() : resolve(path);
  const live = `state NOT IN (${terminal.map((s) => `'${s}'`).join(', ')})`;
  /**
   * Statements prepared once per text: a pass reads and writes through them several times, and
   * better-sqlite3 compiles a statement again on every `prepare`. An issue write's UPDATE names the
   * fields its patch holds, a few combinations in all; past the cap the cache starts again.
   */
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string): Database.Statement => {
    let st = statements.get(sql);
    if (st === undefined) {
      if (statements.size >= 256) statements.clear();
      st = db.prepare(sql);
      statements.set(sql, st);
    }
    return st;
  };
  const selectRun = db.prepare('SELECT * FROM runs WHERE id = ?');
  const selectLiveHeads = db.prepare(
    `SELECT ${runHeadColumns} FROM runs WHERE ${live} ORDER BY created_at, id`,
  );
  const selectLive = db.prepare(
    `SELECT * FROM runs WHERE forge = ? AND repo = ? AND milestone_number = ? AND ${live}`,
  );
  const insertRun = db.prepare(
    `INSERT INTO runs (id, forge, installation_id, repo, kind, milestone_number, milestone_title, slug,
       trigger_issue, options, progress, state, integration_branch, created_at, updated_at)
     VALUES (@id, @forge, @installationId, @repo, @kind, @milestoneNumber, @milestoneTitle, @slug,
       @triggerIssue, @options, @progress, @state, @integrationBranch, @at, @at)`,
  );
  const createRun = db.transaction((run: Parameters<RunStore['createRun']>[0]) => {
    const existing = selectLive.get(run.forge, run.repo, run.milestoneNumber);
    if (existing !== undefined) return { created: false as const, live: toRun(existing) };
    insertRun.run({
      ...run,
      installationId: run.installationId ?? null,
      triggerIssue: run.triggerIssue ?? null,
      options: JSON.stringify(run.options),
      progress: JSON.stringify(run.progress ?? {}),
      at: now(),
    });
    return { created: true as const, run: toRun(selectRun.get(run.id)) };
  });
  const selectIssue = db.prepare(
    'SELECT * FROM run_issues WHERE run_id = ? AND issue_repo = ? AND issue_number = ?',
  );
  const insertIssue = db.prepare(
    `INSERT INTO run_issues (run_id, issue_repo, issue_number, state, updated_at)
     VALUES (?, ?, ?, 'ready', ?) ON CONFLICT DO NOTHING`,
  );
  const issueColumns: Record<string, string> = {
    state: 'state',
    branch: 'branch',
    worktree: 'worktree',
    prNumber: 'pr_number',
    reviewPosted: 'review_posted',
    mergedSha: 'merged_sha',
    attempts: 'attempts',
    lastError: 'last_error',
    waitReason: 'wait_reason',
    bouncedAfter: 'bounced_after',
    retriedAfter: 'retried_after',
    skipped: 'skipped',
    conflictResumes: 'conflict_resumes',
    conflictResumeAt: 'conflict_resume_at',
    conflictResumeSentAt: 'conflict_resume_sent_at',
  };
  const upsertIssue = db.transaction(
    (runId: string, repo: string, number: number, patch: Record<string, unknown>, expect?: IssueExpect) => {
      const at = now();
      insertIssue.run(runId, repo, number, at);
      const sets: string[] = ['updated_at = @at'];
      const values: Record<string, unknown> = { at, runId, repo, number };
      for (const [key, value] of Object.entries(patch)) {
        const column = issueColumns[key];
        if (!column) throw new AppError('bad_request', `Unknown run issue field ${key}.`);
        if (key === 'state') assertIssueState(value);
        sets.push(`${column} = @${key}`);
        values[key] = typeof value === 'boolean' ? (value ? 1 : 0) : (value ?? null);
      }
      // With `expect`, compare-and-set in the UPDATE itself; a refusal rolls back the insert above.
      if (expect !== undefined) assertIssueState(expect.state);
      values.expected = expect?.state ?? null;
      const changed = prepared(
        `UPDATE run_issues SET ${sets.join(', ')} WHERE run_id = @runId AND issue_repo = @repo
             AND issue_number = @number AND (@expected IS NULL OR state = @expected)`,
      ).run(values).changes;
      const row = toIssue(selectIssue.get(runId, repo, number));
      if (changed === 0 && expect !== undefined)
        throw new StaleIssueWriteError(runId, repo, number, expect.state, row.state);
      return row;
    },
  );

  return {
    ledger: createSqliteAttemptLedger(db),
    async createRun(run) {
      // IMMEDIATE: the write lock from the start, so a commit by another connection (the intake's
      // writer thread) between the live-run check and the insert cannot fail it (SQLITE_BUSY).
      return createRun.immediate(run);
    },
    async getRun(id) {
      const row = selectRun.get(id);
      return row === undefined ? undefined : toRun(row);
    },
    async liveRun(forge, repo, milestoneNumber) {
      const row = selectLive.get(forge, repo, milestoneNumber);
      return row === undefined ? undefined : toRun(row);
    },
    async listLiveRuns() {
      return prepared(`SELECT * FROM runs WHERE ${live} ORDER BY created_at, id`).all().map(toRun);
    },
    async listLiveRunHeads() {
      return selectLiveHeads.all().map(toRunHead);
    },
    async listRuns(filter = {}) {
      return prepared(
        `SELECT * FROM runs WHERE (@forge IS NULL OR forge = @forge) AND (@repo IS NULL OR repo = @repo)
           ORDER BY created_at, id`,
      )
        .all({ forge: filter.forge ?? null, repo: filter.repo ?? null })
        .map(toRun);
    },
    async updateRun(id, patch, expect) {
      const current = selectRun.get(id);
      if (current === undefined) throw new AppError('not_found', `No run ${id}.`);
      const run = toRun(current);
      if (expect !== undefined && run.version !== expect.version)
        throw new StaleRunWriteError(id, expect.version, run.version);
      const next = { ...run, ...patch };
      // The dashboard comment id alone is a field of its own: it does not count as a version.
      const counts = patch.state !== undefined || patch.progress !== undefined || patch.options !== undefined;
      // The version named is checked again in the UPDATE itself: another connection's write between
      // the read and this one refuses it too.
      const changed = prepared(
        `UPDATE runs SET state = @state, dashboard_comment_id = @dashboard, progress = @progress,
             options = @options, updated_at = @at, version = version + @bump
           WHERE id = @id AND (@expected IS NULL OR version = @expected)`,
      ).run({
        id,
        expected: expect?.version ?? null,
        state: next.state,
        dashboard: next.dashboardCommentId ?? null,
        progress: JSON.stringify(next.progress),
        options: JSON.stringify(next.options),
        at: now(),
        bump: counts ? 1 : 0,
      }).changes;
      const stored = toRun(selectRun.get(id));
      if (changed === 0 && expect !== undefined)
        throw new StaleRunWriteError(id, expect.version, stored.version);
      return stored;
    },
    async recordRunResult(runId, name, value) {
      prepared('INSERT INTO run_results (run_id, name, value, recorded_at) VALUES (?, ?, ?, ?)').run(
        runId,
        name,
        JSON.stringify(value),
        now(),
      );
    },
    async listRunResults(runId) {
      return prepared('SELECT * FROM run_results WHERE run_id = ? ORDER BY id').all(runId).map(toRunResult);
    },
    async dropRunResults(runId, upToId) {
      prepared('DELETE FROM run_results WHERE run_id = ? AND id <= ?').run(runId, upToId);
    },
    async listRunIssues(runId) {
      return prepared('SELECT * FROM run_issues WHERE run_id = ? ORDER BY issue_repo, issue_number')
        .all(runId)
        .map(toIssue);
    },
    async upsertRunIssue(runId, repo, number, patch, expect) {
      return upsertIssue.immediate(runId, repo, number, { ...patch }, expect);
    },
    async listQueuedIntents() {
      return prepared("SELECT * FROM intents WHERE status = 'queued' ORDER BY id").all().map(toIntent);
    },
    async claimIntent(id, status) {
      return (
        prepared("UPDATE intents SET status = ? WHERE id = ? AND status = 'queued'").run(status, id)
          .changes === 1
      );
    },
    async withRunLock(runId, fn) {
      return withKeyLock(`${lockScope}\0${runId}`, fn);
    },
    async close() {
      if (db.open) db.close();
    },
  };
};
