// The RunStore writes that decide work, written against one connection, so they run either in their
// own transaction (postgres-run-store.ts) or inside a caller's transaction together with a pg-boss
// job: no dispatch without its state row, no state row without its job.

import { AppError } from '../errors.ts';
import type { Queryable } from './pg-pool.ts';
import type { StatementBatch } from './pg-statement-batch.ts';
import {
  type RunIssuePatch,
  type RunIssueRecord,
  type RunRecord,
  type RunStore,
  StaleRunWriteError,
} from './run-store.ts';
import { assertIssueState, toIssue, toRun } from './sqlite-run-store.ts';

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

export const claimIntentSql = "UPDATE intents SET status = $1 WHERE id = $2 AND status = 'queued'";

/** One transaction's view: the deciding writes, and raw SQL for what joins them (a queue's insert). */
export interface PostgresRunTransaction {
  updateRun: RunStore['updateRun'];
  upsertRunIssue(runId: string, repo: string, number: number, patch: RunIssuePatch): Promise<RunIssueRecord>;
  claimIntent: RunStore['claimIntent'];
  /** pg-boss's `db` shape (the queue's SqlExecutor), on this transaction's connection. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** In a shared transaction: `executeSql` for one `… RETURNING` statement, batched (pg-statement-batch.ts). */
  executeBatched?(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * The writes on `client`, which the caller has put in a transaction (BEGIN … COMMIT). With `batch`
 * (a shared transaction's), run issue upserts and `executeBatched` statements sent in one turn go out
 * as one statement.
 */
export const runWrites = (
  client: Queryable,
  now: () => string,
  batch?: StatementBatch,
): PostgresRunTransaction => ({
  async updateRun(id, patch, expect) {
    const current = await client.query('SELECT * FROM runs WHERE id = $1 FOR UPDATE', [id]);
    if (current.rows[0] === undefined) throw new AppError('not_found', `No run ${id}.`);
    const run = toRun(current.rows[0]);
    if (expect !== undefined && run.version !== expect.version)
      throw new StaleRunWriteError(id, expect.version, run.version);
    const next: RunRecord = { ...run, ...patch };
    // The dashboard comment id alone is a field of its own: it does not count as a version.
    const counts = patch.state !== undefined || patch.progress !== undefined || patch.options !== undefined;
    const { rows } = await client.query(
      `UPDATE runs SET state = $2, dashboard_comment_id = $3, progress = $4, options = $5, updated_at = $6,
         version = version + $7 WHERE id = $1 RETURNING *`,
      [
        id,
        next.state,
        next.dashboardCommentId ?? null,
        JSON.stringify(next.progress),
        JSON.stringify(next.options),
        now(),
        counts ? 1 : 0,
      ],
    );
    return toRun(rows[0]);
  },
  async upsertRunIssue(runId, repo, number, patch) {
    // One statement: a new row starts `ready` unless the patch says otherwise; an existing one takes
    // only the patched fields.
    const columns = ['run_id', 'issue_repo', 'issue_number', 'updated_at', 'state'];
    const values: unknown[] = [runId, repo, number, now(), 'ready'];
    const sets = ['updated_at = EXCLUDED.updated_at'];
    for (const [key, value] of Object.entries(patch)) {
      const column = issueColumns[key];
      if (!column) throw new AppError('bad_request', `Unknown run issue field ${key}.`);
      if (key === 'state') assertIssueState(value);
      const v = typeof value === 'boolean' ? (value ? 1 : 0) : (value ?? null);
      if (column === 'state') values[4] = v;
      else {
        columns.push(column);
        values.push(v);
      }
      sets.push(`${column} = EXCLUDED.${column}`);
    }
    const text = `INSERT INTO run_issues (${columns.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (run_id, issue_repo, issue_number) DO UPDATE SET ${sets.join(', ')} RETURNING *`;
    // The row is the batch key: a second upsert of it in one turn runs after the first, not beside it.
    const { rows } = batch
      ? await batch.query(text, values, `run_issues\u0000${runId}\u0000${repo}\u0000${number}`)
      : await client.query(text, values);
    return toIssue(rows[0]);
  },
  async claimIntent(id, status) {
    return (await client.query(claimIntentSql, [status, id])).rowCount === 1;
  },
  async executeSql(text, values = []) {
    const { rows } = await client.query(text, values);
    return { rows };
  },
  ...(batch ? { executeBatched: (text: string, values: unknown[] = []) => batch.query(text, values) } : {}),
});
