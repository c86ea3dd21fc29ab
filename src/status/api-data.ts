// Builds the JSON API's objects (api-schemas.ts) from the ports (run store, attempt ledger, the last
// dashboard): one builder per resource, each parsing its result with the resource's zod schema.
// `/api/v1` serialises these objects, the HTML status pages render them, and `blitz-bot status` and
// `stats` print them, so a page, the API and the terminal cannot disagree.

import type { DashboardInput } from '../dashboard/types.ts';
import type { ForgeWebLinks } from '../forges/web-links.ts';
import { attemptCost, type Cost, defaultPrices, formatCost, type PriceTable } from '../plan/cost.ts';
import { isTerminalRunState } from '../plan/states.ts';
import type { AttemptLedger, AttemptRecord } from '../runner/types.ts';
import type { RunRecord, RunStore } from '../store/run-store.ts';
import {
  type ApiAttempt,
  type ApiStats,
  attemptSchema,
  type RunDetail,
  type RunList,
  type RunSummary,
  runDetailSchema,
  runListSchema,
  statsSchema,
} from './api-schemas.ts';
import { type AttentionIssue, attentionOf } from './attention.ts';
import { buildRunView, loadRunView, type RunView } from './run-view.ts';
import type { AttemptStats } from './stats.ts';
import { loadStats } from './status-data.ts';

export type ApiPorts = {
  runs: RunStore;
  ledger: AttemptLedger;
  dashboardOf?: (runId: string) => DashboardInput | undefined;
  /** Where the forges show an issue or a PR; absent, the API has no links. */
  links?: ForgeWebLinks;
  /** What prices attempts (plan/cost.ts, the config's `prices:` over the defaults); default the built-in table. */
  prices?: PriceTable;
};

/** The API's cost object: the text every page shows, and the µ$ and unpriced count behind it. */
export const apiCostOf = (c: Cost) => ({ usd: formatCost(c), microUsd: c.micros, unpriced: c.unpriced });

/** The issues' states as the last dashboard drew them (held ones included), else as the rows say. */
const issueStatesOf = (run: RunRecord, rows: readonly AttentionIssue[]): AttentionIssue[] => {
  const lastError = new Map(rows.map((r) => [r.number, r.lastError]));
  const issues = run.progress.graph ?? rows;
  return issues.map((i) => {
    const e = lastError.get(i.number);
    return { number: i.number, state: i.state, ...(e ? { lastError: e } : {}) };
  });
};

export const runSummaryOf = (
  run: RunRecord,
  issues: { done: number; total: number },
  rows: readonly AttentionIssue[],
  cost: Cost,
): RunSummary => ({
  id: run.id,
  kind: run.kind,
  forge: run.forge,
  repo: run.repo,
  title: run.milestoneTitle,
  state: run.state,
  live: !isTerminalRunState(run.state),
  triggerIssue: run.triggerIssue ?? null,
  issues,
  cost: apiCostOf(cost),
  reason: run.progress.reason ?? null,
  attention: attentionOf(run, issueStatesOf(run, rows)),
  createdAt: run.createdAt,
  updatedAt: run.updatedAt,
});

export const apiAttemptOf = (
  a: AttemptRecord,
  n: number,
  prices: PriceTable = defaultPrices,
): ApiAttempt => ({
  n,
  id: a.id,
  issue: { repo: `${a.issue.repo.owner}/${a.issue.repo.name}`, number: a.issue.number, title: a.job.title },
  rosterEntry: a.rosterEntry,
  tool: a.tool,
  model: a.model ?? null,
  tier: a.tier,
  branch: a.branch,
  baseBranch: a.baseBranch,
  host: a.host ?? null,
  startedAt: a.startedAt,
  endedAt: a.endedAt ?? null,
  exitCode: a.exitCode ?? null,
  outcome: a.outcome ?? null,
  nudges: a.nudges,
  tokens: { input: a.tokens.input, output: a.tokens.output },
  cost: apiCostOf(attemptCost(prices, a)),
  failureSummary: a.failureSummary ?? null,
  logExcerpt: a.logExcerpt ?? null,
  permissionDenials: (a.permissionDenials ?? []).map((d) => ({
    tool: d.tool,
    command: d.command ?? null,
    rule: d.rule ?? null,
  })),
});

/**
 * A run's summary from its view: the issue count (`done`/`total`) is the view's, the one count the
 * run's page, its API object, the runs list and `blitz-bot status` all show.
 */
const summaryOfView = (view: RunView): RunSummary =>
  runSummaryOf(view.run, { done: view.done, total: view.total }, view.issues, view.cost);

