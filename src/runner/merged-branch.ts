// A merged worker branch leaves origin through git, not the forge's API: the bot already holds a clone
// and push credentials (runner/integration-git.ts), a push costs nothing against the forge's rate limit
// (the REST delete was one request per merged issue on both forges), and git can prove what the API
// cannot: the branch is deleted only when origin's tip is merged into the branch it went into, leased
// on that tip, so a commit pushed after the merge is never lost. A squash or rebase merge leaves no
// ancestry to prove it by: that branch still goes through the forge (`deleteBranch`), as before.
import type { Forge, MergeMethod, RepoRef } from '../forges/types.ts';
import { cleanupMergedIssue } from './cleanup.ts';
import { cloneUrlOf, type WorkspacePorts } from './worker-clone.ts';
import { ensureClone } from './workspace.ts';

export interface MergedBranch {
  branch: string;
  /** The branch the PR was merged into. */
  mergedInto: string;
  method: MergeMethod;
}

/**
 * Deletes `branch` on origin once it is merged. Returns why it was kept (already gone is not kept),
 * for the caller's log; throws when git or the forge fails.
 */
export const deleteMergedBranch = async (
  deps: WorkspacePorts,
  at: { forge: Forge; repo: RepoRef },
  o: MergedBranch,
): Promise<string[]> => {
  if (o.method !== 'merge') {
    await at.forge.deleteBranch(at.repo, o.branch);
    return [];
  }
  const workspace = deps.config.runner.workspace;
  const cloneUrl = await cloneUrlOf(deps, at.forge, at.repo);
  const ctx = await deps.runner.gitContext(at.repo);
  // The clone builds and reverts use; made once if this host has none yet (cleanup fetches it).
  await ensureClone(workspace, at.repo, cloneUrl, ctx, false);
  const r = await cleanupMergedIssue(
    workspace,
    { repo: at.repo, branch: o.branch, mergedInto: o.mergedInto, deleteRemote: true, cloneUrl },
    ctx,
  );
  return r.kept;
};
