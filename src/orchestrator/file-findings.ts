// What a blitz worker's FINAL REPORT hands to a person (seed 000 §3.6, seed 004): each out-of-scope bug
// becomes a new issue in the run's milestone, filed once per run keyed by its text, and wired as a
// blocker where it blocks (plan/reported-bugs.ts); its UNCERTAINTIES are relayed to the dashboard issue as
// decision buckets, like the fleet's, once per attempt. Worker text is data: it is quoted inert, and
// an issue number it names counts only when it is an open issue of this milestone.

import { markdownText, oneLine } from '../dashboard/escape.ts';
import { renderDecisionBuckets } from '../dashboard/uncertainties.ts';
import type { IssueRef } from '../forges/types.ts';
import { bugBlocks } from '../plan/reported-bugs.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunCtx } from '../runs/context.ts';
import type { Records } from '../runs/ports.ts';
import { firstTime, postedKey } from '../runs/run-writer.ts';

const keyOf = (bug: string): string => `bug:${bug.replace(/\s+/g, ' ').trim().toLowerCase()}`;
const relayKey = (a: AttemptRecord): string => `relay:${a.id}`;

/**
 * How many reports wait for fileReportedBugs (the planner's `unfiledFindings`): bugs not filed yet, and
 * finished attempts' uncertainties not relayed yet (only where the run has a dashboard issue to relay to).
 */
export const unfiledFindings = (
  attempts: readonly AttemptRecord[],
  posted: readonly string[],
  hasDashboardIssue: boolean,
): number => {
  const done = new Set(posted);
  const isPosted = (key: string) => done.has(key) || done.has(postedKey(key));
  const waiting = new Set<string>();
  for (const a of attempts) {
    for (const bug of a.finalReport?.outOfScopeBugs ?? []) if (!isPosted(keyOf(bug))) waiting.add(keyOf(bug));
    const relay = (a.finalReport?.uncertainties ?? []).length > 0 && a.outcome !== undefined;
    if (relay && hasDashboardIssue && !isPosted(relayKey(a))) waiting.add(relayKey(a));
  }
  return waiting.size;
};

/** Files the reported bugs not filed yet and relays the uncertainties; returns how many issues it filed. */
export const fileReportedBugs = async (deps: Records, ctx: RunCtx): Promise<number> => {
  let filed = 0;
  const open = new Set([...ctx.issues.values()].map((i) => i.number));
  for (const a of ctx.attempts) {
    const followUps: string[] = [];
    for (const bug of a.finalReport?.outOfScopeBugs ?? []) {
      const key = keyOf(bug);
      // Recorded before the issue is created: a crash in between loses a finding rather than filing it twice.
      if (!(await firstTime(deps, ctx, key))) continue;
      const issue = await ctx.forge.createIssue(ctx.repo, {
        title: `Bug found during blitz: ${oneLine(bug, 80)}`,
        body: `Reported as out of scope by the worker on #${a.issue.number} (${a.rosterEntry}) during the blitz of ${ctx.run.milestoneTitle}:\n\n> ${markdownText(bug, 1000)}`,
        milestone: ctx.run.milestoneNumber,
      });
      filed++;
      followUps.push(`#${issue.ref.number}`);
      for (const n of bugBlocks(bug, a, open)) {
        const blocked: IssueRef = { repo: ctx.repo, number: n };
        await ctx.forge.addBlockedBy(blocked, issue.ref);
      }
    }
    await relayUncertainties(deps, ctx, a, followUps);
  }
  return filed;
};

/** Posts a finished attempt's UNCERTAINTIES (and the follow-ups filed for it) on the dashboard issue, once. */
const relayUncertainties = async (
  deps: Records,
  ctx: RunCtx,
  a: AttemptRecord,
  followUps: string[],
): Promise<void> => {
  const uncertainties = a.finalReport?.uncertainties ?? [];
  if (a.outcome === undefined || ctx.run.triggerIssue === undefined) return;
  if (uncertainties.length === 0 && followUps.length === 0) return;
  if (!(await firstTime(deps, ctx, relayKey(a)))) return;
  const ticket = `#${a.issue.number}`;
  const body = renderDecisionBuckets([{ ticket, uncertainties, followUps }]);
  await ctx.forge.createComment(
    { repo: ctx.repo, number: ctx.run.triggerIssue },
    `**blitz: ${ticket} reports decisions for a person**\n\n${body}`,
  );
};
