// Reads the attempts and issue rows the statistics are computed from (over every run, or one);
// api-data.ts turns the result into the API's stats object that `/stats` and `blitz-bot stats` show.
import type { PriceTable } from '../plan/cost.ts';
import type { AttemptLedger, AttemptRecord } from '../runner/types.ts';
import type { RunIssueRecord, RunStore } from '../store/run-store.ts';
import { type AttemptStats, computeStats } from './stats.ts';

export const loadStats = async (
  deps: { runs: RunStore; ledger: AttemptLedger; prices?: PriceTable },
  filter: { runId?: string } = {},
): Promise<AttemptStats> => {
  const runs = (await deps.runs.listRuns()).filter((r) => !filter.runId || r.id === filter.runId);
  const attempts: AttemptRecord[] = [];
  const issues: RunIssueRecord[] = [];
  for (const run of runs) {
    attempts.push(...(await deps.ledger.listByRun(run.id)));
    issues.push(...(await deps.runs.listRunIssues(run.id)));
  }
  return computeStats({ attempts, issues, ...(deps.prices ? { prices: deps.prices } : {}) });
};
