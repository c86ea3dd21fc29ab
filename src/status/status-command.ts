// `blitz-bot status [--json] [--server URL]`: the live runs, as `/api/v1/runs?live=true` answers:
// fetched from that running bot with STATUS_TOKEN when --server is given, otherwise built from the
// database DATABASE_URL names by the same builder, so `--json` prints exactly what the API answers.
import { parseArgs } from 'node:util';
import { loadEnv } from '../config/env.ts';
import { isAppError } from '../errors.ts';
import { attentionStateWords } from '../plan/state-words.ts';
import { openRunStore } from '../store/open-store.ts';
import { fetchApi } from './api-client.ts';
import { buildRunList } from './api-data.ts';
import { type RunList, type RunSummary, runListSchema } from './api-schemas.ts';
import { configuredPrices } from './configured-prices.ts';

export const statusUsage = 'usage: blitz-bot status [--json] [--server URL (with STATUS_TOKEN)]';

export interface StatusCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** The environment to read DATABASE_URL / STATUS_TOKEN from; process.env by default. */
  env?: Record<string, string | undefined>;
}

const defaultIo: StatusCliIo = { out: (t) => console.log(t), err: (t) => console.error(t) };

// Titles come from the tracker: printed on one line, without control characters a terminal would obey.
const printable = (text: string): string => text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').slice(0, 80);

/** One line per run: id, kind, where, title, state, issues done, cost, last change. */
export const formatStatusText = (runs: readonly RunSummary[]): string => {
  if (runs.length === 0) return 'no live runs';
  const rows = runs.map((r) => [
    r.id,
    r.kind,
    `${r.forge}:${r.repo}${r.triggerIssue !== null ? `#${r.triggerIssue}` : ''}`,
    printable(r.title),
    r.state,
    `${r.issues.done}/${r.issues.total} done`,
    r.cost.usd,
    r.updatedAt,
  ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  // A run waiting for a person says why and what to type, under the table.
  const waiting = runs.flatMap((r) =>
    r.attention
      ? [
          `${r.id} ${attentionStateWords(r.attention.state)}: ${printable(r.attention.reason)} → ${r.attention.command}`,
        ]
      : [],
  );
  return [
    `live runs: ${runs.length}`,
    ...rows.map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    ),
    ...waiting,
  ].join('\n');
};

const localLiveRuns = async (env: Record<string, string | undefined> | undefined): Promise<RunList> => {
  const runs = await openRunStore((env ? loadEnv(env) : loadEnv()).DATABASE_URL);
  try {
    return await buildRunList({ runs, ledger: runs.ledger, prices: configuredPrices(env) }, { live: true });
  } finally {
    await runs.close();
  }
};

/** Returns the exit code: 0 printed, 1 the database could not be read, 2 bad arguments. */
export const runStatusCli = async (args: string[], io: StatusCliIo = defaultIo): Promise<number> => {
  let values: { json?: boolean; server?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        json: { type: 'boolean' },
        server: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
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
    const list = values.server
      ? await fetchApi({
          server: values.server,
          token: (io.env ?? process.env).STATUS_TOKEN,
          path: '/runs',
          query: { live: 'true' },
          schema: runListSchema,
        })
      : await localLiveRuns(io.env);
    io.out(values.json ? JSON.stringify(list, null, 2) : formatStatusText(list.runs));
    return 0;
  } catch (err) {
    io.err(
      isAppError(err) ? err.message : `status failed: ${err instanceof Error ? err.message : String(err)}`,
    );
    return 1;
  }
};
