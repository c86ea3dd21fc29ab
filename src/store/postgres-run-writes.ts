// The RunStore writes that decide work, written against one connection, so they run either in their
// own transaction (postgres-run-store.ts) or inside a caller's transaction together with a pg-boss
// job: no dispatch without its state row, no state row without its job.

import { AppError } from '../errors.ts';
import type { Queryable } from './pg-pool.ts';
import type { StatementBatch } from './pg-statement-batch.ts';
import { type RunRecord, type RunStore, StaleIssueWriteError, StaleRunWriteError } from './run-store.ts';
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
  upsertRunIssue: RunStore['upsertRunIssue'];
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
  async upsertRunIssue(runId, repo, number, patch, expect) {
    // One statement: a new row starts `ready` unless the patch says otherwise; an existing one takes
    // only the patched fields (with `expect`, only in the state it names).
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
    // The row is the batch key: a second upsert of it in one turn runs after the first, not beside it.
    const key = `run_issues\u0000${runId}\u0000${repo}\u0000${number}`;
    const send = (text: string, v: unknown[]) => (batch ? batch.query(text, v, key) : client.query(text, v));
    const upsert = (guard: string) =>
      send(
        `INSERT INTO run_issues (${columns.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})
         ON CONFLICT (run_id, issue_repo, issue_number) DO UPDATE SET ${sets.join(', ')}${guard} RETURNING *`,
        values,
      );
    if (expect === undefined) return toIssue((await upsert('')).rows[0]);
    // Compare-and-set in the statement itself (as pg-boss guards a job's move): a missing row counts as
    // `ready`, which it is created as; a stored row changes only in the state named.
    assertIssueState(expect.state);
    let rows: unknown[];
    if (expect.state === 'ready') rows = (await upsert(" WHERE run_issues.state = 'ready'")).rows;
    else {
      // Only the patched columns (and updated_at): the state stays unless the patch names one.
      const keep = columns.map((_, i) => i === 3 || i > 4 || (i === 4 && patch.state !== undefined));
      const cols = columns.filter((_, i) => keep[i]);
      const vals = [runId, repo, number, ...values.filter((_, i) => keep[i]), expect.state];
      rows = (
        await send(
          `UPDATE run_issues SET ${cols.map((c, i) => `${c} = $${i + 4}`).join(', ')}
           WHERE run_id = $1 AND issue_repo = $2 AND issue_number = $3 AND state = $${vals.length} RETURNING *`,
          vals,
        )
      ).rows;
    }
    if (rows[0] !== undefined) return toIssue(rows[0]);
    const stored = await send(
      'SELECT * FROM run_issues WHERE run_id = $1 AND issue_repo = $2 AND issue_number = $3',
      [runId, repo, number],
    );
    const found = stored.rows[0] === undefined ? 'ready' : toIssue(stored.rows[0]).state;
    throw new StaleIssueWriteError(runId, repo, number, expect.state, found);
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
