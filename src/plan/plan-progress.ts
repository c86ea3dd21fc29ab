// What a plan-blitz run keeps beyond the tracker, in the run's progress JSON (`planBlitz`), parsed
// with zod on every read: the targets of a targeted run, the targets it could not match, and the
// waves: their members, per member how it landed, and the world's answer to a member's step (the plan
// read, the reviewers' verdict, an XS's merge or its refusal) until it lands. Issue phases live in the run_issues rows.
import { z } from 'zod';
import type { RunProgress } from '../store/run-store.ts';
import type { Landing, MemberAnswer } from './plan-member.ts';

const landings = [
  'approved',
  'ready',
  'closed',
  'pivoted',
  'refused',
  'parked',
] as const satisfies readonly Landing[];

const outcomeSchema = z.object({
  landing: z.enum(landings),
  /** The lane the issue went down: its size, once known. */
  size: z.enum(['XS', 'S', 'M', 'L']).optional(),
  /** Why, in words (a refusal's reason, a pivot's replan issue). */
  note: z.string().optional(),
  replanIssue: z.number().int().positive().optional(),
  title: z.string().optional(),
  mergeSha: z.string().optional(),
});
export type WaveOutcome = z.infer<typeof outcomeSchema>;

const reviewSchema = z.object({
  reviewer: z.string(),
  verdict: z.enum(['approved', 'blocked', 'pivot']),
  findings: z.string(),
});

const answerSchema = z.object({
  attempt: z.string(),
  planner: z.string(),
  plan: z.string().optional(),
  review: z
    .object({
      verdict: z.enum(['approved', 'blocked', 'pivot', 'unclear', 'no_review']),
      reviews: z.array(reviewSchema),
      failures: z.array(z.string()),
    })
    .optional(),
  shipped: z.object({ pr: z.number().int(), sha: z.string().optional(), reviewed: z.boolean() }).optional(),
  shipRefused: z
    .object({ pr: z.number().int(), reason: z.string(), conflict: z.boolean().optional() })
    .optional(),
  merging: z.object({ pr: z.number().int(), reviewed: z.boolean() }).optional(),
}) satisfies z.ZodType<MemberAnswer>;

const waveSchema = z.object({
  index: z.number().int().min(1),
  members: z.array(z.string()),
  /** Issues held when the wave was read, with the reason: skipped, and listed. */
  held: z.array(z.object({ key: z.string(), reason: z.string() })).default([]),
  outcomes: z.record(z.string(), outcomeSchema).default({}),
  /** Per member not landed: what the world answered its last step (plan/plan-member.ts decides on it). */
  answers: z.record(z.string(), answerSchema).default({}),
  landed: z.boolean().default(false),
});
export type PlanWave = z.infer<typeof waveSchema>;

export const planProgressSchema = z.object({
  /** Targeted mode: only these issues are candidates; the others stay blockers. */
  targets: z.array(z.string()).optional(),
  unmatched: z.array(z.object({ ref: z.string(), reason: z.string() })).default([]),
  waves: z.array(waveSchema).default([]),
  cycles: z.array(z.array(z.string())).default([]),
  /** The planner's last word on what is left (waves exhausted, blocked…). */
  remaining: z.array(z.string()).default([]),
});
export type PlanProgress = z.infer<typeof planProgressSchema>;

/** The run's plan progress; a run without one (or with a broken one) starts empty. */
export const planProgressOf = (p: RunProgress): PlanProgress => {
  const parsed = planProgressSchema.safeParse(p.planBlitz ?? {});
  return parsed.success ? parsed.data : planProgressSchema.parse({});
};

export interface WaveTally {
  approved: number;
  executionReady: number;
  closed: number;
  held: number;
  refused: number;
  pivoted: number;
  /** Landed after its environment failed `maxEnvironmentTries` times in a row: `/plan-blitz #n` again. */
  parked: number;
}

export const tallyOf = (w: PlanWave): WaveTally => {
  const n = (l: Landing) => Object.values(w.outcomes).filter((o) => o.landing === l).length;
  return {
    approved: n('approved'),
    executionReady: n('ready'),
    closed: n('closed'),
    held: w.held.length,
    refused: n('refused'),
    pivoted: n('pivoted'),
    parked: n('parked'),
  };
};

/** The wave in flight: the last one, unless it has landed. */
export const currentWave = (p: PlanProgress): PlanWave | undefined => {
  const last = p.waves.at(-1);
  return last && !last.landed ? last : undefined;
};

/** Issues this run has finished with (any landing): never candidates again in this run. */
export const finishedKeys = (p: PlanProgress): Set<string> =>
  new Set(p.waves.flatMap((w) => Object.keys(w.outcomes)));
