// What crosses the wire between the bot and a runner agent, checked with zod on both ends: the
// register advert, job references, claimed jobs, and attempt reports (a whole AttemptRecord, so
// applying one twice, or an older one after a newer, changes nothing).
import { z } from 'zod';
import { sessionIdSchema } from '../runner/agent-output.ts';
import { attemptJobSchema, issueRefSchema, outcomeSchema, tierSchema } from '../runner/types.ts';
import { runnerAdvertSchema } from '../store/runner-tokens.ts';

export { runnerAdvertSchema };

export const jobRefSchema = z.object({ queue: z.string().min(1).max(300), id: z.string().min(1).max(100) });

export const claimRequestSchema = z.object({ job: jobRefSchema.optional() }).strict();

export const claimedJobSchema = jobRefSchema.extend({
  payload: z.unknown(),
  retryCount: z.number().int().min(0),
  leaseSeconds: z.number().int().min(1),
});
export type ClaimedJob = z.infer<typeof claimedJobSchema>;

export const claimResponseSchema = z.object({ job: claimedJobSchema.nullable() });

export const registerResponseSchema = z.object({
  runner: z.string(),
  queues: z.array(z.string()),
  heartbeatSeconds: z.number().positive(),
});

export const completeRequestSchema = z.object({ job: jobRefSchema, output: z.unknown().optional() }).strict();
export const failRequestSchema = z.object({ job: jobRefSchema, error: z.string().max(10_000) }).strict();
export const heartbeatRequestSchema = z.object({ job: jobRefSchema }).strict();

const tokens = z.object({ input: z.number(), output: z.number(), cache: z.number().optional() });

export const attemptRecordSchema = z.object({
  id: z.string().min(1).max(100),
  runId: z.string().min(1),
  issue: issueRefSchema,
  rosterEntry: z.string(),
  tool: z.enum(['claude', 'codex', 'opencode', 'aider', 'ollama', 'custom']),
  model: z.string().optional(),
  tier: tierSchema,
  branch: z.string(),
  baseBranch: z.string(),
  repoDir: z.string(),
  worktree: z.string(),
  pid: z.number().int().optional(),
  logPath: z.string(),
  promptPath: z.string(),
  exitPath: z.string(),
  launchedAt: z.string(),
  job: attemptJobSchema,
  argvRedacted: z.array(z.string()),
  originShaAtStart: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  exitCode: z.number().int().optional(),
  outcome: outcomeSchema.optional(),
  nudges: z.number().int().min(0),
  tokens,
  failureSummary: z.string().optional(),
  survived: z.object({ unpushedCommits: z.number(), dirtyFiles: z.number() }).optional(),
  conflictFiles: z.array(z.string()).optional(),
  stallFingerprint: z
    .object({ logSize: z.number(), head: z.string().nullable(), remote: z.string().nullable() })
    .optional(),
  sessionId: sessionIdSchema.optional(),
  finalReport: z
    .object({
      pr: z.string().optional(),
      tests: z.string().optional(),
      review: z.string().optional(),
      status: z.string().optional(),
      uncertainties: z.array(z.string()),
      outOfScopeBugs: z.array(z.string()),
    })
    .optional(),
});

/** The optional fields: a report that lacks one clears it (a resume clears the outcome). */
export const optionalAttemptFields = [
  'model',
  'pid',
  'endedAt',
  'exitCode',
  'outcome',
  'failureSummary',
  'survived',
  'conflictFiles',
  'finalReport',
  'stallFingerprint',
  'sessionId',
] as const;

export const attemptReportSchema = z
  .object({
    /** `started` creates the attempt under a job this runner holds; `progress` updates a known one. */
    kind: z.enum(['started', 'progress']),
    job: jobRefSchema,
    /** Increases with every report of one attempt; a report not above the last applied changes nothing. */
    seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    attempt: attemptRecordSchema,
  })
  .strict();
export type AttemptReport = z.infer<typeof attemptReportSchema>;

export const reportResponseSchema = z.object({ applied: z.boolean() });
