// Each finished worker's FINAL REPORT, once: TESTS and STATUS go on the scoreboard, UNCERTAINTIES are
// relayed to the triggering issue as decision buckets (seed 004: "consistently the highest-value
// output"), and each OUT-OF-SCOPE BUG becomes a follow-up issue in the ticket's repo, linked back.
// The report is marked relayed before anything is filed, so a crash files nothing twice.

import { markdownText, oneLine } from '../dashboard/escape.ts';
import { renderDecisionBuckets } from '../dashboard/uncertainties.ts';
import { formatIssueRef, formatRepo, repoRefOf } from '../forges/types.ts';
import { ticketOf } from '../plan/fleet-progress.ts';
import { issueAttempts } from '../plan/issue-progress.ts';
import { outcomeStateWords } from '../plan/state-words.ts';
import { refOf } from '../plan/types.ts';
import { reportOf } from '../review/review-leg.ts';
import type { Records } from '../runs/ports.ts';
import type { FleetCtx } from './fleet-context.ts';
import { updateTicket } from './fleet-state.ts';

const followUpBody = (bug: string, ticket: string, trigger: string): string =>
  [
    `Found by a ticket-fleet worker while working on ${ticket} (fleet on ${trigger}); it is outside that ticket.`,
    '',
    'What the worker reported:',
    '',
    // Worker text: inert (no mention, link or HTML), one line.
    `> ${markdownText(bug, 1000)}`,
  ].join('\n');

export const relayReports = async (deps: Records, ctx: FleetCtx): Promise<void> => {
  for (const key of ctx.tickets.keys()) {
    const last = issueAttempts(ctx, key).at(-1);
    const outcome = last?.outcome;
    if (!last || outcome === undefined) continue;
    const stamp = `${last.id}:${last.nudges}`;
    if (ticketOf(ctx.fleet, key).relayedAttempt === stamp) continue;
    const report = reportOf(last);
    const ref = refOf(key);
    const facts = ctx.repos.get(formatRepo(ref.repo).toLowerCase());
    const home = repoRefOf(ctx.run.repo);
    const label = formatIssueRef(ref, home);
    const tests = report?.tests ?? 'no FINAL REPORT';
    ctx.run = await updateTicket(deps.store, ctx.run.id, key, (t) => ({
      relayedAttempt: stamp,
      tests,
      status:
        report?.status ??
        `${outcomeStateWords(outcome)}${last.failureSummary ? `: ${last.failureSummary}` : ''}`,
      uncertainties: [...new Set([...t.uncertainties, ...(report?.uncertainties ?? [])])],
    }));
    const followUps: string[] = [];
    if (facts && ctx.run.triggerIssue !== undefined)
      for (const bug of report?.outOfScopeBugs ?? []) {
        const created = await facts.forge.createIssue(facts.repo, {
          title: `Follow-up from ${label}: ${oneLine(bug, 80)}`,
          body: followUpBody(bug, formatIssueRef(ref), `${ctx.run.repo}#${ctx.run.triggerIssue}`),
        });
        followUps.push(formatIssueRef(created.ref));
      }
    if (followUps.length > 0)
      ctx.run = await updateTicket(deps.store, ctx.run.id, key, (t) => ({
        followUps: [...t.followUps, ...followUps],
      }));
    const uncertainties = report?.uncertainties ?? [];
    if (ctx.run.triggerIssue === undefined || (uncertainties.length === 0 && followUps.length === 0))
      continue;
    const body = renderDecisionBuckets([{ ticket: label, uncertainties, followUps }]);
    await ctx.forge.createComment(
      { repo: home, number: ctx.run.triggerIssue },
      `**Ticket fleet: ${label} reports decisions for a person**\n\n${body}`,
    );
  }
};
