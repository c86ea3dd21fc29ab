// Pure: a fleet pass's facts turned into the scoreboard's rows. The pilot is the first ticket
// dispatched; then waves of `maxSessions` tickets in dispatch order; undispatched tickets are queued.

import type { ScoreboardInput, ScoreboardRow } from '../../dashboard/scoreboard.ts';
import { formatIssueRef } from '../../forges/types.ts';
import { refOf, repoRefOf } from '../context.ts';
import { paceReason } from '../run-pace.ts';
import type { FleetCtx } from './fleet-context.ts';
import { ticketOf } from './fleet-state.ts';

const statusOf = (ctx: FleetCtx, key: string): string => {
  const row = ctx.rows.get(key);
  const t = ticketOf(ctx.fleet, key);
  const p = ctx.snap.progress.find((x) => x.key === key);
  const issue = ctx.tickets.get(key);
  const extra = t.note ? ` — ${t.note}` : '';
  if (row?.state === 'closed' || (row?.mergedSha !== undefined && issue?.state === 'closed'))
    return `closed (merged ${row?.mergedSha?.slice(0, 7) ?? ''})`;
  if (row?.mergedSha !== undefined) return `merged ${row.mergedSha.slice(0, 7)}`;
  if (row?.prNumber !== undefined)
    return t.mergeRequestedBy
      ? `merging (asked by ${t.mergeRequestedBy})${extra}`
      : `awaiting /merge${extra}`;
  // Held at the approval gate (seed 004 with issue 14): said so, with what a writer does about it.
  if (
    issue?.state === 'open' &&
    !issue.authorTrusted &&
    (!p || ['ready', 'held', 'failed'].includes(p.state))
  )
    return ctx.lapsedApprovals.has(key)
      ? 'approval lapsed — edited after it was approved; a maintainer adds blitz/approved again'
      : 'awaiting approval — its author cannot write here; a maintainer adds blitz/approved';
  if (!p) return issue?.state === 'closed' ? 'closed' : 'queued';
  if (p.state === 'failed') return `failed: ${t.status ?? 'see the worker log'}`;
  if (p.state === 'stalled') return 'stalled: a person has to look';
  return p.state;
};

export const scoreboardInput = (ctx: FleetCtx, final?: { reason: string }): ScoreboardInput => {
  const home = repoRefOf(ctx.run.repo);
  const rowOf = (key: string): ScoreboardRow => {
    const row = ctx.rows.get(key);
    const t = ticketOf(ctx.fleet, key);
    return {
      ticket: formatIssueRef(refOf(key), home),
      title: ctx.tickets.get(key)?.title ?? '',
      ...(row?.prNumber !== undefined
        ? { pr: formatIssueRef({ repo: refOf(key).repo, number: row.prNumber }, home) }
        : {}),
      ...(t.tests ? { tests: t.tests } : {}),
      ...(t.review ? { review: t.review } : {}),
      status: statusOf(ctx, key),
    };
  };
  const order = ctx.fleet.dispatched.filter((k) => ctx.tickets.has(k));
  const size = Math.max(1, ctx.options.maxSessions);
  const waves: ScoreboardInput['waves'] = [];
  if (order.length > 0) waves.push({ label: 'Pilot', rows: [rowOf(order[0]!)] });
  for (let i = 1; i < order.length; i += size)
    waves.push({ label: `Wave ${waves.length}`, rows: order.slice(i, i + size).map(rowOf) });
  const queuedKeys = [...ctx.tickets.keys()].filter((k) => !order.includes(k));
  const queued = queuedKeys.map(rowOf);
  // Every worker has finished and nothing is queued: the summary shows now, not only at the run's end.
  const settled =
    queuedKeys.every((k) => ctx.tickets.get(k)?.state === 'closed') &&
    ctx.snap.progress.every((p) => !['dispatched', 'working', 'pushed'].includes(p.state));
  const summary =
    final ??
    (settled ? { reason: 'Every worker has finished; what is left waits for a person.' } : undefined);
  return {
    runState: ctx.run.state,
    waves,
    queued,
    skipped: ctx.fleet.skipped,
    relays: [...ctx.tickets.keys()].flatMap((k) => {
      const t = ticketOf(ctx.fleet, k);
      return t.uncertainties.length + t.followUps.length > 0
        ? [{ ticket: formatIssueRef(refOf(k), home), uncertainties: t.uncertainties, followUps: t.followUps }]
        : [];
    }),
    ...(summary ? { final: summary } : {}),
    ...(paceReason(ctx.pace) ? { slowed: paceReason(ctx.pace)! } : {}),
  };
};
