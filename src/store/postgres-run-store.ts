// The RunStore (and the attempt ledger) on PostgreSQL, for several bot replicas on one database.
// Same port, tables and row mapping as SQLite (sqlite-run-store.ts). What replicas share is made
// safe here: one live run per milestone by its unique index, a queued intent claimed by one
// conditional UPDATE, read-modify-write under a row lock, and one reconcile per run at a time under
// an advisory lock.
import { AppError } from '../errors.ts';
import type { AttemptLedger } from '../runner/types.ts';
import { type Migration, readMigrations } from './migrate.ts';
import { createGroupTransaction, GROUP_TRANSACTIONS_IN_FLIGHT } from './pg-group-transaction.ts';
import { migratePostgres } from './pg-migrate.ts';
import {
  checkConnection,
  closeOnce,
  createPgPool,
  inTransaction,
  isUniqueViolation,
  type PgOptions,
} from './pg-pool.ts';
import { createPgRunLock } from './pg-run-lock.ts';
import { createStatementBatch } from './pg-statement-batch.ts';
import { createPostgresAttemptLedger } from './postgres-ledger.ts';
import { claimIntentSql, type PostgresRunTransaction, runWrites } from './postgres-run-writes.ts';
import type { RunStore } from './run-store.ts';
import { runHeadColumns, terminal, toIssue, toRun, toRunHead, toRunResult } from './sqlite-run-store.ts';
import { toIntent } from './sqlite-store.ts';

export type PostgresRunStore = RunStore & {
  ledger: AttemptLedger;
  /**
   * Runs `fn` in one transaction: its run writes and whatever it adds through `executeSql` (a pg-boss
   * job via `enqueueInTransaction(tx, …)`) commit together or not at all. Concurrent calls share a
   * transaction (pg-group-transaction.ts), so `fn` may run again alone after a neighbour's failure:
   * it must do nothing but write through `tx`.
   */
  transaction<T>(fn: (tx: PostgresRunTransaction) => Promise<T>): Promise<T>;
};

/** How long a reconcile waits for a connection of the run-lock pool. */
export const LOCK_CONNECTION_WAIT_MS = 120_000;

const live = `state NOT IN (${terminal.map((s) => `'${s}'`).join(', ')})`;

