// `blitz-bot stats [--run ID] [--json]`: the figures of /stats on the terminal, read from the
// database DATABASE_URL names (the same one the bot serves from).
import { parseArgs } from 'node:util';
import { loadEnv } from '../config/env.ts';
import { isAppError } from '../errors.ts';
import { openRunStore } from '../store/open-store.ts';
import { loadApiStats } from './api-data.ts';
import { formatStatsText } from './stats.ts';
import { loadStats } from './status-data.ts';

export const statsUsage = 'usage: blitz-bot stats [--run RUN_ID] [--json]';

export interface StatsCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** The environment to read DATABASE_URL from; process.env by default (through loadEnv). */
  env?: Record<string, string | undefined>;
}

const defaultIo: StatsCliIo = { out: (t) => console.log(t), err: (t) => console.error(t) };

/** Returns the exit code: 0 printed, 1 the database could not be read, 2 bad arguments. */
export const runStatsCli = async (args: string[], io: StatsCliIo = defaultIo): Promise<number> => {
  let values: { run?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { run: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n${statsUsage}`);
    return 2;
  }
  if (values.help) {
    io.out(statsUsage);
    return 0;
  }
  try {
    const env = io.env ? loadEnv(io.env) : loadEnv();
    const runs = await openRunStore(env.DATABASE_URL);
    try {
      if (values.run && !(await runs.getRun(values.run))) {
        io.err(`no run "${values.run}" in the database`);
        return 1;
      }
      const ports = { runs, ledger: runs.ledger };
      // --json prints what GET /api/v1/stats answers (the same reader and schema).
      if (values.json) io.out(JSON.stringify(await loadApiStats(ports, values.run), null, 2));
      else io.out(formatStatsText(await loadStats(ports, values.run ? { runId: values.run } : {})));
      return 0;
    } finally {
      await runs.close();
    }
  } catch (err) {
    io.err(
      isAppError(err) ? err.message : `stats failed: ${err instanceof Error ? err.message : String(err)}`,
    );
    return 1;
  }
};
