// The provider budget probe of a run (seed 000 §1.5): the operator's command (runner/budget-command.ts)
// asked before each wave is dispatched, its answer kept on the run; a probe that fails or is not
// configured is said so on the dashboard, and the run goes one worker at a time (plan/budget.ts).
import type { ProbeAnswer } from '../plan/budget.ts';
import { runBudgetProbe } from '../runner/budget-command.ts';
import type { RunStore } from '../store/run-store.ts';
import { writeProgress } from './run-writer.ts';

export type ProbeResult = ProbeAnswer;

/** Keeps the probe's answer on the run for the dashboard (written only when it changed). */
const recordBudget = async (
  store: Pick<RunStore, 'getRun' | 'updateRun'>,
  runId: string,
  value: ProbeResult,
): Promise<void> => {
  if (!(await store.getRun(runId))) return;
  await writeProgress(store, runId, (p) =>
    JSON.stringify(p.budget) === JSON.stringify(value) ? undefined : { budget: value },
  );
};

/**
 * The probe's answer for a run, recorded on it (the dashboard reads it there). `fresh` asks the probe
 * now: a blitz wave about to be dispatched never uses a stale answer; otherwise an answer up to a
 * minute old serves (fleet and plan passes run often).
 */
export type BudgetProbe = (runId: string, opts?: { fresh?: boolean }) => Promise<ProbeResult>;

export const budgetTtlMs = 60_000;

/** The probe as composed: the operator's `budget:` argv, run in the workspace with the base environment. */
export const configuredBudgetProbe =
  (
    config: { budget?: readonly string[] | undefined; runner: { workspace: string } },
    env: Record<string, string>,
  ) =>
  (): Promise<ProbeResult> =>
    runBudgetProbe(config.budget, { cwd: config.runner.workspace, env });

export const createBudgetProbe = (deps: {
  budgetProbe: () => Promise<ProbeResult>;
  store: Pick<RunStore, 'getRun' | 'updateRun'>;
  clock: { now(): Date };
}): BudgetProbe => {
  const cache = new Map<string, { at: number; value: ProbeResult }>();
  return async (runId, opts) => {
    const hit = cache.get(runId);
    const now = deps.clock.now().getTime();
    if (!opts?.fresh && hit && now - hit.at < budgetTtlMs) return hit.value;
    const value = await deps.budgetProbe();
    cache.set(runId, { at: now, value });
    await recordBudget(deps.store, runId, value);
    return value;
  };
};
