// Runs the operator's budget probe (`budget: [argv]` in blitz.config.yml, seed 000 §1.5) through the
// exec choke point and reads what it prints: JSON {recommendedMaxSessions, preferMedium, park, resetAt}.
// An absent, failing or malformed probe is an answer too (plan/budget.ts: one worker at a time).
import { z } from 'zod';
import type { ProbeAnswer } from '../plan/budget.ts';
import { run } from './exec.ts';

const probeOutput = z.object({
  recommendedMaxSessions: z.number().int().min(0).nullable(),
  preferMedium: z.boolean().default(false),
  park: z.boolean().default(false),
  /** When the provider's limit lifts (ISO 8601), if the probe knows: a budget park waits for it. */
  resetAt: z.iso.datetime({ offset: true }).optional(),
});

export const runBudgetProbe = async (
  argv: readonly string[] | undefined,
  opts: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<ProbeAnswer> => {
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
