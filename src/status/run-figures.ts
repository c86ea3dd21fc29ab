// The run and attempt figures /metrics shows, read from the stores on scrape (metrics.setRunFigures):
// runs by state, attempts by outcome class and tool, worker seconds and tokens by tool. Counting from
// the stores keeps the figures right across restarts and replicas, where in-process counters would not.
import type { RunFigures } from '../observability/metrics.ts';
import type { AttemptLedger } from '../runner/types.ts';
import type { RunStore } from '../store/run-store.ts';

export const runFigures = async (deps: {
  runs: RunStore;
  ledger: AttemptLedger;
  now?: () => Date;
}): Promise<RunFigures> => {
  const now = (deps.now ?? (() => new Date()))().getTime();
  const runs = await deps.runs.listRuns();
  const runsByState: Record<string, number> = {};
  const attempts = new Map<string, { outcome: string; tool: string; count: number }>();
  const seconds = new Map<string, number>();
  const tokens = new Map<string, { tool: string; kind: 'input' | 'output' | 'cache'; count: number }>();
  const addTokens = (tool: string, kind: 'input' | 'output' | 'cache', n: number) => {
    const t = tokens.get(`${tool} ${kind}`) ?? { tool, kind, count: 0 };
    t.count += n;
    tokens.set(`${tool} ${kind}`, t);
  };
  for (const run of runs) {
    runsByState[run.state] = (runsByState[run.state] ?? 0) + 1;
    for (const a of await deps.ledger.listByRun(run.id)) {
      const outcome = a.outcome ?? 'running';
      const key = `${outcome} ${a.tool}`;
      const entry = attempts.get(key) ?? { outcome, tool: a.tool, count: 0 };
      entry.count++;
      attempts.set(key, entry);
      const end = a.endedAt ? Date.parse(a.endedAt) : now;
      const took = Math.max(0, (end - Date.parse(a.startedAt)) / 1000);
      if (Number.isFinite(took)) seconds.set(a.tool, (seconds.get(a.tool) ?? 0) + took);
      addTokens(a.tool, 'input', a.tokens.input);
      addTokens(a.tool, 'output', a.tokens.output);
      addTokens(a.tool, 'cache', a.tokens.cache ?? 0);
    }
  }
  return {
    runsByState,
    attempts: [...attempts.values()],
    workerSeconds: [...seconds].map(([tool, s]) => ({ tool, seconds: s })),
    tokens: [...tokens.values()],
  };
};
