// Cleanup after merge (seed 001/004): unlock and remove the worktrees of merged branches (or of
// branches squash-merged at a named head), keep any that back unmerged work, and delete merged
// local branches no worktree still uses; at start, the workspaces of issues that are no longer open.
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

/**
 * The issue number of a worker branch (`<slug>/<n>-<title>`, `ticket/<n>-headless`); undefined for
 * anything else, integration branches (`blitz/<slug>`) and default branches included, so that no
 * sweep or deletion can ever reach them.
 */
export const issueNumberOfBranch = (branch: string): number | undefined => {
  if (branch.startsWith('blitz/')) return undefined;
  const m = /^[a-z0-9][a-z0-9-]*\/(\d{1,10})-[a-z0-9][a-z0-9-]*$/.exec(branch);
  const n = m ? Number(m[1]) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

export interface SweepResult {
  removed: string[];
  kept: { path: string; reason: string }[];
  deletedBranches: string[];
}

/**
 * At start: removes the worktrees (and local branches) of issues closed on the tracker, given their
 * numbers (an issue not named is left alone: it may be open, or another run's). A worktree an attempt
 * is using, or one holding work that exists nowhere else (uncommitted files, commits not on origin),
 * is kept and named.
 */
export const sweepClosedIssueWorkspaces = async (
  workspace: string,
  repo: { owner: string; name: string },
  closedIssues: Iterable<number>,
  busyWorktrees: Iterable<string>,
  ctx: GitContext,
): Promise<SweepResult> => {
  const result: SweepResult = { removed: [], kept: [], deletedBranches: [] };
  const repoDir = insideWorkspace(workspace, repo.owner, repo.name);
  if (!existsSync(repoDir)) return result;
  const closed = new Set(closedIssues);
  if (closed.size === 0) return result;
  const busy = new Set(busyWorktrees);
  await gitTry(['fetch', '--prune', '--quiet', 'origin'], repoDir, ctx);
  for (const wt of await listWorktrees(repoDir, ctx)) {
    if (wt.path === repoDir || !wt.branch) continue;
    const n = issueNumberOfBranch(wt.branch);
    if (n === undefined || !closed.has(n)) continue;
    if (busy.has(wt.path)) {
      result.kept.push({ path: wt.path, reason: `an attempt is still using it (#${n} is closed)` });
      continue;
    }
    const dirty = (await gitTry(['status', '--porcelain'], wt.path, ctx)) ?? 'unknown';
    const unpushed = Number(
      (await gitTry(['rev-list', '--count', 'HEAD', '--not', '--remotes=origin'], wt.path, ctx))?.trim() ??
        'NaN',
    );
    if (dirty.trim() !== '' || !(unpushed === 0)) {
      result.kept.push({
        path: wt.path,
        reason: `#${n} is closed but its worktree holds work found nowhere else`,
      });
      continue;
    }
    await removeWorktree(repoDir, wt.path, ctx);
    result.removed.push(wt.path);
    if (await gitTry(['branch', '-D', wt.branch], repoDir, ctx)) result.deletedBranches.push(wt.branch);
  }
  return result;
};
