// Reads what the JSON API serves from the ports (run store, attempt ledger, the last dashboard) and
// maps it to the API's shapes (api-schemas.ts). One reader for `/api/v1` and `blitz-bot status`, so
// the terminal prints exactly what the API answers.

import type { DashboardInput } from '../orchestrator/dashboard-types.ts';
import { isTerminalRunState } from '../plan/states.ts';
import type { AttemptLedger, AttemptRecord } from '../runner/types.ts';
import type { RunRecord, RunStore } from '../store/run-store.ts';
import type { ApiAttempt, ApiStats, RunDetail, RunSummary } from './api-schemas.ts';
import { loadRunView, type RunView } from './run-view.ts';
import { loadStats } from './status-data.ts';

type Ports = { runs: RunStore; ledger: AttemptLedger };

const finished: ReadonlySet<string> = new Set(['merged', 'closed']);

export const runSummaryOf = (run: RunRecord, issues: { done: number; total: number }): RunSummary => ({
  id: run.id,
  kind: run.kind,
  forge: run.forge,
  repo: run.repo,
  title: run.milestoneTitle,
  state: run.state,
  live: !isTerminalRunState(run.state),
  triggerIssue: run.triggerIssue ?? null,
  issues,
  reason: run.progress.reason ?? null,
  createdAt: run.createdAt,
  updatedAt: run.updatedAt,
});

export const apiAttemptOf = (a: AttemptRecord, n: number): ApiAttempt => ({
  n,
  id: a.id,
  issue: { repo: `${a.issue.repo.owner}/${a.issue.repo.name}`, number: a.issue.number },
  rosterEntry: a.rosterEntry,
  tool: a.tool,
  model: a.model ?? null,
  tier: a.tier,
  branch: a.branch,
  host: a.host ?? null,
  startedAt: a.startedAt,
  endedAt: a.endedAt ?? null,
  exitCode: a.exitCode ?? null,
  outcome: a.outcome ?? null,
  nudges: a.nudges,
  tokens: { input: a.tokens.input, output: a.tokens.output },
  failureSummary: a.failureSummary ?? null,
});

export const loadApiRuns = async (ports: Ports, filter: { live?: boolean } = {}): Promise<RunSummary[]> => {
  const all = await ports.runs.listRuns();
  const chosen = filter.live ? all.filter((r) => !isTerminalRunState(r.state)) : all;
  return Promise.all(
    chosen.map(async (run) => {
      const rows = await ports.runs.listRunIssues(run.id);
      return runSummaryOf(run, {
        done: rows.filter((r) => finished.has(r.state)).length,
        total: rows.length,
      });
    }),
  );
};

export const runDetailOf = (view: RunView): RunDetail => {
  const nOf = new Map(view.attempts.map((a, i) => [a.id, i + 1]));
  return {
    run: runSummaryOf(view.run, { done: view.done, total: view.total }),
    issues: view.issues.map((i) => ({
      number: i.number,
      title: i.title ?? null,
      state: i.state,
      epic: i.epic,
      pr: i.prNumber ?? null,
      mergedSha: i.mergedSha ?? null,
      lastError: i.lastError ?? null,
      blockedBy: i.blockedBy,
      attempts: i.attempts.map((a) => nOf.get(a.id) ?? 0).filter((n) => n > 0),
      tokens: i.tokens,
    })),
    waves: view.layers.map((issues, k) => ({ wave: k + 1, issues })),
    currentWave: view.run.progress.wave ?? 0,
    attempts: view.attempts.map((a, i) => apiAttemptOf(a, i + 1)),
    notifyFailures: view.run.progress.notifyFailures ?? [],
  };
};

export const loadRunDetail = async (
  ports: Ports & { dashboardOf?: (runId: string) => DashboardInput | undefined },
  runId: string,
): Promise<RunDetail | undefined> => {
  const view = await loadRunView(ports, runId);
  return view ? runDetailOf(view) : undefined;
};

export const loadApiStats = async (ports: Ports, runId?: string): Promise<ApiStats> => {
  const s = await loadStats(ports, runId ? { runId } : {});
  return {
    attempts: s.attempts,
    byOutcome: s.byOutcome,
    tokens: { input: s.tokens.input, output: s.tokens.output },
    rows: s.rows.map((r) => ({ ...r, passRate: r.passRate ?? null })),
    waiting: s.waiting.map((w) => ({ ...w, title: w.title ?? null })),
  };
};
