// Reads the plan a planner worker pushed: PLAN.md at the tip of its branch on origin, through the
// runner's clone in the workspace and runner/git.ts (the exec choke point), so it works the same
// whether the worker ran on this host or on a remote runner. The text is outside input: bounded
// here, sanitised before it is posted.

import { AppError, isAppError } from '../errors.ts';
import type { RepoRef } from '../forges/types.ts';
import { isSafeBranchName } from './branch-names.ts';
import { type GitContext, git } from './git.ts';
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

/**
 * PLAN.md on the branch, or undefined when the file is not in the branch's tip commit or is empty. Any
 * other git failure (an unreadable object, a broken clone, a timeout) is not "no plan": it throws an
 * environment failure, and the step is tried again on the next pass instead of refusing the member.
 */
export const readPushedPlan = async (i: ReadPlanInput): Promise<string | undefined> => {
  if (!isSafeBranchName(i.branch)) return undefined;
  const dir = await ensureClone(i.workspace, i.repo, i.cloneUrl, i.ctx);
  const ref = `refs/remotes/origin/${i.branch}`;
  await git(['fetch', '--quiet', 'origin', `+refs/heads/${i.branch}:${ref}`], dir, i.ctx);
  let text: string;
  try {
    // The tree lists the file or not: only its absence is "no plan" (git show cannot tell the two apart
    // but by the words of its error).
    const listed = await git(['ls-tree', '--name-only', ref, '--', planFile], dir, i.ctx);
    if (listed.trim() === '') return undefined;
    text = await git(['show', `${ref}:${planFile}`], dir, i.ctx);
  } catch (err) {
    if (!isAppError(err, 'git_failed')) throw err;
    throw new AppError(
      'git_failed',
      `environment failure: ${planFile} on ${i.branch} could not be read (${err.message}); tried again on the next pass`,
      { ...err.details, environment: true },
      { cause: err },
    );
  }
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  return trimmed.length > maxPlanChars ? `${trimmed.slice(0, maxPlanChars)}\n\n[plan cut]` : trimmed;
};
