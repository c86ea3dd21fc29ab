// Attempt ledgers: an in-memory one (tests, single process) and a JSON-file one that survives a
// supervisor restart on a single host. The SQLite/Postgres store implements the same port.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import {
  type AttemptLedger,
  type AttemptRecord,
  type IssueRefData,
  OpenAttemptError,
  type TokenTotals,
} from './types.ts';

const sameIssue = (a: IssueRefData, b: IssueRefData): boolean =>
  a.number === b.number && a.repo.owner === b.repo.owner && a.repo.name === b.repo.name;

const sumTokens = (records: AttemptRecord[]): TokenTotals => {
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

export class InMemoryAttemptLedger implements AttemptLedger {
  protected readonly records = new Map<string, AttemptRecord>();

  /** Another open attempt of `r`'s run and issue (the store keeps one with a unique index). */
  private openBeside(r: AttemptRecord): AttemptRecord | undefined {
    for (const o of this.records.values())
      if (o.id !== r.id && o.outcome === undefined && o.runId === r.runId && sameIssue(o.issue, r.issue))
        return o;
    return undefined;
  }

  async create(record: AttemptRecord): Promise<void> {
    if (this.records.has(record.id)) throw new AppError('conflict', `Attempt ${record.id} already exists.`);
    const open = record.outcome === undefined ? this.openBeside(record) : undefined;
    if (open) throw new OpenAttemptError(record.issue, open.id);
    this.records.set(record.id, structuredClone(record));
    this.persist();
  }

  async update(id: string, patch: Partial<Omit<AttemptRecord, 'id'>>): Promise<AttemptRecord> {
    const current = this.records.get(id);
    if (!current) throw new AppError('not_found', `No attempt ${id}.`);
    const next = { ...current, ...structuredClone(patch), id };
    const open =
      current.outcome !== undefined && next.outcome === undefined ? this.openBeside(next) : undefined;
    if (open) throw new OpenAttemptError(next.issue, open.id);
    this.records.set(id, next);
    this.persist();
    return structuredClone(next);
  }

  async get(id: string): Promise<AttemptRecord | undefined> {
    const r = this.records.get(id);
    return r ? structuredClone(r) : undefined;
  }

  async listByRun(runId: string): Promise<AttemptRecord[]> {
    return [...this.records.values()].filter((r) => r.runId === runId).map((r) => structuredClone(r));
  }

  async listByIssue(issue: IssueRefData): Promise<AttemptRecord[]> {
    return [...this.records.values()].filter((r) => sameIssue(r.issue, issue)).map((r) => structuredClone(r));
  }

  async listOpen(): Promise<AttemptRecord[]> {
    return [...this.records.values()].filter((r) => r.outcome === undefined).map((r) => structuredClone(r));
  }

  async totalsByIssue(issue: IssueRefData): Promise<TokenTotals> {
    return sumTokens(await this.listByIssue(issue));
  }

  async totalsByRun(runId: string): Promise<TokenTotals> {
    return sumTokens(await this.listByRun(runId));
  }

  protected persist(): void {}
}

// The file is ours, but it is still outside input: check its shape on the way in.
const fileSchema = z.object({ attempts: z.array(z.looseObject({ id: z.string(), runId: z.string() })) });

/** Ledger kept in one JSON file (written atomically), for a single host without the store. */
export class JsonFileAttemptLedger extends InMemoryAttemptLedger {
  constructor(private readonly file: string) {
    super();
    if (existsSync(file)) {
      const parsed = fileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (!parsed.success) throw new AppError('store_error', `Attempt ledger ${file} is unreadable.`);
      for (const r of parsed.data.attempts) this.records.set(r.id, r as unknown as AttemptRecord);
    }
  }

  protected override persist(): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ attempts: [...this.records.values()] }, null, 1));
    renameSync(tmp, this.file);
  }
}
