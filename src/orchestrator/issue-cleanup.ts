// After an issue is integrated and closed (seed 001, issue 18): its worktree and local branch go from
// the host that holds them, and its branch on origin too unless the repo config says `keepBranches`,
// so a long run does not pile up disk and branches. The runner keeps anything not merged and says so.
// Never fails the close: a leftover is logged and swept at the next start.
import type { IssueKey } from '../plan/types.ts';
import { issueNumberOfBranch } from '../runner/cleanup.ts';
import type { Ports, RunCtx } from './context.ts';
import { onAttemptHost } from './dispatcher.ts';
import { attemptKey } from './run-progress.ts';

export const cleanupClosedIssue = async (
  deps: Ports<'dispatcher' | 'runner' | 'logger'>,
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
    if (branch && !ctx.repoConfig.keepBranches && issueNumberOfBranch(branch) !== undefined)
      await ctx.forge.deleteBranch(ctx.repo, branch);
  } catch (err) {
    deps.logger.warn(
      { runId: ctx.run.id, issue: key, err },
      'merged issue not cleaned up; swept at the next start',
    );
  }
};
