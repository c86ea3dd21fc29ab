// `blitz-bot stats [--run ID] [--json] [--server URL]`: the API's stats object (GET /api/v1/stats,
// what /stats shows) on the terminal. With --server it is fetched from that running bot with
// STATUS_TOKEN; otherwise it is built from the database DATABASE_URL names, by the same builder.
import { parseArgs } from 'node:util';
import { loadEnv } from '../config/env.ts';
import { isAppError } from '../errors.ts';
import { openRunStore } from '../store/open-store.ts';
import { fetchApi } from './api-client.ts';
import { buildStats } from './api-data.ts';
import { type ApiStats, statsSchema } from './api-schemas.ts';
import { configuredPrices } from './configured-prices.ts';
import { formatStatsText } from './stats.ts';

export const statsUsage = 'usage: blitz-bot stats [--run RUN_ID] [--json] [--server URL (with STATUS_TOKEN)]';

export interface StatsCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** The environment to read DATABASE_URL / STATUS_TOKEN from; process.env by default. */
  env?: Record<string, string | undefined>;
}

const defaultIo: StatsCliIo = { out: (t) => console.log(t), err: (t) => console.error(t) };

/** The stats from the database; undefined when --run names no run there. */
const localStats = async (
  env: Record<string, string | undefined> | undefined,
  runId: string | undefined,
): Promise<ApiStats | undefined> => {
  const runs = await openRunStore((env ? loadEnv(env) : loadEnv()).DATABASE_URL);
  try {
    if (runId && !(await runs.getRun(runId))) return undefined;
    return await buildStats({ runs, ledger: runs.ledger, prices: configuredPrices(env) }, runId);
  } finally {
    await runs.close();
  }
};

/** Returns the exit code: 0 printed, 1 the stats could not be read, 2 bad arguments. */
export const runStatsCli = async (args: string[], io: StatsCliIo = defaultIo): Promise<number> => {
  let values: { run?: string; json?: boolean; server?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        run: { type: 'string' },
        json: { type: 'boolean' },
        server: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
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
    const stats = values.server
      ? await fetchApi({
          server: values.server,
          token: (io.env ?? process.env).STATUS_TOKEN,
          path: '/stats',
          query: { run: values.run },
          schema: statsSchema,
        })
      : await localStats(io.env, values.run);
    if (!stats) {
      io.err(`no run "${values.run}" in the database`);
      return 1;
    }
    // --json prints the object GET /api/v1/stats answers; the text is made from the same object.
    io.out(values.json ? JSON.stringify(stats, null, 2) : formatStatsText(stats));
    return 0;
  } catch (err) {
    io.err(
      isAppError(err) ? err.message : `stats failed: ${err instanceof Error ? err.message : String(err)}`,
    );
    return 1;
  }
};
