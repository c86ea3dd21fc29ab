// What crosses the wire between the bot and a runner agent, checked with zod on both ends: the
// register advert, job references, claimed jobs, and attempt reports. A report carries an attempt's
// results only (applying one twice, or an older one after a newer, changes nothing); every request
// schema is strict, so a key the bot does not know is refused rather than ignored.
import { z } from 'zod';
import { modelNameSchema, sessionIdSchema } from '../runner/agent-output.ts';
import { type AttemptRecord, failureCauseSchema, outcomeSchema, repoRefSchema } from '../runner/types.ts';
import { runnerAdvertSchema } from '../store/runner-tokens.ts';

export { runnerAdvertSchema };

export const jobRefSchema = z
  .object({ queue: z.string().min(1).max(300), id: z.string().min(1).max(100) })
  .strict();

const sha = z.string().regex(/^[0-9a-f]{7,64}$/, 'must be a commit sha');

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

/** Why a runner started nothing for a job it claimed: its issue already has an open attempt. */
export const refusalReasonSchema = z.enum(['open_attempt']);
export type RefusalReason = z.infer<typeof refusalReasonSchema>;
/**
 * A job the runner refused: one worker per issue, and the issue's attempt is open (a job delivered
 * again after its issue was dispatched anew). Not a failure: the bot completes the job, no retry.
 */
export const refuseRequestSchema = z.object({ job: jobRefSchema, reason: refusalReasonSchema }).strict();

const tokens = z
  .object({
    input: z.number(),
    output: z.number(),
    cache: z.number().optional(),
    cacheWrite: z.number().optional(),
  })
  .strict();

/** What the bot keeps of a reported log excerpt: its last characters. */
export const LOG_EXCERPT_CHARS = 4000;
/** A longer excerpt is refused with the report (400): a runner sends at most LOG_EXCERPT_CHARS. */
export const LOG_EXCERPT_MAX_REPORTED = 64_000;

/**
 * What a runner may say about an attempt: its results. Never a command, roster entry, clone URL, path
 * or pid: the bot takes those from the job it stored itself, and a key it does not know is refused.
 * `id`, `runId` and `issue` only name the attempt; the hub checks them against the job the runner holds.
 */
export const attemptResultSchema = z
  .object({
    id: z.string().min(1).max(100),
    runId: z.string().min(1),
    issue: z.object({ repo: repoRefSchema.strict(), number: z.number().int().positive() }).strict(),
    /** Which retry of the job this attempt is (informational: the bot keeps the count in its own job). */
    retry: z.number().int().min(0).max(100),
    launchedAt: z.string().max(100),
    startedAt: z.string().max(100),
    endedAt: z.string().max(100).optional(),
    /** The branch's sha on origin when the attempt started. */
    originShaAtStart: sha.nullable(),
    exitCode: z.number().int().optional(),
    outcome: outcomeSchema.optional(),
    nudges: z.number().int().min(0),
    tokens,
    failureSummary: z.string().optional(),
    /**
     * Why an environment failure ended the attempt, as the runner's own classification typed it: a kind
     * or cause outside the closed sets, or a reset time that is not an ISO instant, refuses the report.
     * The planner bounds how far ahead a reset time may move a park (plan/environment-park.ts).
     */
    failureCause: failureCauseSchema.optional(),
    /** The tail of the worker's log for a failed attempt (the hub keeps its last LOG_EXCERPT_CHARS). */
    logExcerpt: z.string().max(LOG_EXCERPT_MAX_REPORTED).optional(),
    survived: z.object({ unpushedCommits: z.number(), dirtyFiles: z.number() }).strict().optional(),
    conflictFiles: z.array(z.string().max(1000)).max(1000).optional(),
    feedbackResumes: z.number().int().min(0).max(10_000).optional(),
    stallFingerprint: z
      .object({
        logSize: z.number(),
        head: sha.nullable(),
        remote: sha.nullable(),
        cpuMs: z.number().min(0).optional(),
        commands: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
    sessionId: sessionIdSchema.optional(),
    /** The model the tool said it ran; the bot keeps it only for a roster entry that names none. */
    model: modelNameSchema.optional(),
    permissionDenials: z
      .array(
        z
          .object({
            tool: z.string().max(200),
            command: z.string().max(300).optional(),
            rule: z.string().max(200).optional(),
          })
          .strict(),
      )
      .max(20)
      .optional(),
    finalReport: z
      .object({
        pr: z.string().optional(),
        tests: z.string().optional(),
        review: z.string().optional(),
        status: z.string().optional(),
        uncertainties: z.array(z.string()),
        outOfScopeBugs: z.array(z.string()),
      })
      .strict()
      .optional(),
  })
  .strict();
export type AttemptResult = z.infer<typeof attemptResultSchema>;

/** The result fields a report sets; an optional one it lacks is cleared (a resume clears the outcome). */
export const attemptResultFields = [
  'launchedAt',
  'startedAt',
  'endedAt',
  'originShaAtStart',
  'exitCode',
  'outcome',
  'nudges',
  'tokens',
  'failureSummary',
  'failureCause',
  'logExcerpt',
  'survived',
  'conflictFiles',
  'feedbackResumes',
  'stallFingerprint',
  'finalReport',
  'sessionId',
  'permissionDenials',
] as const satisfies readonly (keyof AttemptResult & keyof AttemptRecord)[];

/** The results of a runner's own attempt record, as its reports carry them. */
export const attemptResultOf = (r: AttemptRecord): AttemptResult => {
  const out: Record<string, unknown> = { id: r.id, runId: r.runId, issue: r.issue, retry: r.job.retry };
  for (const k of attemptResultFields) if (r[k] !== undefined) out[k] = r[k];
  if (r.model !== undefined && r.job.entry.model === undefined) out.model = r.model;
  return out as AttemptResult;
};

export const attemptReportSchema = z
  .object({
    /** `started` creates the attempt under a job this runner holds; `progress` updates a known one. */
    kind: z.enum(['started', 'progress']),
    job: jobRefSchema,
    /** Increases with every report of one attempt; a report not above the last applied changes nothing. */
    seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    attempt: attemptResultSchema,
  })
  .strict();
export type AttemptReport = z.infer<typeof attemptReportSchema>;

export const reportResponseSchema = z.object({ applied: z.boolean() });
