// What the API's run object (api-data.ts; the run page and the report render it) holds about one
// run, read from the ports: the run and its issue rows (store), its attempts (ledger), and the
// titles and edges of the orchestrator's last published dashboard. Without a dashboard (a restart
// since), the graph kept in the run's progress stands in, and it keeps a closed issue's edges. Store rows win over the dashboard for state: they are written
// on every transition.
import {
  type DashboardInput,
  type DashboardIssue,
  type DashboardIssueState,
  dashboardIssueStates,
} from '../dashboard/types.ts';
import { attemptCost, type Cost, defaultPrices, type PriceTable, sumCosts } from '../plan/cost.ts';
import type { AttemptLedger, AttemptRecord } from '../runner/types.ts';
import type { RunRecord, RunStore } from '../store/run-store.ts';

export interface RunViewIssue {
  number: number;
  title?: string;
  state: DashboardIssueState;
  epic: boolean;
  prNumber?: number;
  mergedSha?: string;
  lastError?: string;
  /** Why it waits in its state: the last action on it that failed (runs/wait-reason.ts). */
  waitReason?: string;
  /** Merge conflicts sent back to its session this pass (plan/merge-conflict.ts). */
  conflictResumes?: number;
  blockedBy: number[];
  attempts: AttemptRecord[];
  tokens: number;
  /** The sum of its attempts' costs (`costs`). */
  cost: Cost;
}

export interface RunView {
  run: RunRecord;
  issues: RunViewIssue[];
  /** All attempts, oldest first; `n` on the attempt page is the 1-based index into this list. */
  attempts: AttemptRecord[];
  /** Each attempt's cost, by attempt id: the issue's and the run's are their sums. */
  costs: ReadonlyMap<string, Cost>;
  /** What every attempt of the run cost. */
  cost: Cost;
  /** Issues layered by dependency depth: layer k can start once layers before it are done. */
  layers: number[][];
  done: number;
  total: number;
}

const knownStates: ReadonlySet<string> = new Set(dashboardIssueStates);
const finishedStates: ReadonlySet<string> = new Set(['merged', 'closed']);

const isIssueState = (s: string | undefined): s is DashboardIssueState =>
  s !== undefined && knownStates.has(s);

/** Longest blocker chain per issue; edges into a cycle are cut where they would loop. */
export const dependencyLayers = (issues: readonly { number: number; blockedBy: number[] }[]): number[][] => {
  const byNumber = new Map(issues.map((i) => [i.number, i]));
  const depth = new Map<number, number>();
  const visiting = new Set<number>();
  const depthOf = (n: number): number => {
    const known = depth.get(n);
    if (known !== undefined) return known;
    if (visiting.has(n)) return 0;
    visiting.add(n);
    const blockers = (byNumber.get(n)?.blockedBy ?? []).filter((b) => byNumber.has(b) && b !== n);
    const d = blockers.length === 0 ? 0 : 1 + Math.max(...blockers.map(depthOf));
    visiting.delete(n);
    depth.set(n, d);
    return d;
  };
  const layers: number[][] = [];
  for (const i of [...issues].sort((a, b) => a.number - b.number)) {
    const d = depthOf(i.number);
    const layer = layers[d] ?? [];
    layer.push(i.number);
    layers[d] = layer;
  }
  return layers.filter((l) => l !== undefined);
};

export const buildRunView = (input: {
  run: RunRecord;
  rows: Awaited<ReturnType<RunStore['listRunIssues']>>;
  attempts: AttemptRecord[];
  dashboard?: DashboardInput;
  /** What prices the attempts (plan/cost.ts); default the built-in table. */
  prices?: PriceTable;
}): RunView => {
  const { run } = input;
  const prices = input.prices ?? defaultPrices;
  const costs = new Map(input.attempts.map((a) => [a.id, attemptCost(prices, a)]));
  const fromDashboard = new Map<number, DashboardIssue>();
  for (const i of input.dashboard?.issues ?? []) fromDashboard.set(i.number, i);
  // After a restart no dashboard has been published yet: the graph kept in the run's progress stands in.
  if (!input.dashboard)
    for (const g of run.progress.graph ?? [])
      fromDashboard.set(g.number, {
        number: g.number,
        title: g.title,
        state: isIssueState(g.state) ? g.state : 'blocked',
        ...(g.epic ? { epic: true } : {}),
        attempts: 0,
        blockedBy: g.blockedBy,
      });
  // A dashboard draws closed issues without edges; the graph kept in progress still has them.
  const keptEdges = new Map((run.progress.graph ?? []).map((g) => [g.number, g.blockedBy]));
  const numbers = new Set<number>([...fromDashboard.keys()]);
  for (const r of input.rows) if (r.repo === run.repo) numbers.add(r.number);
  const attemptsOf = new Map<number, AttemptRecord[]>();
  for (const a of input.attempts) {
    if (`${a.issue.repo.owner}/${a.issue.repo.name}` !== run.repo) continue;
    numbers.add(a.issue.number);
    attemptsOf.set(a.issue.number, [...(attemptsOf.get(a.issue.number) ?? []), a]);
  }
  const rowOf = new Map(input.rows.filter((r) => r.repo === run.repo).map((r) => [r.number, r]));
  const issues: RunViewIssue[] = [...numbers]
    .sort((a, b) => a - b)
    .map((number) => {
      const row = rowOf.get(number);
      const dash = fromDashboard.get(number);
      const attempts = attemptsOf.get(number) ?? [];
      const title = dash?.title ?? attempts.at(-1)?.job.title;
      return {
        number,
        ...(title !== undefined ? { title } : {}),
        state: isIssueState(row?.state) ? row.state : (dash?.state ?? 'blocked'),
        epic: dash?.epic === true,
        ...(row?.prNumber !== undefined
          ? { prNumber: row.prNumber }
          : dash?.prNumber
            ? { prNumber: dash.prNumber }
            : {}),
        ...(row?.mergedSha ? { mergedSha: row.mergedSha } : {}),
        ...(row?.lastError ? { lastError: row.lastError } : {}),
        ...(row?.waitReason ? { waitReason: row.waitReason } : {}),
        ...(row?.conflictResumes ? { conflictResumes: row.conflictResumes } : {}),
        blockedBy: dash?.blockedBy.length ? dash.blockedBy : (keptEdges.get(number) ?? dash?.blockedBy ?? []),
        attempts,
        tokens: attempts.reduce((n, a) => n + a.tokens.input + a.tokens.output, 0),
        cost: sumCosts(attempts.map((a) => costs.get(a.id)!)),
      };
    });
  return {
    run,
    issues,
    attempts: input.attempts,
    costs,
    cost: sumCosts(costs.values()),
    layers: dependencyLayers(issues),
    done: issues.filter((i) => finishedStates.has(i.state)).length,
    total: issues.length,
  };
};

/** Reads the run, its rows and attempts; undefined when there is no such run. */
export const loadRunView = async (
  deps: {
    runs: RunStore;
    ledger: AttemptLedger;
    dashboardOf?: (runId: string) => DashboardInput | undefined;
    prices?: PriceTable;
  },
  runId: string,
): Promise<RunView | undefined> => {
  const run = await deps.runs.getRun(runId);
  if (!run) return undefined;
  const [rows, attempts] = await Promise.all([deps.runs.listRunIssues(runId), deps.ledger.listByRun(runId)]);
  const dashboard = deps.dashboardOf?.(runId);
  return buildRunView({
    run,
    rows,
    attempts,
    ...(dashboard ? { dashboard } : {}),
    ...(deps.prices ? { prices: deps.prices } : {}),
  });
};
