// The runner registry over the SQLite file (its own connection, WAL, like the run store).
import { z } from 'zod';
import { AppError } from '../errors.ts';
import {
  type AttemptReceipt,
  newRunnerToken,
  parseRunnerToken,
  type RunnerAdvert,
  type RunnerRegistry,
  type RunnerTokenInfo,
  runnerAdvertSchema,
  secretMatches,
} from './runner-tokens.ts';
import { openSqliteDatabase, opt } from './sqlite-open.ts';

const tokenRow = z.object({
  id: z.string(),
  name: z.string(),
  token_hash: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  advert: z.string().nullable(),
  last_seen_at: z.string().nullable(),
  lost_at: z.string().nullable().optional(),
  clock_skew_ms: z.coerce.number().nullable().optional(),
});

const receiptRow = z.object({
  attempt_id: z.string(),
  run_id: z.string(),
  issue_repo: z.string(),
  issue_number: z.number(),
  job_queue: z.string(),
  job_id: z.string(),
  runner_name: z.string(),
  last_seq: z.number(),
});

export const toInfo = (raw: unknown): RunnerTokenInfo & { hash: string } => {
  const r = tokenRow.parse(raw);
  const advert: RunnerAdvert | undefined = r.advert
    ? runnerAdvertSchema.parse(JSON.parse(r.advert))
    : undefined;
  return {
    id: r.id,
    name: r.name,
    hash: r.token_hash,
    createdAt: r.created_at,
    ...opt('revokedAt', r.revoked_at),
    ...opt('lastSeenAt', r.last_seen_at),
    ...opt('lostAt', r.lost_at ?? null),
    ...opt('clockSkewMs', r.clock_skew_ms ?? null),
    ...(advert ? { advert } : {}),
  };
};

export const publicInfo = ({ hash: _hash, ...info }: RunnerTokenInfo & { hash: string }): RunnerTokenInfo =>
  info;

export const toReceipt = (raw: unknown): AttemptReceipt => {
  const r = receiptRow.parse(raw);
  return {
    attemptId: r.attempt_id,
    runId: r.run_id,
    issueRepo: r.issue_repo,
    issueNumber: r.issue_number,
    jobQueue: r.job_queue,
    jobId: r.job_id,
    runnerName: r.runner_name,
    lastSeq: r.last_seq,
  };
};

export const openSqliteRunnerRegistry = (path: string, opts: { now?: () => Date } = {}): RunnerRegistry => {
  const now = (): string => (opts.now?.() ?? new Date()).toISOString();
  const db = openSqliteDatabase(path, 'runner registry');
  const insertToken = db.prepare(
    'INSERT INTO runner_tokens (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)',
  );
  const liveByName = db.prepare('SELECT * FROM runner_tokens WHERE name = ? AND revoked_at IS NULL');
  const byId = db.prepare('SELECT * FROM runner_tokens WHERE id = ?');
  const revoke = db.prepare('UPDATE runner_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL');
  const all = db.prepare('SELECT * FROM runner_tokens ORDER BY created_at, name');
  const setAdvert = db.prepare('UPDATE runner_tokens SET advert = ?, last_seen_at = ? WHERE id = ?');
  const setSeen = db.prepare(
    'UPDATE runner_tokens SET last_seen_at = ?, lost_at = NULL, clock_skew_ms = COALESCE(?, clock_skew_ms) WHERE id = ?',
  );
  const setLost = db.prepare(
    `UPDATE runner_tokens SET lost_at = ?
      WHERE revoked_at IS NULL AND lost_at IS NULL AND last_seen_at IS NOT NULL AND last_seen_at < ?
      RETURNING *`,
  );
  const receipt = db.prepare('SELECT * FROM runner_reports WHERE attempt_id = ?');
  const receiptsByJob = db.prepare(
    'SELECT * FROM runner_reports WHERE job_queue = ? AND job_id = ? ORDER BY attempt_id',
  );
  const upsertReceipt = db.prepare(
    `INSERT INTO runner_reports (attempt_id, run_id, issue_repo, issue_number, job_queue, job_id, runner_name, last_seq, updated_at)
     VALUES (@attemptId, @runId, @issueRepo, @issueNumber, @jobQueue, @jobId, @runnerName, @lastSeq, @at)
     ON CONFLICT (attempt_id) DO UPDATE SET last_seq = MAX(last_seq, excluded.last_seq), updated_at = excluded.updated_at`,
  );

  return {
    async createToken(name) {
      if (!/^[\w.-]{1,64}$/.test(name)) {
        throw new AppError(
          'bad_request',
          `Runner name "${name}": use 1–64 letters, digits, ".", "_" or "-".`,
        );
      }
      if (liveByName.get(name) !== undefined) {
        throw new AppError('conflict', `Runner ${name} already has a live token; revoke it first.`);
      }
      const t = newRunnerToken();
      insertToken.run(t.id, name, t.hash, now());
      return { info: publicInfo(toInfo(byId.get(t.id))), token: t.token };
    },
    async revokeToken(name) {
      return revoke.run(now(), name).changes > 0;
    },
    async listTokens() {
      return all.all().map((r) => publicInfo(toInfo(r)));
    },
    async authenticate(token) {
      const parsed = parseRunnerToken(token);
      if (!parsed) return undefined;
      const row = byId.get(parsed.id);
      if (row === undefined) return undefined;
      const info = toInfo(row);
      if (!secretMatches(parsed.secret, info.hash) || info.revokedAt) return undefined;
      return publicInfo(info);
    },
    async advertise(id, advert, at) {
      setAdvert.run(JSON.stringify(advert), at, id);
    },
    async seen(id, at, clockSkewMs) {
      setSeen.run(at, clockSkewMs === undefined ? null : Math.round(clockSkewMs), id);
    },
    async markLost(cutoff, at) {
      return setLost.all(at, cutoff).map((r) => publicInfo(toInfo(r)));
    },
    async getReceipt(attemptId) {
      const row = receipt.get(attemptId);
      return row === undefined ? undefined : toReceipt(row);
    },
    async listReceiptsByJob(jobQueue, jobId) {
      return receiptsByJob.all(jobQueue, jobId).map(toReceipt);
    },
    async saveReceipt(r, at) {
      upsertReceipt.run({ ...r, at });
    },
    async close() {
      db.close();
    },
  };
};
