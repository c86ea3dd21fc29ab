// Out-of-scope bugs a worker names in its FINAL REPORT become new issues in the run's milestone
// (seed 000 §3.6), so the next pass plans and works them like any other. Each finding is filed once
// per run, keyed by its text, whichever attempt reported it and however often.
import type { OrchestratorDeps, RunCtx } from './context.ts';
import { firstTime } from './perform.ts';

const maxTitle = 80;

const titleOf = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxTitle ? `${flat.slice(0, maxTitle - 1)}…` : flat;
};

export const fileReportedBugs = async (deps: OrchestratorDeps, ctx: RunCtx): Promise<number> => {
  let filed = 0;
  for (const a of ctx.attempts) {
    for (const bug of a.finalReport?.outOfScopeBugs ?? []) {
      const key = `bug:${bug.replace(/\s+/g, ' ').trim().toLowerCase()}`;
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
