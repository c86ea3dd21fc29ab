// Cleanup after merge (seed 001/004): remove the attempt repositories of merged branches (or of
// branches squash-merged at a named head), keep any that back unmerged work, and delete merged
// local branches of the runner's clone no attempt repository still uses. Per issue (issue 18): a
// merged issue's repository and branch, on origin too unless `keepBranches`; at start, the workspaces
// of issues that are no longer open. What a worker's repository holds (uncommitted files, its
// branch's tip) is read by the worker's own git (worker-git.ts); the runner only deletes the folder.
import { existsSync } from 'node:fs';
import { type GitContext, gitTry } from './git.ts';
import type { AttemptLedger, CleanupJob } from './types.ts';
import { dirtyFileCount, readWorkerRefs, type WorkerGit } from './worker-git.ts';
import { insideWorkspace } from './workspace.ts';
import { listAttemptRepos, mergedBranches, removeAttemptRepo, worktreePathFor } from './worktrees.ts';

/** Uncommitted files in a worker's repository, as its git counts them (undefined: it could not tell). */
const dirtyIn = (wg: WorkerGit, path: string): Promise<number | undefined> =>
  dirtyFileCount(wg, wg.repoAt(path)).catch(() => undefined);

const hasAttemptRepo = (
  workspace: string,
  repo: { owner: string; name: string },
  branch: string,
): boolean => {
  try {
    return existsSync(worktreePathFor(workspace, repo, branch));
  } catch {
    return false;
  }
};

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
  wg: WorkerGit,
  /** False when the caller has fetched origin into the clone since the job was asked (runner.ts). */
  fetch = true,
): Promise<CleanupResult> => {
  const result: CleanupResult = { removed: [], kept: [], deletedBranches: [] };
  const repoDir = insideWorkspace(workspace, job.repo.owner, job.repo.name);
  if (!existsSync(repoDir)) return result;
  if (fetch) await gitTry(['fetch', '--prune', '--quiet', 'origin'], repoDir, ctx);
  const merged = new Set(await mergedBranches(repoDir, job.mergedInto, ctx));
  // A squash-merged branch is merged only as it was merged: not if work was added after.
  const heads = new Set(job.mergedHeads);
  // No attempt ids: every worktree of the repo is in scope.
  const wanted = new Set<string>();
  for (const id of job.attemptIds) {
    const r = await ledger.get(id);
    if (r?.worktree) wanted.add(r.worktree);
  }
  for (const wt of await listAttemptRepos(workspace, job.repo, repoDir, ctx)) {
    if (wanted.size > 0 && !wanted.has(wt.path)) continue;
    if (!merged.has(wt.branch) && heads.size > 0) {
      const tip = (await readWorkerRefs(wg, wg.repoAt(wt.path), wt.branch).catch(() => undefined))?.local;
      if (tip && [...heads].some((h) => tip.startsWith(h)) && (await dirtyIn(wg, wt.path)) === 0) {
        merged.add(wt.branch);
      }
    }
    if (merged.has(wt.branch)) {
      await removeAttemptRepo(wt.path);
      result.removed.push(wt.path);
    } else result.kept.push(wt.path);
  }
  // Worktrees an older runner added to this clone, whose folders went above.
  await gitTry(['worktree', 'prune'], repoDir, ctx);
  for (const b of merged) {
    // Still used: its attempt repository exists (what listAttemptRepos would find, read without git).
    if (hasAttemptRepo(workspace, job.repo, b)) continue;
    // Merged is proven above (`--merged origin/<into>`, or the squash-merged head): the clone's own
    // HEAD, which `-d` would compare with, is never checked out and tells nothing.
    if (await gitTry(['branch', '-D', b], repoDir, ctx)) result.deletedBranches.push(b);
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

export interface MergedIssue {
  repo: { owner: string; name: string };
  /** The issue's worker branch. */
  branch: string;
  /** The branch it was merged into (`blitz/<slug>`, or the default branch for a fleet PR). */
  mergedInto: string;
  /** A squash or rebase merge: the head that was merged (never an ancestor of `mergedInto`). */
  mergedHead?: string;
  /** Delete the branch on origin too: repo config `keepBranches` is false. */
  deleteRemote: boolean;
  /** Where origin is, for the push that deletes the branch (never a remote name a worker could redirect). */
  cloneUrl: string;
}

export interface MergedIssueCleanup {
  worktreeRemoved?: string;
  localBranchDeleted: boolean;
  remoteBranchDeleted: boolean;
  /** Why something was kept, in words (work not merged, uncommitted files). */
  kept: string[];
}

/**
 * The shas of `refs` (full names) in one git command; a ref that does not exist is absent. for-each-ref
 * also matches a pattern as a prefix up to a slash: only exact names are kept.
 */
const shasOf = async (
  repoDir: string,
  refs: readonly string[],
  ctx: GitContext,
): Promise<Map<string, string>> => {
  const out =
    (await gitTry(['for-each-ref', '--format=%(objectname) %(refname)', ...refs], repoDir, ctx)) ?? '';
  const found = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [sha, name] = line.split(' ');
    if (sha && name && refs.includes(name)) found.set(name, sha);
  }
  return found;
};

/** The commit is in `origin/<into>`, or is the merged head of a squash or rebase merge. */
const isMerged = async (
  repoDir: string,
  commit: string,
  into: string,
  mergedHead: string | undefined,
  ctx: GitContext,
): Promise<boolean> => {
  if (mergedHead && commit.startsWith(mergedHead)) return true;
  return (
    (await gitTry(['merge-base', '--is-ancestor', commit, `refs/remotes/origin/${into}`], repoDir, ctx)) !==
    undefined
  );
};

/**
 * After an issue's PR merged: removes its attempt repository and local branch, and its branch on
 * origin unless `keepBranches`. Each only when what it holds is merged: a repository with uncommitted
 * files, a branch with commits after the merge, or an origin branch someone pushed to since, is kept
 * and named. Without `wg` (the bot's side, which reads no worker's repository) an attempt repository
 * still there is kept: its host's cleanup job removes it.
 */
export const cleanupMergedIssue = async (
  workspace: string,
  issue: MergedIssue,
  ctx: GitContext,
  wg?: WorkerGit,
): Promise<MergedIssueCleanup> => {
  const result: MergedIssueCleanup = { localBranchDeleted: false, remoteBranchDeleted: false, kept: [] };
  const { branch, mergedInto } = issue;
  if (issueNumberOfBranch(branch) === undefined || branch === mergedInto) {
    result.kept.push(`${branch} is not an issue branch`);
    return result;
  }
  const repoDir = insideWorkspace(workspace, issue.repo.owner, issue.repo.name);
  if (!existsSync(repoDir)) {
    result.kept.push('no clone of the repository on this host');
    return result;
  }
  await gitTry(['fetch', '--prune', '--quiet', 'origin'], repoDir, ctx);
  // Both tips as the fetch left them (deleting the local branch below leaves origin's ref as it is).
  const tips = await shasOf(repoDir, [`refs/heads/${branch}`, `refs/remotes/origin/${branch}`], ctx);
  const localTip = tips.get(`refs/heads/${branch}`);
  const localMerged =
    localTip !== undefined && (await isMerged(repoDir, localTip, mergedInto, issue.mergedHead, ctx));
  const path = worktreePathFor(workspace, issue.repo, branch);
  const worktree = existsSync(path) ? { path } : undefined;
  if (worktree && !wg) result.kept.push(`the worktree of ${branch} is left to its runner's cleanup`);
  else if (worktree && wg) {
    // The worker's own tip may hold commits the runner never took: merged only if it is merged too.
    const tip = (await readWorkerRefs(wg, wg.repoAt(path), branch).catch(() => undefined))?.local;
    const tipMerged =
      tip === undefined ||
      tip === localTip ||
      (await isMerged(repoDir, tip, mergedInto, issue.mergedHead, ctx));
    if (!localMerged || !tipMerged)
      result.kept.push(`the worktree of ${branch} holds commits that are not merged`);
    else if ((await dirtyIn(wg, path)) !== 0)
      result.kept.push(`the worktree of ${branch} has uncommitted files`);
    else {
      await removeAttemptRepo(path);
      result.worktreeRemoved = path;
    }
  }
  if (localTip && localMerged && (!worktree || result.worktreeRemoved)) {
    result.localBranchDeleted = (await gitTry(['branch', '-D', branch], repoDir, ctx)) !== undefined;
  }
  const remoteTip = tips.get(`refs/remotes/origin/${branch}`);
  if (!issue.deleteRemote || remoteTip === undefined) return result;
  if (!(await isMerged(repoDir, remoteTip, mergedInto, issue.mergedHead, ctx))) {
    result.kept.push(`${branch} on origin has commits that are not merged`);
    return result;
  }
  // The lease: deleted only if origin still has the tip we checked, never a branch pushed to since.
  const pushed = await gitTry(
    [
      'push',
      '--quiet',
      `--force-with-lease=refs/heads/${branch}:${remoteTip}`,
      issue.cloneUrl,
      `:refs/heads/${branch}`,
    ],
    repoDir,
    ctx,
  );
  if (pushed === undefined) result.kept.push(`${branch} on origin moved since it was merged`);
  else {
    result.remoteBranchDeleted = true;
    await gitTry(['update-ref', '-d', `refs/remotes/origin/${branch}`], repoDir, ctx);
  }
  return result;
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
  wg: WorkerGit,
): Promise<SweepResult> => {
  const result: SweepResult = { removed: [], kept: [], deletedBranches: [] };
  const repoDir = insideWorkspace(workspace, repo.owner, repo.name);
  if (!existsSync(repoDir)) return result;
  const closed = new Set(closedIssues);
  if (closed.size === 0) return result;
  const busy = new Set(busyWorktrees);
  await gitTry(['fetch', '--prune', '--quiet', 'origin'], repoDir, ctx);
  for (const wt of await listAttemptRepos(workspace, repo, repoDir, ctx)) {
    const n = issueNumberOfBranch(wt.branch);
    if (n === undefined || !closed.has(n)) continue;
    if (busy.has(wt.path)) {
      result.kept.push({ path: wt.path, reason: `an attempt is still using it (#${n} is closed)` });
      continue;
    }
    const dirty = await dirtyIn(wg, wt.path);
    // The worker's HEAD, read as the worker, counted in the runner's clone: a commit the clone has
    // never seen is work found nowhere else.
    const head = (await readWorkerRefs(wg, wg.repoAt(wt.path), wt.branch).catch(() => undefined))?.head;
    const unpushed = head
      ? Number(
          (await gitTry(['rev-list', '--count', head, '--not', '--remotes=origin'], repoDir, ctx))?.trim() ??
            'NaN',
        )
      : Number.NaN;
    if (dirty !== 0 || !(unpushed === 0)) {
      result.kept.push({
        path: wt.path,
        reason: `#${n} is closed but its worktree holds work found nowhere else`,
      });
      continue;
    }
    await removeAttemptRepo(wt.path);
    result.removed.push(wt.path);
    if (await gitTry(['branch', '-D', wt.branch], repoDir, ctx)) result.deletedBranches.push(wt.branch);
  }
  await gitTry(['worktree', 'prune'], repoDir, ctx);
  return result;
};
