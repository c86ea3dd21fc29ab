// The provider budget probe (seed 000 §1.5): the operator's `budget: [argv]` prints JSON
// {recommendedMaxSessions, preferMedium, park}. Run before each wave is dispatched; a probe that fails or
// is not configured is said so on the dashboard, and the run goes one worker at a time (plan/budget.ts).
import { z } from 'zod';
import type { ProbeAnswer } from '../plan/budget.ts';
import { run } from '../runner/exec.ts';
import type { RunStore } from '../store/run-store.ts';
import { writeProgress } from './run-writer.ts';

const probeOutput = z.object({
  recommendedMaxSessions: z.number().int().min(0).nullable(),
  preferMedium: z.boolean().default(false),
  park: z.boolean().default(false),
  /** When the provider's limit lifts (ISO 8601), if the probe knows: a budget park waits for it. */
  resetAt: z.iso.datetime({ offset: true }).optional(),
});

export type ProbeResult = ProbeAnswer;

export const runBudgetProbe = async (
  argv: readonly string[] | undefined,
  opts: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<ProbeResult> => {
  if (!argv || argv.length === 0) return { status: 'absent' };
  try {
    const res = await run(argv, { cwd: opts.cwd, env: opts.env, timeoutMs: opts.timeoutMs ?? 30_000 });
    if (res.exitCode !== 0) return { status: 'failed', error: `the probe exited with ${res.exitCode}` };
    const parsed = probeOutput.safeParse(JSON.parse(res.stdout));
    if (!parsed.success) return { status: 'failed', error: 'the probe printed JSON of an unexpected shape' };
    const d = parsed.data;
    return {
      status: 'ok',
      // Unknown usage is one-worker pressure (seed 000).
      recommendedMaxSessions: d.recommendedMaxSessions ?? 1,
      preferMedium: d.preferMedium,
      park: d.park,
      ...(d.resetAt ? { resetAt: new Date(d.resetAt).toISOString() } : {}),
    };
  } catch (err) {
    const why = err instanceof SyntaxError ? 'the probe did not print JSON' : String((err as Error).message);
    return { status: 'failed', error: why };
  }
};

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
