// Cleanup after merge (seed 001/004): unlock and remove the worktrees of merged branches (or of
// branches squash-merged at a named head), keep any that back unmerged work, and delete merged
// local branches no worktree still uses.
import { existsSync } from 'node:fs';
import { type GitContext, gitTry } from './git.ts';
import type { AttemptLedger, CleanupJob } from './types.ts';
import { insideWorkspace } from './workspace.ts';
import { listWorktrees, mergedBranches, removeWorktree } from './worktrees.ts';

export interface CleanupResult {
  removed: string[];
  kept: string[];
  deletedBranches: string[];
}

export const cleanupRepo = async (
  workspace: string,
  job: CleanupJob,
  ledger: AttemptLedger,
  ctx: GitContext,
): Promise<CleanupResult> => {
  const result: CleanupResult = { removed: [], kept: [], deletedBranches: [] };
  const repoDir = insideWorkspace(workspace, job.repo.owner, job.repo.name);
  if (!existsSync(repoDir)) return result;
  await gitTry(['fetch', '--prune', '--quiet', 'origin'], repoDir, ctx);
  const merged = new Set(await mergedBranches(repoDir, job.mergedInto, ctx));
  // A squash-merged branch is merged only as it was merged: not if work was added after.
  const squashed = new Set<string>();
  const heads = new Set(job.mergedHeads);
  // No attempt ids: every worktree of the repo is in scope.
  const wanted = new Set<string>();
  for (const id of job.attemptIds) {
    const r = await ledger.get(id);
    if (r?.worktree) wanted.add(r.worktree);
  }
  for (const wt of await listWorktrees(repoDir, ctx)) {
    if (wt.path === repoDir || !wt.branch) continue;
    if (wanted.size > 0 && !wanted.has(wt.path)) continue;
    if (!merged.has(wt.branch) && heads.size > 0) {
      const tip = (await gitTry(['rev-parse', `refs/heads/${wt.branch}`], repoDir, ctx))?.trim();
      const dirty = (await gitTry(['status', '--porcelain'], wt.path, ctx)) ?? 'unknown';
      if (tip && [...heads].some((h) => tip.startsWith(h)) && dirty.trim() === '') {
        squashed.add(wt.branch);
        merged.add(wt.branch);
      }
    }
    if (merged.has(wt.branch)) {
      await removeWorktree(repoDir, wt.path, ctx);
      result.removed.push(wt.path);
    } else result.kept.push(wt.path);
  }
  const stillUsed = new Set((await listWorktrees(repoDir, ctx)).map((w) => w.branch));
  for (const b of merged) {
    if (stillUsed.has(b)) continue;
    const flag = squashed.has(b) ? '-D' : '-d';
    if (await gitTry(['branch', flag, b], repoDir, ctx)) result.deletedBranches.push(b);
  }
  return result;
};
