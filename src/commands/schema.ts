// The slash-command shapes the rest of the bot acts on, as zod schemas: the parser builds a value
// and validates it here, so a command that reaches intake always has this shape and these limits.
import { z } from 'zod';

/** Most tickets one `/ticket-fleet` may name: each becomes a worker, a PR and review legs. */
export const MAX_FLEET_REFS = 50;
/** Same bound as `maxSessions` in the repo config. */
export const MAX_CONCURRENCY = 32;
export const MAX_WAVES = 20;

// GitHub logins are narrower; Gitea allows dots and underscores, so this is the union.
export const ownerPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const repoPattern = /^(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;

export const ticketRefSchema = z.strictObject({
  /** Absent: the owner of the repository the comment was made in. */
  owner: z.string().regex(ownerPattern).optional(),
  /** Absent: the repository the comment was made in. */
  repo: z.string().regex(repoPattern).optional(),
  number: z.number().int().min(1).max(2_147_483_647),
  /** Set when the ref was a URL: the host it named, for the caller to check against its forge. */
  host: z.string().min(1).optional(),
});
export type TicketRef = z.infer<typeof ticketRefSchema>;

export const controlActions = ['status', 'pause', 'resume', 'cancel', 'help'] as const;
/** `/blitz retry #n` and friends: a person steering one issue of the run (issue 18). */
export const issueActions = ['retry', 'skip', 'unhold'] as const;
/** `/blitz review` re-runs the integration review; `/blitz accept-review` accepts an unclear one. */
export const reviewActions = ['review', 'accept-review'] as const;
/** Every word that may follow `/blitz` as an action (the rest is a milestone name). */
export const blitzActions = [...controlActions, ...issueActions, 'tell', ...reviewActions] as const;
/** A `/blitz tell` message is the rest of one command line, which is itself at most 1000 characters. */
export const MAX_TELL_CHARS = 1000;

/** Tool names are roster entries or built-ins; model names carry vendor punctuation. */
export const toolPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const modelPattern = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/;

export const commandSchema = z.discriminatedUnion('name', [
  z.strictObject({
    name: z.literal('blitz'),
    milestone: z.string().min(1).max(200).optional(),
    ship: z.enum(['deploy', 'local']).optional(),
    max: z.number().int().min(1).max(MAX_CONCURRENCY).optional(),
    tool: z.string().regex(toolPattern).optional(),
    model: z.string().regex(modelPattern).optional(),
    dryRun: z.boolean(),
    /** `--require-checks`: this run ships only what a configured check ran green on. */
    requireChecks: z.literal(true).optional(),
  }),
  z.strictObject({ name: z.literal('blitz-control'), action: z.enum(controlActions) }),
  /** Writers only: act on one issue of the run (retry a held or failed one, skip it, lift a hold). */
  z.strictObject({ name: z.literal('blitz-issue'), action: z.enum(issueActions), issue: ticketRefSchema }),
  /** Writers only: a message for the worker of an issue, given at its next resume or by a nudge. */
  z.strictObject({
    name: z.literal('blitz-tell'),
    issue: ticketRefSchema,
    message: z
      .string()
      .min(1)
      .max(MAX_TELL_CHARS)
      .refine((m) => !/[\p{Cc}\p{Zl}\p{Zp}]/u.test(m), 'is one line of text'),
  }),
  /** Writers only: re-run the integration review, or accept the unclear one and go on to the gate. */
  z.strictObject({ name: z.literal('blitz-review'), action: z.enum(reviewActions) }),
  z.strictObject({
    name: z.literal('ticket-fleet'),
    refs: z.array(ticketRefSchema).max(MAX_FLEET_REFS),
    labels: z.array(z.string().min(1).max(50)),
  }),
  z.strictObject({ name: z.literal('ticket-fleet-merge'), pr: ticketRefSchema }),
  /** `/ticket-fleet resume`: a paused or parked fleet goes on (the words its park notice names). */
  z.strictObject({ name: z.literal('ticket-fleet-resume') }),
  z.strictObject({ name: z.literal('merge') }),
  /** `/merge --when-green`: merge the fleet PR once its CI completes green (seed 004: UNSTABLE waits). */
  z.strictObject({ name: z.literal('merge-when-green') }),
  z.strictObject({ name: z.literal('review') }),
  z.strictObject({
    name: z.literal('plan-blitz'),
    milestone: z.string().min(1).max(200).optional(),
    refs: z.array(ticketRefSchema).max(MAX_FLEET_REFS),
    waves: z.number().int().min(1).max(MAX_WAVES),
    dryRun: z.boolean(),
  }),
  /** `/plan-blitz resume`: a paused or parked plan run goes on (the words its park notice names). */
  z.strictObject({ name: z.literal('plan-blitz-resume') }),
]);
export type Command = z.infer<typeof commandSchema>;

/** The words that make a line ours. Anything else after a slash belongs to someone else. */
export const commandWords = ['blitz', 'ticket-fleet', 'merge', 'review', 'plan-blitz'] as const;
export type CommandWord = (typeof commandWords)[number];

export type ParsedCommand =
  | { ok: true; command: Command; raw: string; line: number }
  | { ok: false; raw: string; line: number; error: string; usage: string; word: CommandWord };
