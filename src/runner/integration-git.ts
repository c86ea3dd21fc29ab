// Git work on the integration branch inside the runner's workspace: a detached worktree at the tip
// of `blitz/<slug>` (made afresh for each use) for builds and smoke checks, finding which merge broke a build, and reverting it.
// Every git command goes through runner/git.ts (the exec choke point), with the runner's credentials.
import { rm } from 'node:fs/promises';
import { type BoundedDiff, boundDiff, type RepoRef } from '../forges/types.ts';
import { type GitContext, git, gitTry } from './git.ts';
import { ensureClone, insideWorkspace } from './workspace.ts';

export interface IntegrationGit {
  workspace: string;
  repo: RepoRef;
  cloneUrl: string;
  branch: string;
  ctx: GitContext;
}

/**
 * The integration worktree checked out (detached) at `ref` (default: the branch tip on origin). The
 * integration branch, and the branches in `also` (the default branch a diff is read against), are
 * fetched in one command: the clone's whole `fetch --prune` is not needed for them.
 */
export const integrationWorktree = async (
  g: IntegrationGit,
  ref?: string,
  also: readonly string[] = [],
): Promise<string> => {
  const repoDir = await ensureClone(g.workspace, g.repo, g.cloneUrl, g.ctx, false);
  const branches = [...new Set([g.branch, ...also])];
  await git(
    ['fetch', '--quiet', 'origin', ...branches.map((b) => `+refs/heads/${b}:refs/remotes/origin/${b}`)],
    repoDir,
    g.ctx,
  );
  const path = insideWorkspace(
    g.workspace,
    '.integration',
    g.repo.owner,
    g.repo.name,
    g.branch.replaceAll('/', '-'),
  );
  const target = ref ?? `origin/${g.branch}`;
  // Made afresh each time: the gates that ran in the last one ran as the worker, which may have left
  // anything there (its `.git` file pointing at a git directory of its own making). The runner's git
  // never runs in a tree a worker wrote.
  await rm(path, { recursive: true, force: true });
  await gitTry(['worktree', 'prune'], repoDir, g.ctx);
  await git(['worktree', 'add', '--quiet', '--force', '--detach', path, target], repoDir, g.ctx);
  return path;
};

/**
 * The merge commit that brought `head` into the integration branch: the newest merge on its
 * first-parent line whose second parent is `head`, as origin has it now. Undefined when there is none
 * (a squash or rebase merge leaves no such commit): the caller asks the forge.
 */
export const mergeCommitOf = async (g: IntegrationGit, head: string): Promise<string | undefined> => {
  const repoDir = await ensureClone(g.workspace, g.repo, g.cloneUrl, g.ctx, false);
  const tracking = `refs/remotes/origin/${g.branch}`;
  await git(['fetch', '--quiet', 'origin', `+refs/heads/${g.branch}:${tracking}`], repoDir, g.ctx);
  const merges = await git(
    ['log', '--first-parent', '--merges', '--format=%H %P', '-n', '200', tracking],
    repoDir,
    g.ctx,
  );
  for (const line of merges.split('\n')) {
    const [sha, , second] = line.trim().split(' ');
    if (sha && second === head) return sha;
  }
  return undefined;
};

/** Reverts merge commit `sha` on the integration branch and pushes; returns the new tip. */
export const revertMerge = async (g: IntegrationGit, sha: string, issueNumber: number): Promise<string> => {
  const path = await integrationWorktree(g);
  const parents = (await git(['show', '-s', '--format=%P', sha], path, g.ctx)).trim().split(' ');
  const args = parents.length > 1 ? ['revert', '--no-edit', '-m', '1', sha] : ['revert', '--no-edit', sha];
  await git(args, path, g.ctx);
  await git(
    [
      'commit',
      '--quiet',
      '--amend',
      '-m',
      `Revert the merge of #${issueNumber}: the wave build failed after it`,
    ],
    path,
    g.ctx,
  );
  await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${g.branch}`], path, g.ctx);
  return (await git(['rev-parse', 'HEAD'], path, g.ctx)).trim();
};

/** Paths changed on the integration branch against the default branch (a destructive migration vetoes a deploy). */
export const changedSinceDefault = async (g: IntegrationGit, defaultBranch: string): Promise<string[]> => {
  const path = await integrationWorktree(g, undefined, [defaultBranch]);
  const out = await git(['diff', '--name-only', `origin/${defaultBranch}...HEAD`], path, g.ctx);
  return out.split('\n').filter(Boolean);
};

/**
 * The paths merge commit `sha` changed on the integration branch (against its first parent: the tip
 * the merge landed on), read from the bot's own clone: what a merged PR changed costs no forge request.
 * A rename counts as both its paths.
 */
export const filesOfMerge = async (g: IntegrationGit, sha: string): Promise<string[]> => {
  if (!/^[0-9a-f]{40}$/.test(sha)) throw new Error(`not a commit id: ${sha.slice(0, 80)}`);
  const repoDir = await ensureClone(g.workspace, g.repo, g.cloneUrl, g.ctx, false);
  await git(
    ['fetch', '--quiet', 'origin', `+refs/heads/${g.branch}:refs/remotes/origin/${g.branch}`],
    repoDir,
    g.ctx,
  );
  const out = await git(['diff', '--name-only', '--no-renames', '-z', `${sha}^1`, sha], repoDir, g.ctx);
  return out.split('\0').filter(Boolean);
};

/** The integration branch and an open PR's branch fetched into the bot's own clone; its directory. */
const fetchHead = async (g: IntegrationGit, prBranch: string, head: string): Promise<string> => {
  if (!/^[0-9a-f]{40}$/.test(head)) throw new Error(`not a commit id: ${head.slice(0, 80)}`);
  const repoDir = await ensureClone(g.workspace, g.repo, g.cloneUrl, g.ctx, false);
  await git(
    [
      'fetch',
      '--quiet',
      'origin',
      `+refs/heads/${g.branch}:refs/remotes/origin/${g.branch}`,
      `+refs/heads/${prBranch}:refs/remotes/origin/${prBranch}`,
    ],
    repoDir,
    g.ctx,
  );
  return repoDir;
};

/**
 * The paths an open PR changes (its head against where it forks from the integration branch, as the
 * forge's file list has them), read from the bot's own clone after fetching the PR's branch: no forge
 * request. `head` is the head the caller read from the forge; a branch that moved since fails here.
 */
export const filesOfHead = async (g: IntegrationGit, prBranch: string, head: string): Promise<string[]> => {
  const repoDir = await fetchHead(g, prBranch, head);
  const out = await git(
    ['diff', '--name-only', '--no-renames', '-z', `refs/remotes/origin/${g.branch}...${head}`],
    repoDir,
    g.ctx,
  );
  return out.split('\0').filter(Boolean);
};

/**
 * An open PR's diff as the forge serves it (head against where it forks from the integration branch,
 * a rename as a delete and an add), read from the bot's own clone: no forge request. Cut at `maxBytes`
 * like the forge's read. No external diff or text conversion: the clone's config is the bot's alone,
 * but the PR's `.gitattributes` is the worker's.
 */
export const diffOfHead = async (
  g: IntegrationGit,
  prBranch: string,
  head: string,
  maxBytes: number,
): Promise<BoundedDiff> => {
  const repoDir = await fetchHead(g, prBranch, head);
  const out = await git(
    [
      'diff',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--no-renames',
      `refs/remotes/origin/${g.branch}...${head}`,
    ],
    repoDir,
    g.ctx,
  );
  return boundDiff(out, maxBytes);
};
