// The runner registry (runner-tokens.ts) on PostgreSQL: the tables of migration 010, read back through
// the SQLite engine's row checks (runner-tokens-sqlite.ts). Two replicas creating a token for one
// name at once: the partial unique index lets one in and the other gets `conflict`.
import { AppError } from '../errors.ts';
import { type Migration, readMigrations } from './migrate.ts';
import { migratePostgres } from './pg-migrate.ts';
import { checkConnection, closeOnce, createPgPool, isUniqueViolation, type PgOptions } from './pg-pool.ts';
import { newRunnerToken, parseRunnerToken, type RunnerRegistry, secretMatches } from './runner-tokens.ts';
import { publicInfo, toInfo, toReceipt } from './runner-tokens-sqlite.ts';

const runnerName = /^[\w.-]{1,64}$/;

export const openPostgresRunnerRegistry = async (
  url: string,
  opts: PgOptions & { now?: () => Date; migrations?: Migration[] } = {},
): Promise<RunnerRegistry> => {
  const now = (): string => (opts.now?.() ?? new Date()).toISOString();
  const pool = createPgPool(url, { ...opts, max: opts.max ?? 4 });
  try {
    await checkConnection(pool, url);
    await migratePostgres(pool, opts.migrations ?? readMigrations());
  } catch (err) {
    await pool.end().catch(() => {});
    throw err instanceof AppError
      ? err
      : new AppError('store_error', 'cannot open the Postgres runner registry', {}, { cause: err });
  }
  const conflict = (name: string) =>
    new AppError('conflict', `Runner ${name} already has a live token; revoke it first.`);

  return {
    async createToken(name) {
      if (!runnerName.test(name)) {
        throw new AppError(
          'bad_request',
          `Runner name "${name}": use 1–64 letters, digits, ".", "_" or "-".`,
        );
      }
      const t = newRunnerToken();
      try {
        const { rows } = await pool.query(
          'INSERT INTO runner_tokens (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4) RETURNING *',
          [t.id, name, t.hash, now()],
        );
        return { info: publicInfo(toInfo(rows[0])), token: t.token };
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict(name);
        throw err;
      }
    },
    async revokeToken(name) {
      const { rowCount } = await pool.query(
        'UPDATE runner_tokens SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL',
        [now(), name],
      );
      return (rowCount ?? 0) > 0;
    },
    async listTokens() {
      const { rows } = await pool.query('SELECT * FROM runner_tokens ORDER BY created_at, name');
      return rows.map((r) => publicInfo(toInfo(r)));
    },
    async authenticate(token) {
      const parsed = parseRunnerToken(token);
      if (!parsed) return undefined;
      const { rows } = await pool.query('SELECT * FROM runner_tokens WHERE id = $1', [parsed.id]);
      if (rows[0] === undefined) return undefined;
      const info = toInfo(rows[0]);
      if (!secretMatches(parsed.secret, info.hash) || info.revokedAt) return undefined;
      return publicInfo(info);
    },
    async advertise(id, advert, at) {
      await pool.query('UPDATE runner_tokens SET advert = $1, last_seen_at = $2 WHERE id = $3', [
        JSON.stringify(advert),
        at,
        id,
      ]);
    },
    async seen(id, at, clockSkewMs) {
      await pool.query(
        'UPDATE runner_tokens SET last_seen_at = $1, lost_at = NULL, clock_skew_ms = COALESCE($2, clock_skew_ms) WHERE id = $3',
        [at, clockSkewMs === undefined ? null : Math.round(clockSkewMs), id],
      );
    },
    async markLost(cutoff, at) {
      // Under READ COMMITTED a second replica's UPDATE re-checks `lost_at IS NULL` on the row the
      // first one wrote, and skips it: each lost runner is returned once.
      const { rows } = await pool.query(
        `UPDATE runner_tokens SET lost_at = $1
          WHERE revoked_at IS NULL AND lost_at IS NULL AND last_seen_at IS NOT NULL AND last_seen_at < $2
          RETURNING *`,
        [at, cutoff],
      );
      return rows.map((r) => publicInfo(toInfo(r)));
    },
    async getReceipt(attemptId) {
      const { rows } = await pool.query('SELECT * FROM runner_reports WHERE attempt_id = $1', [attemptId]);
      return rows[0] === undefined ? undefined : toReceipt(rows[0]);
    },
    async listReceiptsByJob(jobQueue, jobId) {
      const { rows } = await pool.query(
        'SELECT * FROM runner_reports WHERE job_queue = $1 AND job_id = $2 ORDER BY attempt_id',
        [jobQueue, jobId],
      );
      return rows.map(toReceipt);
    },
    async saveReceipt(r, at) {
      await pool.query(
        `INSERT INTO runner_reports (attempt_id, run_id, issue_repo, issue_number, job_queue, job_id, runner_name,
           last_seq, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (attempt_id) DO UPDATE SET last_seq = GREATEST(runner_reports.last_seq, excluded.last_seq),
           updated_at = excluded.updated_at`,
        [r.attemptId, r.runId, r.issueRepo, r.issueNumber, r.jobQueue, r.jobId, r.runnerName, r.lastSeq, at],
      );
    },
    close: closeOnce(pool),
  };
};
