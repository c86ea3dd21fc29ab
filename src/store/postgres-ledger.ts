// The runner's AttemptLedger on Postgres: the `attempts` table of migration 003, one row per attempt
// with the record as JSON, read back through the SQLite ledger's checks (sqlite-ledger.ts). Updates
// lock the row, so two replicas patching one attempt do not lose each other's fields.
import type pg from 'pg';
import { AppError } from '../errors.ts';
import { type AttemptLedger, type AttemptRecord, OpenAttemptError } from '../runner/types.ts';
import { inTransaction } from './pg-pool.ts';
import { repoOf, sumTokens, toRecord } from './sqlite-ledger.ts';

// Postgres has no rowid: attempts list in the order they started, the id breaking ties.
const order = 'ORDER BY started_at, id';

export const createPostgresAttemptLedger = (pool: pg.Pool): AttemptLedger => {
  const records = async (sql: string, params: unknown[]): Promise<AttemptRecord[]> => {
    const { rows } = await pool.query<{ record: string }>(sql, params);
    return rows.map((r) => toRecord(r.record));
  };
  const byRun = (runId: string) => records(`SELECT record FROM attempts WHERE run_id = $1 ${order}`, [runId]);
  const byIssue = (issue: AttemptRecord['issue']) =>
    records(`SELECT record FROM attempts WHERE issue_repo = $1 AND issue_number = $2 ${order}`, [
      repoOf(issue),
      issue.number,
    ]);

  // The unique index of migration 090 refused a second open attempt of one run and issue.
  const oneOpenRefusal = async (cause: unknown, r: AttemptRecord): Promise<OpenAttemptError | undefined> => {
    const e = cause as { code?: unknown; constraint?: unknown } | undefined;
    if (e?.code !== '23505' || e.constraint !== 'attempts_one_open') return undefined;
    const { rows } = await pool.query<{ id: string }>(
      'SELECT id FROM attempts WHERE run_id = $1 AND issue_repo = $2 AND issue_number = $3 AND open = 1',
      [r.runId, repoOf(r.issue), r.issue.number],
    );
    return new OpenAttemptError(r.issue, rows[0]?.id);
  };

  return {
    async create(r) {
      const { rowCount } = await pool
        .query(
          `INSERT INTO attempts (id, run_id, issue_repo, issue_number, open, started_at, record)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
          [
            r.id,
            r.runId,
            repoOf(r.issue),
            r.issue.number,
            r.outcome === undefined ? 1 : 0,
            r.startedAt,
            JSON.stringify(r),
          ],
        )
        .catch(async (cause: unknown) => {
          throw (await oneOpenRefusal(cause, r)) ?? cause;
        });
      if (rowCount !== 1) throw new AppError('conflict', `Attempt ${r.id} already exists.`);
    },
    async update(id, patch) {
      let next: AttemptRecord | undefined;
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ record: string }>(
          'SELECT record FROM attempts WHERE id = $1 FOR UPDATE',
          [id],
        );
        if (rows[0] === undefined) throw new AppError('not_found', `No attempt ${id}.`);
        // A key present with `undefined` clears the field, as in the other ledgers (a resume clears the outcome).
        next = { ...toRecord(rows[0].record), ...patch, id } as AttemptRecord;
        const record = JSON.stringify(next);
        await client.query('UPDATE attempts SET open = $2, record = $3 WHERE id = $1', [
          id,
          next.outcome === undefined ? 1 : 0,
          record,
        ]);
        return toRecord(record);
      }).catch(async (cause: unknown) => {
        throw (next && (await oneOpenRefusal(cause, next))) ?? cause;
      });
    },
    async get(id) {
      const [r] = await records('SELECT record FROM attempts WHERE id = $1', [id]);
      return r;
    },
    listByRun: byRun,
    listByIssue: byIssue,
    async listOpen() {
      return records(`SELECT record FROM attempts WHERE open = 1 ${order}`, []);
    },
    async totalsByIssue(issue) {
      return sumTokens(await byIssue(issue));
    },
    async totalsByRun(runId) {
      return sumTokens(await byRun(runId));
    },
  };
};
