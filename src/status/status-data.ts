// Reads what the pages need from the ports: run summaries for the index, stats over every run.
// Kept apart from the routes so `blitz-bot stats` reads exactly what `/stats` shows.
import type { AttemptLedger, AttemptRecord } from '../runner/types.ts';
import type { RunIssueRecord, RunStore } from '../store/run-store.ts';
import type { RunSummary } from './runs-page.ts';
import { type AttemptStats, computeStats } from './stats.ts';

const finished: ReadonlySet<string> = new Set(['merged', 'closed']);

export const loadRunSummaries = async (runs: RunStore): Promise<RunSummary[]> => {
  const all = await runs.listRuns();
  return Promise.all(
    all.map(async (run) => {
      const rows = await runs.listRunIssues(run.id);
      return { run, done: rows.filter((r) => finished.has(r.state)).length, total: rows.length };
    }),
  );
};

export const loadStats = async (
  deps: { runs: RunStore; ledger: AttemptLedger },
  filter: { runId?: string } = {},
): Promise<AttemptStats> => {
  const runs = (await deps.runs.listRuns()).filter((r) => !filter.runId || r.id === filter.runId);
  const attempts: AttemptRecord[] = [];
  const issues: RunIssueRecord[] = [];
  for (const run of runs) {
    attempts.push(...(await deps.ledger.listByRun(run.id)));
    issues.push(...(await deps.runs.listRunIssues(run.id)));
  }
  return computeStats({ attempts, issues });
};
