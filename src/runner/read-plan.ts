// Reads the plan a planner worker pushed: PLAN.md at the tip of its branch on origin, through the
// runner's clone in the workspace and runner/git.ts (the exec choke point), so it works the same
// whether the worker ran on this host or on a remote runner. The text is outside input: bounded
// here, sanitised before it is posted.
import type { RepoRef } from '../forges/types.ts';
import { isSafeBranchName } from './branch-names.ts';
import { type GitContext, git, gitTry } from './git.ts';
import { planFile } from './planner-task.ts';
import { ensureClone } from './workspace.ts';

/** Plans longer than this are cut (a comment has to fit the forge's limit with room to spare). */
export const maxPlanChars = 40_000;

export interface ReadPlanInput {
  workspace: string;
  repo: RepoRef;
  cloneUrl: string;
  branch: string;
  ctx: GitContext;
}

/** PLAN.md on the branch, or undefined when the branch or the file is missing or empty. */
export const readPushedPlan = async (i: ReadPlanInput): Promise<string | undefined> => {
  if (!isSafeBranchName(i.branch)) return undefined;
  const dir = await ensureClone(i.workspace, i.repo, i.cloneUrl, i.ctx);
  await git(
    ['fetch', '--quiet', 'origin', `+refs/heads/${i.branch}:refs/remotes/origin/${i.branch}`],
    dir,
    i.ctx,
  );
  const text = await gitTry(['show', `refs/remotes/origin/${i.branch}:${planFile}`], dir, i.ctx);
  const trimmed = text?.trim();
  if (!trimmed) return undefined;
  return trimmed.length > maxPlanChars ? `${trimmed.slice(0, maxPlanChars)}\n\n[plan cut]` : trimmed;
};
