// After an issue is integrated and closed (seed 001, issue 18): its worktree and local branch go from
// the host that holds them, and its branch on origin too unless the repo config says `keepBranches`,
// so a long run does not pile up disk and branches (through git: merged-branch.ts). The runner keeps
// anything not merged and says so.
// Never fails the close: a leftover is logged and swept at the next start.

import { attemptKey } from '../plan/issue-progress.ts';
import type { IssueKey } from '../plan/types.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import { issueNumberOfBranch } from '../runner/cleanup.ts';
import { deleteMergedBranch } from '../runner/merged-branch.ts';
import type { RunCtx } from '../runs/context.ts';
import type { Log, Settings, Workers } from '../runs/ports.ts';

export const cleanupClosedIssue = async (
  deps: Workers & Log & Settings,
  ctx: Pick<RunCtx, 'run' | 'forge' | 'repo' | 'repoConfig' | 'attempts' | 'rows'>,
  key: IssueKey,
): Promise<void> => {
  const mine = ctx.attempts.filter((a) => attemptKey(a) === key);
  if (mine.length === 0) return;
  try {
    await onAttemptHost(
      deps,
      {
        kind: 'cleanup',
        repo: ctx.repo,
        mergedInto: ctx.run.integrationBranch,
        attemptIds: mine.map((a) => a.id),
        mergedHeads: [],
      },
      mine,
    );
    const branch = ctx.rows.get(key)?.branch ?? mine.at(-1)?.branch;
    // Only a worker's issue branch, never the integration or default branch.
    if (branch && !ctx.repoConfig.keepBranches && issueNumberOfBranch(branch) !== undefined) {
      const kept = await deleteMergedBranch(deps, ctx, {
        branch,
        mergedInto: ctx.run.integrationBranch,
        method: ctx.repoConfig.mergeMethod.blitz,
      });
      if (kept.length > 0)
        deps.logger.warn({ runId: ctx.run.id, issue: key, kept }, 'merged branch kept on origin');
    }
  } catch (err) {
    deps.logger.warn(
      { runId: ctx.run.id, issue: key, err },
      'merged issue not cleaned up; swept at the next start',
    );
  }
};

/**
 * Once per process and run, on its first pass (issue 18): the workspaces of the run's issues closed on
 * the tracker are swept from the hosts that ran them, so a worktree whose issue was closed while the
 * bot was down (or whose cleanup failed) does not survive a restart. An issue with an attempt still
 * open in the ledger (a worker running, or one that finished while the bot was down and whose result
 * is not collected yet) is left out, and the runner again never touches a worktree an open attempt
 * holds. Never fails the pass.
 */
export const sweepClosedWorkspaces = async (
  deps: Workers & Log,
  ctx: Pick<RunCtx, 'run' | 'forge' | 'repo' | 'attempts' | 'rows'>,
  milestoneIssues: readonly { ref: { number: number }; state: 'open' | 'closed' }[],
): Promise<void> => {
  const repoName = `${ctx.repo.owner}/${ctx.repo.name}`.toLowerCase();
  const here = ctx.attempts.filter(
    (a) => `${a.issue.repo.owner}/${a.issue.repo.name}`.toLowerCase() === repoName,
  );
  const busy = new Set(here.filter((a) => a.outcome === undefined).map((a) => a.issue.number));
  const closed = new Set(milestoneIssues.filter((i) => i.state === 'closed').map((i) => i.ref.number));
  const open = new Set(milestoneIssues.filter((i) => i.state === 'open').map((i) => i.ref.number));
  try {
    // An attempted issue no longer among the milestone's open ones (closed, or moved out): one this run
    // closed itself is closed (its row says so), any other the tracker says which.
    const asked = new Set<number>();
    for (const a of here) {
      const n = a.issue.number;
      if (open.has(n) || closed.has(n) || busy.has(n) || asked.has(n)) continue;
      if (ctx.rows.get(attemptKey(a))?.state === 'closed') {
        closed.add(n);
        continue;
      }
      asked.add(n);
      const issue = await ctx.forge.getIssue({ repo: ctx.repo, number: n }).catch(() => undefined);
      if (issue?.state === 'closed') closed.add(n);
    }
    const sweep = [...closed].filter((n) => !busy.has(n)).sort((a, b) => a - b);
    const mine = here.filter((a) => sweep.includes(a.issue.number));
    if (mine.length === 0) return;
    await onAttemptHost(
      deps,
      {
        kind: 'cleanup',
        repo: ctx.repo,
        mergedInto: ctx.run.integrationBranch,
        attemptIds: [],
        mergedHeads: [],
        closedIssues: sweep,
      },
      mine,
    );
  } catch (err) {
    deps.logger.warn(
      { runId: ctx.run.id, err },
      'closed issues’ workspaces not swept; tried again at the next start',
    );
  }
};
