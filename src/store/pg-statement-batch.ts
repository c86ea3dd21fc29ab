// Statements that the functions of one shared transaction (pg-group-transaction.ts) send in the same
// turn of the event loop go out as ONE statement: each becomes a data-modifying CTE of it
// (`WITH s0 AS (INSERT … RETURNING …), s1 AS (…) SELECT …`). N dispatches then cost one message, one
// parse and one execution on the server instead of two each (their run issue upsert and their
// pg-boss job insert). All of a statement's CTEs see one snapshot and none sees another's rows, so
// a statement whose `key` (the row it writes) is already in the batch starts the next batch, sent
// right behind it on the same connection and so run after it, as one call after the other would.
// Only the program's own texts come here (never text from outside): INSERT, UPDATE or DELETE with
// RETURNING, or SELECT, whose only `$` are its parameters. Each caller's rows come back as JSON
// values (`to_jsonb` of the row): text, numbers, booleans and JSON read exactly as pg reads them;
// a statement returning a timestamp or bytea column must not be batched.
// A batch goes out in statements of at most MAX_PER_STATEMENT, each a named (prepared) statement:
// the server parses and plans each shape once per connection instead of on every batch, which was
// most of what a dispatch cost its backend (a 64-dispatch batch was one 190 KB statement, planned
// anew each time). The pieces are written one behind the other on the same connection, so they run
// in order, as the key split below already does (a piece sees the rows of the pieces before it, never
// those of its own); in a shared transaction one refused piece fails it.
// The combined statement always answers (s int, r jsonb), so a column added to a table by a later
// migration never changes a prepared statement's result type.
import { createHash } from 'node:crypto';
import type { Queryable } from './pg-pool.ts';

/** Most statements in one combined statement: few shapes to prepare, each small. */
export const MAX_PER_STATEMENT = 8;
/** Most combined texts given a name by this process; a text beyond them goes out unnamed. */
const MAX_NAMED = 128;

export interface StatementBatch {
  /** Runs `text` with the others sent in this turn; resolves with its own RETURNING rows. */
  query(text: string, values: readonly unknown[], key?: string): Promise<{ rows: Record<string, unknown>[] }>;
}

interface Pending {
  text: string;
  values: readonly unknown[];
  resolve: (r: { rows: Record<string, unknown>[] }) => void;
  reject: (err: unknown) => void;
}

/** `$n` shifted by `by`: the statement's parameters after those of the statements before it. */
const shift = (text: string, by: number): string =>
  text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);

/** One statement for the batch; each CTE's rows tagged with its position. */
export const combinedStatement = (
  batch: readonly Pick<Pending, 'text' | 'values'>[],
): { text: string; values: unknown[] } => {
  const values: unknown[] = [];
  const ctes: string[] = [];
  const selects: string[] = [];
  for (const [i, p] of batch.entries()) {
    ctes.push(`s${i} AS (${shift(p.text, values.length)})`);
    selects.push(`SELECT ${i} AS s, to_jsonb(s${i}) AS r FROM s${i}`);
    values.push(...p.values);
  }
  return { text: `WITH ${ctes.join(',\n')}\n${selects.join('\nUNION ALL ')}`, values };
};

/** The prepared statement name of each combined text seen (by its hash), up to MAX_NAMED texts. */
const names = new Map<string, string>();
const nameOf = (text: string): string | undefined => {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `blitz-batch-${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    names.set(text, name);
  }
  return name;
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** A row of the combined statement: which statement it answers, and its row. */
const taggedRow = (raw: unknown): { s: number; r: Record<string, unknown> } => {
  if (!isRecord(raw) || typeof raw.s !== 'number' || !isRecord(raw.r))
    throw new Error('a batched statement answered an unexpected row');
  return { s: raw.s, r: raw.r };
};

/** A batch on `client` (a pipelined connection in a transaction); flushed once per turn. */
export const createStatementBatch = (client: Queryable): StatementBatch => {
  // Batches waiting for the end of this turn, in order; the last one takes new statements.
  let batches: Pending[][] = [[]];
  let keys = new Set<string>();
  let scheduled = false;

  const send = async (batch: Pending[]): Promise<void> => {
    const { text, values } = combinedStatement(batch);
    try {
      const name = nameOf(text);
      const result = await client.query(name === undefined ? { text, values } : { name, text, values });
      const rows: Record<string, unknown>[][] = batch.map(() => []);
      for (const raw of result.rows) {
        const { s, r } = taggedRow(raw);
        rows[s]?.push(r);
      }
      for (const [i, p] of batch.entries()) p.resolve({ rows: rows[i]! });
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  };

  const flush = (): void => {
    scheduled = false;
    const ready = batches.filter((b) => b.length > 0);
    batches = [[]];
    keys = new Set();
    // Written one behind the other without waiting: the connection runs them in this order.
    for (const batch of ready)
      for (let i = 0; i < batch.length; i += MAX_PER_STATEMENT)
        void send(batch.slice(i, i + MAX_PER_STATEMENT));
  };

  return {
    query(text, values, key) {
      return new Promise((resolve, reject) => {
        if (/\$(?!\d)/.test(text)) {
          reject(new Error('a statement with a $ that is not a parameter cannot be batched'));
          return;
        }
        if (key !== undefined && keys.has(key)) {
          batches.push([]);
          keys = new Set();
        }
        if (key !== undefined) keys.add(key);
        batches[batches.length - 1]!.push({ text, values, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
};