export const openPostgresRunStore = async (
  url: string,
  opts: PgOptions & { now?: () => Date; migrations?: Migration[] } = {},
): Promise<PostgresRunStore> => {
  const now = (): string => (opts.now?.() ?? new Date()).toISOString();
  const pool = createPgPool(url, opts);
  // Lock holders wait on their own connections, so waiting never starves the queries of the holder;
  // with more runs reconciling at once than connections, the next one waits its turn (up to
  // LOCK_CONNECTION_WAIT_MS: past that, or when the server cannot be reached, the pass fails and the
  // next tick tries again; it never waits forever on a store that went away).
  const lockPool = createPgPool(url, {
    ...opts,
    max: opts.max ?? 10,
    connectionTimeoutMs: opts.connectionTimeoutMs ?? LOCK_CONNECTION_WAIT_MS,
  });
  try {
    await checkConnection(pool, url);
    await migratePostgres(pool, opts.migrations ?? readMigrations());
  } catch (err) {
    await Promise.all([pool.end(), lockPool.end()]).catch(() => {});
    throw err instanceof AppError
      ? err
      : new AppError('store_error', 'cannot open the Postgres run store', {}, { cause: err });
  }
  // Concurrent transactions (dispatches) share one, on pipelined connections of their own.
  const txPool = createPgPool(url, { ...opts, max: GROUP_TRANSACTIONS_IN_FLIGHT, pipeline: true });
  const closePool = closeOnce(pool);
  const closeLockPool = closeOnce(lockPool);
  const closeTxPool = closeOnce(txPool);
  const runLock = createPgRunLock(lockPool);
  // The functions of a shared transaction write their rows and jobs as one statement per turn.
  const transaction = createGroupTransaction(txPool, (client) =>
    runWrites(client, now, createStatementBatch(client)),
  );
  const selectLive = `SELECT * FROM runs WHERE forge = $1 AND repo = $2 AND milestone_number = $3 AND ${live}`;

  return {
    ledger: createPostgresAttemptLedger(pool),
    async createRun(run) {
      // The unique index decides between two replicas starting the same milestone; the loop covers
      // the live run finishing between our failed insert and our look-up.
      for (let tries = 0; tries < 3; tries++) {
        const existing = await pool.query(selectLive, [run.forge, run.repo, run.milestoneNumber]);
        if (existing.rows[0] !== undefined) return { created: false as const, live: toRun(existing.rows[0]) };
        try {
          const at = now();
          const inserted = await pool.query(
            `INSERT INTO runs (id, forge, installation_id, repo, kind, milestone_number, milestone_title, slug,
               trigger_issue, options, state, integration_branch, created_at, updated_at, progress)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14)
             ON CONFLICT (forge, repo, milestone_number) WHERE ${live} DO NOTHING RETURNING *`,
            [
              run.id,
              run.forge,
              run.installationId ?? null,
              run.repo,
              run.kind,
              run.milestoneNumber,
              run.milestoneTitle,
              run.slug,
              run.triggerIssue ?? null,
              JSON.stringify(run.options),
              run.state,
              run.integrationBranch,
              at,
              JSON.stringify(run.progress ?? {}),
            ],
          );
          if (inserted.rows[0] !== undefined) return { created: true as const, run: toRun(inserted.rows[0]) };
        } catch (err) {
          if (isUniqueViolation(err)) throw new AppError('conflict', `Run ${run.id} already exists.`);
          throw err;
        }
      }
      throw new AppError('store_error', `Run ${run.id}: the milestone's live run kept changing; try again.`);
    },
    async getRun(id) {
      const { rows } = await pool.query('SELECT * FROM runs WHERE id = $1', [id]);
      return rows[0] === undefined ? undefined : toRun(rows[0]);
    },
    async liveRun(forge, repo, milestoneNumber) {
      const { rows } = await pool.query(selectLive, [forge, repo, milestoneNumber]);
      return rows[0] === undefined ? undefined : toRun(rows[0]);
    },
    async listLiveRuns() {
      const { rows } = await pool.query(`SELECT * FROM runs WHERE ${live} ORDER BY created_at, id`);
      return rows.map(toRun);
    },
    async listLiveRunHeads() {
      const { rows } = await pool.query(
        `SELECT ${runHeadColumns} FROM runs WHERE ${live} ORDER BY created_at, id`,
      );
      return rows.map(toRunHead);
    },
    async listRuns(filter = {}) {
      const { rows } = await pool.query(
        `SELECT * FROM runs WHERE ($1::text IS NULL OR forge = $1) AND ($2::text IS NULL OR repo = $2)
         ORDER BY created_at, id`,
        [filter.forge ?? null, filter.repo ?? null],
      );
      return rows.map(toRun);
    },
    async updateRun(id, patch, expect) {
      return inTransaction(pool, (client) => runWrites(client, now).updateRun(id, patch, expect));
    },
    async recordRunResult(runId, name, value) {
      await pool.query('INSERT INTO run_results (run_id, name, value, recorded_at) VALUES ($1, $2, $3, $4)', [
        runId,
        name,
        JSON.stringify(value),
        now(),
      ]);
    },
    async listRunResults(runId) {
      const { rows } = await pool.query('SELECT * FROM run_results WHERE run_id = $1 ORDER BY id', [runId]);
      return rows.map(toRunResult);
    },
    async dropRunResults(runId, upToId) {
      await pool.query('DELETE FROM run_results WHERE run_id = $1 AND id <= $2', [runId, upToId]);
    },
    async listRunIssues(runId) {
      const { rows } = await pool.query(
        'SELECT * FROM run_issues WHERE run_id = $1 ORDER BY issue_repo, issue_number',
        [runId],
      );
      return rows.map(toIssue);
    },
    async upsertRunIssue(runId, repo, number, patch, expect) {
      // One statement commits alone: no BEGIN and COMMIT round trips around it.
      return runWrites(pool, now).upsertRunIssue(runId, repo, number, patch, expect);
    },
    async listQueuedIntents() {
      const { rows } = await pool.query("SELECT * FROM intents WHERE status = 'queued' ORDER BY id");
      return rows.map(toIntent);
    },
    async claimIntent(id, status) {
      // Under READ COMMITTED a second replica's UPDATE waits for the first, re-reads the row, and
      // finds it no longer queued.
      return (await pool.query(claimIntentSql, [status, id])).rowCount === 1;
    },
    withRunLock: runLock,
    transaction,
    async close() {
      await Promise.all([closePool(), closeLockPool(), closeTxPool()]);
    },
  };
};
