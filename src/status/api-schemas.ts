// The JSON API's response bodies (`/api/v1`), as zod schemas: the routes parse what they send with
// them, and the OpenAPI document at /api/v1/openapi.json is generated from them, so the document
// cannot drift from what is served. Only facts a status page shows: no paths on disk, pids or argv.
import { z } from '@hono/zod-openapi';
import { runStates } from '../plan/states.ts';
import { attentionStates } from './attention.ts';

export const errorSchema = z
  .object({ error: z.string(), message: z.string() })
  .openapi('Error', { description: 'A refusal: a code and a sentence.' });

const runKind = z.enum(['blitz', 'fleet', 'plan']);
const runState = z.enum(runStates);
const outcome = z.enum(['solved', 'unsolved', 'environment_failure', 'stalled', 'cancelled']);
const tier = z.enum(['execution', 'design', 'subtle']);
const tokens = z.object({ input: z.int().min(0), output: z.int().min(0) });

/** What attempts cost in money (plan/cost.ts): never a number made up for a model without a price. */
const cost = z
  .object({
    usd: z.string().openapi({
      description:
        'In dollars: "unknown price" when no attempt had a price, "$0.42 + unknown price" when some had none',
      example: '$0.42',
    }),
    microUsd: z.int().min(0).openapi({ description: 'What had a price, in millionths of a dollar' }),
    unpriced: z.int().min(0).openapi({
      description: 'Attempts whose model (or one kind of their tokens) the price table does not price',
    }),
  })
  .openapi('Cost');

export const runSummarySchema = z
  .object({
    id: z.string().openapi({ example: '1a2b3c4d' }),
    kind: runKind,
    forge: z.enum(['github', 'gitea']),
    repo: z.string().openapi({ example: 'acme/shop' }),
    title: z.string().openapi({ description: 'The milestone, or the fleet', example: 'M1 checkout' }),
    state: runState,
    live: z.boolean().openapi({ description: 'Not done or cancelled' }),
    triggerIssue: z.int().nullable().openapi({ description: 'Where the dashboard comment lives' }),
    issues: z.object({ done: z.int().min(0), total: z.int().min(0) }),
    cost: cost.openapi({ description: "What the run's attempts cost" }),
    reason: z.string().nullable().openapi({ description: 'Why the run stopped, in words' }),
    attention: z
      .object({
        state: z.enum(attentionStates),
        reason: z.string().openapi({ description: 'Why, in one sentence' }),
        command: z
          .string()
          .openapi({ description: 'What a writer types to go on', example: '/blitz retry #12' }),
      })
      .nullable()
      .openapi({ description: 'The named state the run waits in for a person; null when it needs nobody' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('RunSummary');

export const runListSchema = z.object({ runs: z.array(runSummarySchema) }).openapi('RunList');

export const attemptSchema = z
  .object({
    n: z.int().min(1).openapi({ description: '1-based position among the run’s attempts (the attempt URL)' }),
    id: z.string(),
    issue: z.object({ repo: z.string(), number: z.int(), title: z.string() }),
    rosterEntry: z.string(),
    tool: z.string(),
    model: z.string().nullable(),
    tier,
    branch: z.string(),
    baseBranch: z.string().openapi({ description: 'The integration branch the attempt started from' }),
    host: z.string().nullable().openapi({ description: 'Machine or runner holding the worktree' }),
    startedAt: z.string(),
    endedAt: z.string().nullable(),
    exitCode: z.int().nullable(),
    outcome: outcome.nullable().openapi({ description: 'null while the worker runs' }),
    nudges: z.int().min(0),
    tokens,
    cost,
    failureSummary: z.string().nullable(),
    logExcerpt: z
      .string()
      .nullable()
      .openapi({ description: "The end of a failed worker's log as its runner reported it (redacted)" }),
    permissionDenials: z
      .array(z.object({ tool: z.string(), command: z.string().nullable(), rule: z.string().nullable() }))
      .openapi({
        description:
          "Calls the agent CLI refused (claude's permission_denials), each with the allowlist rule that would let it run",
      }),
  })
  .openapi('Attempt');

export const runIssueSchema = z
  .object({
    number: z.int(),
    title: z.string().nullable(),
    state: z.string().openapi({ example: 'merged' }),
    epic: z.boolean(),
    url: z
      .string()
      .nullable()
      .openapi({ description: 'The issue on the forge, when its web address is known' }),
    pr: z.int().nullable(),
    prUrl: z.string().nullable().openapi({ description: 'The pull request on the forge' }),
    mergedSha: z.string().nullable(),
    lastError: z.string().nullable(),
    waiting: z.string().nullable().openapi({
      description:
        'Why the issue waits in its state: the last action on it that failed (a forge that answered 404), retried on the next pass',
      example: 'merging PR #12: the forge answered 404 Not Found (Not Found); retried on the next pass',
    }),
    conflictTries: z.int().min(0).openapi({
      description:
        'Times a merge conflict went back to the session that wrote the work this pass (it bounces after the last try)',
      example: 1,
    }),
    blockedBy: z.array(z.int()),
    attempts: z.array(z.int()).openapi({ description: 'The `n` of each of its attempts' }),
    tokens: z.int().min(0),
    cost: cost.openapi({ description: "What the issue's attempts cost" }),
  })
  .openapi('RunIssue');

export const runDetailSchema = z
  .object({
    run: runSummarySchema,
    integrationBranch: z.string(),
    build: z
      .object({
        status: z.enum(['none', 'running', 'passed', 'failed']),
        covers: z.array(z.string()),
        failures: z.int().min(0),
      })
      .nullable()
      .openapi({ description: 'The last integration build: which merges it covered, failures in a row' }),
    issues: z.array(runIssueSchema),
    waves: z.array(z.object({ wave: z.int().min(1), issues: z.array(z.int()) })).openapi({
      description:
        'The issues layered by dependency depth: wave k can start once the waves before it are done',
    }),
    currentWave: z.int().min(0).openapi({ description: 'Integration builds so far on this run' }),
    attempts: z.array(attemptSchema),
    notifyFailures: z.array(z.object({ target: z.string(), error: z.string() })),
  })
  .openapi('RunDetail');

export const statsSchema = z
  .object({
    attempts: z.int().min(0),
    byOutcome: z.record(z.string(), z.int().min(0)).openapi({
      description: 'Attempts per outcome; `open` counts the running ones',
    }),
    tokens: tokens.extend({ cache: z.int().min(0) }),
    cost,
    rows: z.array(
      z.object({
        rosterEntry: z.string(),
        tool: z.string(),
        tier,
        attempts: z.int(),
        counted: z.int(),
        solved: z.int(),
        passRate: z.number().nullable(),
        inBand: z.boolean(),
        tokens: z.int(),
        cost,
      }),
    ),
    waiting: z.array(
      z.object({
        runId: z.string(),
        repo: z.string(),
        number: z.int(),
        title: z.string().nullable(),
        attempts: z.int(),
        lastOutcome: outcome,
        highestTier: tier,
        waitingFor: z.enum(['stronger_model', 'person']),
      }),
    ),
  })
  .openapi('Stats');

export type RunSummary = z.infer<typeof runSummarySchema>;
export type RunList = z.infer<typeof runListSchema>;
export type RunIssue = z.infer<typeof runIssueSchema>;
export type RunDetail = z.infer<typeof runDetailSchema>;
export type ApiAttempt = z.infer<typeof attemptSchema>;
export type ApiStats = z.infer<typeof statsSchema>;
