// Out-of-scope bugs a worker names in its FINAL REPORT become new issues in the run's milestone
// (seed 000 §3.6), so the next pass plans and works them like any other. Each finding is filed once
// per run, keyed by its text, whichever attempt reported it and however often.
import type { AttemptRecord } from '../runner/types.ts';
import type { OrchestratorDeps, RunCtx } from './context.ts';
import { firstTime } from './perform.ts';
import { postedKey } from './run-writer.ts';

const maxTitle = 80;

const titleOf = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxTitle ? `${flat.slice(0, maxTitle - 1)}…` : flat;
};

const keyOf = (bug: string): string => `bug:${bug.replace(/\s+/g, ' ').trim().toLowerCase()}`;

/** How many reported bugs are not filed yet (the planner's `unfiledFindings`). */
export const unfiledFindings = (attempts: readonly AttemptRecord[], posted: readonly string[]): number => {
  const done = new Set(posted);
  const waiting = new Set<string>();
  for (const a of attempts)
    for (const bug of a.finalReport?.outOfScopeBugs ?? []) {
      const key = keyOf(bug);
      if (!done.has(key) && !done.has(postedKey(key))) waiting.add(key);
    }
  return waiting.size;
};

export const fileReportedBugs = async (deps: OrchestratorDeps, ctx: RunCtx): Promise<number> => {
  let filed = 0;
  for (const a of ctx.attempts) {
    for (const bug of a.finalReport?.outOfScopeBugs ?? []) {
      const key = keyOf(bug);
      // Recorded before the issue is created: a crash in between loses a finding rather than filing it twice.
      if (!(await firstTime(deps, ctx, key))) continue;
      await ctx.forge.createIssue(ctx.repo, {
        title: `Bug found during blitz: ${titleOf(bug)}`,
        body: `Reported as out of scope by the worker on #${a.issue.number} (${a.rosterEntry}) during the blitz of ${ctx.run.milestoneTitle}:\n\n> ${bug}`,
        milestone: ctx.run.milestoneNumber,
      });
      filed++;
    }
  }
  return filed;
};