/** `GET /api/v1/runs`: every run (or the live ones), as the API answers it. */
export const buildRunList = async (ports: ApiPorts, filter: { live?: boolean } = {}): Promise<RunList> => {
  const all = await ports.runs.listRuns();
  const chosen = filter.live ? all.filter((r) => !isTerminalRunState(r.state)) : all;
  const runs = await Promise.all(
    chosen.map(async (run) => {
      const [rows, attempts] = await Promise.all([
        ports.runs.listRunIssues(run.id),
        ports.ledger.listByRun(run.id),
      ]);
      const dashboard = ports.dashboardOf?.(run.id);
      return summaryOfView(
        buildRunView({
          run,
          rows,
          attempts,
          ...(dashboard ? { dashboard } : {}),
          ...(ports.prices ? { prices: ports.prices } : {}),
        }),
      );
    }),
  );
  return runListSchema.parse({ runs });
};

export const runDetailOf = (view: RunView, links?: ForgeWebLinks): RunDetail => {
  const nOf = new Map(view.attempts.map((a, i) => [a.id, i + 1]));
  const web = links?.(view.run.forge, view.run.repo);
  const build = view.run.progress.build;
  return runDetailSchema.parse({
    run: summaryOfView(view),
    integrationBranch: view.run.integrationBranch,
    build: build ? { status: build.status, covers: build.covers, failures: build.failures } : null,
    issues: view.issues.map((i) => ({
      number: i.number,
      title: i.title ?? null,
      state: i.state,
      epic: i.epic,
      url: web?.issue(i.number) ?? null,
      pr: i.prNumber ?? null,
      prUrl: i.prNumber !== undefined && web ? web.pull(i.prNumber) : null,
      mergedSha: i.mergedSha ?? null,
      lastError: i.lastError ?? null,
      waiting: i.waitReason ?? null,
      conflictTries: i.conflictResumes ?? 0,
      blockedBy: i.blockedBy,
      attempts: i.attempts.map((a) => nOf.get(a.id) ?? 0).filter((n) => n > 0),
      tokens: i.tokens,
      cost: apiCostOf(i.cost),
    })),
    waves: view.layers.map((issues, k) => ({ wave: k + 1, issues })),
    currentWave: view.run.progress.wave ?? 0,
    attempts: view.attempts.map((a, i) => ({
      ...apiAttemptOf(a, i + 1),
      cost: apiCostOf(view.costs.get(a.id) ?? attemptCost(defaultPrices, a)),
    })),
    notifyFailures: view.run.progress.notifyFailures ?? [],
  });
};

/**
 * `GET /api/v1/runs/{id}` with the ledger's records beside it (index n-1 is attempt n), for the
 * pages that also read an attempt's prompt and log files, which the API never names.
 */
export const buildRunResource = async (
  ports: ApiPorts,
  runId: string,
): Promise<{ detail: RunDetail; records: AttemptRecord[] } | undefined> => {
  const view = await loadRunView(ports, runId);
  return view ? { detail: runDetailOf(view, ports.links), records: view.attempts } : undefined;
};

/** `GET /api/v1/runs/{id}`: one run with its issues, waves and attempts; undefined: no such run. */
export const buildRunDetail = async (ports: ApiPorts, runId: string): Promise<RunDetail | undefined> =>
  (await buildRunResource(ports, runId))?.detail;

/**
 * `GET /api/v1/runs/{id}/attempts/{n}`: undefined when there is no such run; `attempt` undefined
 * when the run has no attempt n. `record` is the ledger's row (log and prompt paths) for the page.
 */
export const buildAttempt = async (
  ports: ApiPorts,
  runId: string,
  n: number,
): Promise<{ attempt?: ApiAttempt; record?: AttemptRecord } | undefined> => {
  if (!(await ports.runs.getRun(runId))) return undefined;
  const record = Number.isInteger(n) && n >= 1 ? (await ports.ledger.listByRun(runId))[n - 1] : undefined;
  return record ? { attempt: attemptSchema.parse(apiAttemptOf(record, n, ports.prices)), record } : {};
};

/** The API's shape of computed statistics (null where the figures leave a value out). */
export const apiStatsOf = (s: AttemptStats): ApiStats =>
  statsSchema.parse({
    attempts: s.attempts,
    byOutcome: s.byOutcome,
    tokens: { input: s.tokens.input, output: s.tokens.output, cache: s.tokens.cache ?? 0 },
    cost: apiCostOf(s.cost),
    rows: s.rows.map((r) => ({ ...r, passRate: r.passRate ?? null, cost: apiCostOf(r.cost) })),
    waiting: s.waiting.map((w) => ({ ...w, title: w.title ?? null })),
  });

/** `GET /api/v1/stats`: attempt statistics over every run, or over one. */
export const buildStats = async (ports: ApiPorts, runId?: string): Promise<ApiStats> =>
  apiStatsOf(await loadStats(ports, runId ? { runId } : {}));
