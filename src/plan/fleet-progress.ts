// What a fleet run keeps beyond the shared run tables: its options (the ticket list, who started
// it) in the run's options column, and per-ticket facts (who asked for the merge, the review verdict,
// the worker's TESTS and STATUS, what was relayed, conflict resumes) in progress.fleet. Both are JSON
// read back from the store, so both are parsed here with zod, once, and typed from the schemas. The
// writes: fleet/fleet-state.ts.
import { z } from 'zod';
import type { RunRecord } from '../store/run-store.ts';
import { issueKey } from './types.ts';

export const fleetTicketSchema = z.object({
  repo: z.string().regex(/^[^/\s]+\/[^/\s]+$/),
  number: z.number().int().positive(),
});
export type FleetTicket = z.infer<typeof fleetTicketSchema>;

export const fleetOptionsSchema = z.object({
  sender: z.string(),
  maxSessions: z.number().int().min(1),
  dryRun: z.literal(false).default(false),
  tickets: z.array(fleetTicketSchema).min(1),
});
export type FleetOptions = z.infer<typeof fleetOptionsSchema>;

export const ticketStateSchema = z.object({
  /** The person whose `/merge` (or `/ticket-fleet merge`) allows this ticket's PR to merge. */
  mergeRequestedBy: z.string().optional(),
  tests: z.string().optional(),
  status: z.string().optional(),
  review: z.string().optional(),
  /** The attempt whose FINAL REPORT was relayed (uncertainties, follow-ups): relayed once. */
  relayedAttempt: z.string().optional(),
  uncertainties: z.array(z.string()).default([]),
  followUps: z.array(z.string()).default([]),
  /** Files that conflicted when the base was merged in: each is checked for leftover markers. */
  conflictFiles: z.array(z.string()).default([]),
  /** Set while a resumed worker is merging the base in; cleared when its result was checked. */
  resolving: z.boolean().default(false),
  /**
   * The attempt's `launchedAt` when the conflict resume was sent: while the attempt still shows it,
   * the resume (queued for the attempt's host) has not started yet.
   */
  resumeSentAt: z.string().optional(),
  /** The conflict resume queued for a remote attempt's host: if it fails there, the merge stops. */
  resumeJob: z.object({ queue: z.string(), id: z.string() }).optional(),
  /** The build job sent to a remote attempt's host after the base merge, until its result is read. */
  buildJob: z.object({ queue: z.string(), id: z.string() }).optional(),
  /** Why the merge is not going ahead, in words (shown on the scoreboard). */
  note: z.string().optional(),
  /** Why the PR has no review (every reviewer failed, or the leg kept failing), in the bot's words. */
  reviewMissing: z.string().optional(),
});
export type TicketState = z.infer<typeof ticketStateSchema>;

export const fleetProgressSchema = z.object({
  tickets: z.record(z.string(), ticketStateSchema).default({}),
  skipped: z.array(z.object({ ticket: z.string(), reason: z.string() })).default([]),
  /** Ticket keys in the order they were first dispatched: the first is the pilot, then waves. */
  dispatched: z.array(z.string()).default([]),
});
export type FleetProgress = z.infer<typeof fleetProgressSchema>;

export const fleetOptionsOf = (run: RunRecord): FleetOptions => fleetOptionsSchema.parse(run.options);

export const fleetProgressOf = (run: RunRecord): FleetProgress =>
  fleetProgressSchema.parse(run.progress.fleet ?? {});

export const ticketOf = (p: FleetProgress, key: string): TicketState =>
  p.tickets[key] ?? ticketStateSchema.parse({});

export const ticketKey = (t: FleetTicket): string => issueKey(t.repo, t.number);

/** A fleet's tickets may live in other repos than the run's own: their events concern the run too. */
export const fleetTouchesRepo = (run: Pick<RunRecord, 'kind' | 'options'>, repo: string): boolean => {
  if (run.kind !== 'fleet') return false;
  const parsed = fleetOptionsSchema.safeParse(run.options);
  return parsed.success && parsed.data.tickets.some((t) => t.repo.toLowerCase() === repo.toLowerCase());
};
