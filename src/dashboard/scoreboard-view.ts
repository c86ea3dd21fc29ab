// Pure: a fleet pass's facts turned into the scoreboard's rows. The pilot is the first ticket
// dispatched; then waves of `maxSessions` tickets in dispatch order; undispatched tickets are queued.

import { formatIssueRef, type IssueRef, repoRefOf } from '../forges/types.ts';
import type { IssueProgress } from '../plan/snapshot.ts';
import type { IssueKey, PlanIssue } from '../plan/types.ts';
import type { RunIssueRecord, RunRecord } from '../store/run-store.ts';
import type { ScoreboardInput, ScoreboardRow } from './scoreboard.ts';

/** What a fleet run keeps of one ticket that the scoreboard shows. */
interface TicketFacts {
  mergeRequestedBy?: string;
  tests?: string;
  status?: string;
  review?: string;
  note?: string;
  uncertainties: string[];
  followUps: string[];
}

/** What the scoreboard is made from: the fleet's own facts and what its pass read. */
export interface ScoreboardFacts {
  run: Pick<RunRecord, 'repo' | 'state'>;
  /** Tickets per wave after the pilot. */
  maxSessions: number;
  fleet: {
    tickets: Record<IssueKey, TicketFacts>;
    skipped: ScoreboardInput['skipped'];
    /** Ticket keys in the order they were first dispatched. */
    dispatched: IssueKey[];
  };
  /** Every ticket as the tracker shows it now, by key. */
  tickets: ReadonlyMap<IssueKey, Pick<PlanIssue, 'title' | 'state' | 'authorTrusted'>>;
  rows: ReadonlyMap<IssueKey, Pick<RunIssueRecord, 'state' | 'mergedSha' | 'prNumber'>>;
  progress: readonly Pick<IssueProgress, 'key' | 'state'>[];
  lapsedApprovals: ReadonlySet<IssueKey>;
  /** Why the run goes slower than it could this pass. */
  slowed?: string;
}

const refOf = (key: IssueKey): IssueRef => {
  const at = key.lastIndexOf('#');
  return { repo: repoRefOf(key.slice(0, at)), number: Number(key.slice(at + 1)) };
};

const noFacts: TicketFacts = { uncertainties: [], followUps: [] };
const ticketOf = (ctx: ScoreboardFacts, key: IssueKey): TicketFacts => ctx.fleet.tickets[key] ?? noFacts;

/** A ticket's words on the scoreboard and what its summary counts it as. */
const statusOf = (ctx: ScoreboardFacts, key: string): Pick<ScoreboardRow, 'status' | 'standing'> => {
  const row = ctx.rows.get(key);
  const t = ticketOf(ctx, key);
  const p = ctx.progress.find((x) => x.key === key);
  const issue = ctx.tickets.get(key);
  const extra = t.note ? ` — ${t.note}` : '';
  const other = (status: string) => ({ status, standing: 'other' as const });
  if (row?.state === 'closed' || (row?.mergedSha !== undefined && issue?.state === 'closed'))
    return { status: `closed (merged ${row?.mergedSha?.slice(0, 7) ?? ''})`, standing: 'merged' };
  if (row?.mergedSha !== undefined)
    return { status: `merged ${row.mergedSha.slice(0, 7)}`, standing: 'merged' };
  if (row?.prNumber !== undefined)
    return t.mergeRequestedBy
      ? other(`merging (asked by ${t.mergeRequestedBy})${extra}`)
      : { status: `awaiting /merge${extra}`, standing: 'waiting' };
  // Held at the approval gate (seed 004 with issue 14): said so, with what a writer does about it.
  if (
    issue?.state === 'open' &&
    !issue.authorTrusted &&
    (!p || ['ready', 'held', 'failed'].includes(p.state))
  )
    return ctx.lapsedApprovals.has(key)
      ? other('approval lapsed — edited after it was approved; a maintainer adds blitz/approved again')
      : {
          status: 'awaiting approval — its author cannot write here; a maintainer adds blitz/approved',
          standing: 'waiting',
        };
  if (!p) return issue?.state === 'closed' ? { status: 'closed', standing: 'merged' } : other('queued');
  if (p.state === 'failed')
    return { status: `failed: ${t.status ?? 'see the worker log'}`, standing: 'failed' };
  if (p.state === 'stalled') return other('stalled: a person has to look');
  return { status: p.state, standing: p.state === 'merged' || p.state === 'closed' ? 'merged' : 'other' };
};

export const scoreboardInput = (ctx: ScoreboardFacts, final?: { reason: string }): ScoreboardInput => {
  const home = repoRefOf(ctx.run.repo);
  const rowOf = (key: string): ScoreboardRow => {
    const row = ctx.rows.get(key);
    const t = ticketOf(ctx, key);
    return {
      ticket: formatIssueRef(refOf(key), home),
      title: ctx.tickets.get(key)?.title ?? '',
      ...(row?.prNumber !== undefined
        ? { pr: formatIssueRef({ repo: refOf(key).repo, number: row.prNumber }, home) }
        : {}),
      ...(t.tests ? { tests: t.tests } : {}),
      ...(t.review ? { review: t.review } : {}),
      ...statusOf(ctx, key),
    };
  };
  const order = ctx.fleet.dispatched.filter((k) => ctx.tickets.has(k));
  const size = Math.max(1, ctx.maxSessions);
  const waves: ScoreboardInput['waves'] = [];
  if (order.length > 0) waves.push({ label: 'Pilot', rows: [rowOf(order[0]!)] });
  for (let i = 1; i < order.length; i += size)
    waves.push({ label: `Wave ${waves.length}`, rows: order.slice(i, i + size).map(rowOf) });
  const queuedKeys = [...ctx.tickets.keys()].filter((k) => !order.includes(k));
  const queued = queuedKeys.map(rowOf);
  // Every worker has finished and nothing is queued: the summary shows now, not only at the run's end.
  const settled =
    queuedKeys.every((k) => ctx.tickets.get(k)?.state === 'closed') &&
    ctx.progress.every((p) => !['dispatched', 'working', 'pushed'].includes(p.state));
  const summary =
    final ??
    (settled ? { reason: 'Every worker has finished; what is left waits for a person.' } : undefined);
  return {
    runState: ctx.run.state,
    waves,
    queued,
    skipped: ctx.fleet.skipped,
    relays: [...ctx.tickets.keys()].flatMap((k) => {
      const t = ticketOf(ctx, k);
      return t.uncertainties.length + t.followUps.length > 0
        ? [{ ticket: formatIssueRef(refOf(k), home), uncertainties: t.uncertainties, followUps: t.followUps }]
        : [];
    }),
    ...(summary ? { final: summary } : {}),
    ...(ctx.slowed ? { slowed: ctx.slowed } : {}),
  };
};
