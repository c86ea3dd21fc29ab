// `blitz-bot status [--json]`: the live runs, read from the database DATABASE_URL names through the
// same reader as `/api/v1/runs?live=true`, so `--json` prints exactly what the API answers.
import { parseArgs } from 'node:util';
import { loadEnv } from '../config/env.ts';
import { isAppError } from '../errors.ts';
import { openRunStore } from '../store/open-store.ts';
import { loadApiRuns } from './api-data.ts';
import type { RunSummary } from './api-schemas.ts';

export const statusUsage = 'usage: blitz-bot status [--json]';

export interface StatusCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** The environment to read DATABASE_URL from; process.env by default (through loadEnv). */
  env?: Record<string, string | undefined>;
}

const defaultIo: StatusCliIo = { out: (t) => console.log(t), err: (t) => console.error(t) };

// Titles come from the tracker: printed on one line, without control characters a terminal would obey.
const printable = (text: string): string => text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').slice(0, 80);

/** One line per run: id, kind, where, title, state, issues done, last change. */
export const formatStatusText = (runs: readonly RunSummary[]): string => {
  if (runs.length === 0) return 'no live runs';
  const rows = runs.map((r) => [
    r.id,
    r.kind,
    `${r.forge}:${r.repo}${r.triggerIssue !== null ? `#${r.triggerIssue}` : ''}`,
    printable(r.title),
    r.state,
    `${r.issues.done}/${r.issues.total} done`,
    r.updatedAt,
  ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return [
    `live runs: ${runs.length}`,
    ...rows.map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    ),
  ].join('\n');
};

/** Returns the exit code: 0 printed, 1 the database could not be read, 2 bad arguments. */
export const runStatusCli = async (args: string[], io: StatusCliIo = defaultIo): Promise<number> => {
  let values: { json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n${statusUsage}`);
    return 2;
  }
  if (values.help) {
    io.out(statusUsage);
    return 0;
  }
  try {
    const env = io.env ? loadEnv(io.env) : loadEnv();
    const runs = await openRunStore(env.DATABASE_URL);
    try {
      const live = await loadApiRuns({ runs, ledger: runs.ledger }, { live: true });
      io.out(values.json ? JSON.stringify({ runs: live }, null, 2) : formatStatusText(live));
      return 0;
    } finally {
      await runs.close();
    }
  } catch (err) {
    io.err(
      isAppError(err) ? err.message : `status failed: ${err instanceof Error ? err.message : String(err)}`,
    );
    return 1;
  }
};
