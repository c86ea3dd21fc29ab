// A blitz or plan run's options as the run keeps them (start-run.ts and start-plan-run.ts write them):
// JSON read back from the store, so parsed here with zod, once, when a pass loads the run
// (run-repo.ts), and typed from the schema after. A fleet's options have their own (fleet-state.ts).
import { z } from 'zod';
import type { RunRecord } from '../store/run-store.ts';
import { tools } from './routing.ts';

export const runOptionsSchema = z.object({
  /** The most workers at once (`--max`, else the repo's or the operator's maxSessions). */
  maxSessions: z.number(),
  /** `--dry-run`: the run shows its plan and starts nothing (absent: no, as the planner read it). */
  dryRun: z.boolean().default(false),
  /** `--tool` / `--model` for this run. */
  override: z.object({ tool: z.enum(tools).optional(), model: z.string().optional() }).optional(),
  /** `--deploy` / `--local` on the command; wins over the repo's policy. */
  shipOverride: z.enum(['deploy', 'local']).optional(),
  /** The repo config's `ship.policy` when the run started. */
  shipPolicy: z.enum(['auto', 'deploy', 'local']).optional(),
  /** `--require-checks`: ship only what a configured check ran green on. */
  requireChecks: z.boolean().optional(),
  /** plan-blitz: waves to run. */
  maxWaves: z.number().optional(),
  /** Consecutive failed builds before the run stops blocked. */
  maxBuildAttempts: z.number().optional(),
  /** Failed attempts on one issue before it is held for a person. */
  maxAttemptsPerIssue: z.number().optional(),
  /** Who started the run (for the dashboard and notices). */
  sender: z.string().optional(),
});
export type RunOptionsStored = z.infer<typeof runOptionsSchema>;

/** The run's options, parsed; throws on options no start wrote (the pass fails, and is tried again). */
export const runOptionsOf = (run: Pick<RunRecord, 'options'>): RunOptionsStored =>
  runOptionsSchema.parse(run.options);
