// The runner's AttemptLedger over SQLite: one row per attempt with the whole record as JSON and the
// columns the queries need (run, issue, open). Survives a bot restart, so a new orchestrator over the
// same file re-attaches the workers the old one started.
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import {
  type AttemptLedger,
  type AttemptRecord,
  type IssueRefData,
  OpenAttemptError,
  type TokenTotals,
} from '../runner/types.ts';

// Our own JSON, but it crossed a disk: check the fields the queries rely on. Loose at every level,
// with no default or transform, so what the schema passes it returns as read.
const recordShape = z.looseObject({
  id: z.string(),
  runId: z.string(),
  issue: z.looseObject({
    repo: z.looseObject({ owner: z.string(), name: z.string() }),
    number: z.number(),
  }),
  tokens: z.looseObject({
    input: z.number(),
    output: z.number(),
    cache: z.number().optional(),
    cacheWrite: z.number().optional(),
  }),
});

/**
 * Per attempt, the last record text the schema passed: every pass reads each attempt of its run, and
 * an ended attempt's text never changes, so the same text read again is parsed as JSON only (each
 * read its own object). Past the cap the list starts again.
 */
const checkedRecords = new Map<string, string>();
const CHECKED_RECORDS = 20_000;

export const toRecord = (raw: unknown): AttemptRecord => {
  const text = String(raw);
  const json: unknown = JSON.parse(text);
  const id = (json as { id?: unknown } | null)?.id;
  if (typeof id === 'string' && checkedRecords.get(id) === text) return json as AttemptRecord;
  const parsed = recordShape.safeParse(json);
  if (!parsed.success) throw new AppError('store_error', 'An attempt row in the store is unreadable.');
  if (checkedRecords.size >= CHECKED_RECORDS) checkedRecords.clear();
  checkedRecords.set(parsed.data.id, text);
  return parsed.data as unknown as AttemptRecord;
};

export const repoOf = (i: IssueRefData): string => `${i.repo.owner}/${i.repo.name}`;

export const sumTokens = (records: AttemptRecord[]): TokenTotals => {
  // An environment failure is the host's fault: neither the issue nor the model is charged for it.
  const charged = records.filter((r) => r.outcome !== 'environment_failure');
  const totals: TokenTotals = { input: 0, output: 0, cache: 0, attempts: charged.length };
  for (const r of charged) {
    totals.input += r.tokens.input;
    totals.output += r.tokens.output;
    totals.cache = (totals.cache ?? 0) + (r.tokens.cache ?? 0);
  }
  return totals;
};

export const createSqliteAttemptLedger = (db: Database.Database): AttemptLedger => {
  const insert = db.prepare(
    `INSERT INTO attempts (id, run_id, issue_repo, issue_number, open, started_at, record)
     VALUES (@id, @runId, @repo, @number, @open, @startedAt, @record)`,
  );
  const select = db.prepare('SELECT record FROM attempts WHERE id = ?').pluck();
  const write = db.prepare('UPDATE attempts SET open = @open, record = @record WHERE id = @id');
  const byRun = db.prepare('SELECT record FROM attempts WHERE run_id = ? ORDER BY rowid').pluck();
  const byIssue = db
    .prepare('SELECT record FROM attempts WHERE issue_repo = ? AND issue_number = ? ORDER BY rowid')
    .pluck();
  const open = db.prepare('SELECT record FROM attempts WHERE open = 1 ORDER BY rowid').pluck();
  const openOfIssue = db
    .prepare('SELECT id FROM attempts WHERE run_id = ? AND issue_repo = ? AND issue_number = ? AND open = 1')
    .pluck();
  // The unique index of migration 090 refused a second open attempt of one run and issue.
  const oneOpenRefusal = (cause: unknown, r: AttemptRecord): OpenAttemptError | undefined => {
    const refused =
      cause instanceof Error &&
      (cause as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE' &&
      cause.message.includes('attempts.run_id');
    if (!refused) return undefined;
    const open = openOfIssue.get(r.runId, repoOf(r.issue), r.issue.number);
    return new OpenAttemptError(r.issue, typeof open === 'string' ? open : undefined);
  };

  const update = db.transaction((id: string, patch: Partial<Omit<AttemptRecord, 'id'>>): AttemptRecord => {
    const text = select.get(id);
    if (text === undefined) throw new AppError('not_found', `No attempt ${id}.`);
    // A key present with `undefined` clears the field, as in the in-memory ledger (a resume clears the outcome).
    const next = { ...toRecord(text), ...patch, id } as AttemptRecord;
    const record = JSON.stringify(next);
    try {
      write.run({ id, open: next.outcome === undefined ? 1 : 0, record });
    } catch (cause) {
      throw oneOpenRefusal(cause, next) ?? cause;
    }
    return toRecord(record);
  });

  return {
    async create(r) {
      try {
        insert.run({
          id: r.id,
          runId: r.runId,
          repo: repoOf(r.issue),
          number: r.issue.number,
          open: r.outcome === undefined ? 1 : 0,
          startedAt: r.startedAt,
          record: JSON.stringify(r),
        });
      } catch (cause) {
        if (select.get(r.id) !== undefined) throw new AppError('conflict', `Attempt ${r.id} already exists.`);
        const refusal = oneOpenRefusal(cause, r);
        if (refusal) throw refusal;
        throw new AppError('store_error', `Attempt ${r.id} could not be stored.`, {}, { cause });
      }
    },
    async update(id, patch) {
      // IMMEDIATE: a read, then a write; another connection's commit in between would fail it.
      return update.immediate(id, patch);
    },
    async get(id) {
      const text = select.get(id);
      return text === undefined ? undefined : toRecord(text);
    },
    async listByRun(runId) {
      return byRun.all(runId).map(toRecord);
    },
    async listByIssue(issue) {
      return byIssue.all(repoOf(issue), issue.number).map(toRecord);
    },
    async listOpen() {
      return open.all().map(toRecord);
    },
    async totalsByIssue(issue) {
      return sumTokens(byIssue.all(repoOf(issue), issue.number).map(toRecord));
    },
    async totalsByRun(runId) {
      return sumTokens(byRun.all(runId).map(toRecord));
    },
  };
};
