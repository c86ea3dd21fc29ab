// One git worktree per issue, under `<workspace>/.worktrees/<owner>/<repo>/`. A path that exists but
// is not our worktree for that branch is refused, never reused or overwritten.
import { existsSync, realpathSync } from 'node:fs';
import { AppError } from '../errors.ts';
import { worktreeDirName } from './branch-names.ts';
import { type GitContext, git, gitTry } from './git.ts';
import { checkRepoSegment, insideWorkspace } from './workspace.ts';

export interface WorktreeInfo {
  path: string;
  branch?: string;
  locked: boolean;
}

export const listWorktrees = async (repoDir: string, ctx: GitContext): Promise<WorktreeInfo[]> => {
  const out = await git(['worktree', 'list', '--porcelain'], repoDir, ctx);
  const list: WorktreeInfo[] = [];
  for (const block of out.split('\n\n')) {
    const lines = block.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice(9);
    if (!path) continue;
    const branch = lines.find((l) => l.startsWith('branch refs/heads/'))?.slice(18);
    list.push({ path, branch, locked: lines.some((l) => l.startsWith('locked')) });
  }
  return list;
};

export const worktreePathFor = (
  workspace: string,
  repo: { owner: string; name: string },
  branch: string,
): string =>
  insideWorkspace(
    workspace,
    '.worktrees',
    checkRepoSegment(repo.owner, 'owner'),
    checkRepoSegment(repo.name, 'repository'),
    worktreeDirName(branch),
  );

const samePath = (a: string, b: string): boolean => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
};

/**
 * What a new worktree's start depends on, as the clone has it: the attempt's local branch, its
 * tracking ref (origin's branch as last fetched) and origin's base branch, in one git command
 * (show-ref matches by suffix: keep exact names).
 */
export interface StartRefs {
  local?: string;
  remote?: string;
  base?: string;
}

export const readStartRefs = async (
  repoDir: string,
  branch: string,
  baseBranch: string,
  ctx: GitContext,
): Promise<StartRefs> => {
  const want = [`refs/heads/${branch}`, `refs/remotes/origin/${branch}`, `refs/remotes/origin/${baseBranch}`];
  const found = new Map<string, string>();
  for (const line of ((await gitTry(['show-ref', '--', ...want], repoDir, ctx)) ?? '').split('\n')) {
    const [sha, name] = line.split(' ');
    if (sha && name && want.includes(name)) found.set(name, sha);
  }
  const [local, remote, base] = want.map((ref) => found.get(ref));
  return { ...(local ? { local } : {}), ...(remote ? { remote } : {}), ...(base ? { base } : {}) };
};

/**
 * Creates (or finds again) the worktree of `branch`: from the local branch if it exists, else from the
 * remote branch, else new off `origin/<baseBranch>`. Returns its path, whether it already existed and,
 * for a new one, the branch's sha on origin as the clone last fetched it (null: origin has no such
 * branch), read by the same command that chose where to start from (or given: `known`, read by the
 * caller since the clone last changed).
 */
export const ensureWorktree = async (
  workspace: string,
  repoDir: string,
  repo: { owner: string; name: string },
  branch: string,
  baseBranch: string,
  ctx: GitContext,
  known?: StartRefs,
): Promise<{ path: string; reused: true } | { path: string; reused: false; originSha: string | null }> => {
  const path = worktreePathFor(workspace, repo, branch);
  if (existsSync(path)) {
    const ours = (await listWorktrees(repoDir, ctx)).find((w) => samePath(w.path, path));
    if (!ours || ours.branch !== branch) {
      throw new AppError(
        'conflict',
        `Worktree path ${path} exists but is not the runner's worktree of ${branch}.`,
      );
    }
    return { path, reused: true };
  }
  const { local, remote, base } = known ?? (await readStartRefs(repoDir, branch, baseBranch, ctx));
  if (local) await git(['worktree', 'add', '--quiet', path, branch], repoDir, ctx);
  else if (remote)
    await git(
      ['worktree', 'add', '--quiet', '--track', '-b', branch, path, `origin/${branch}`],
      repoDir,
      ctx,
    );
  else {
    if (!base) throw new AppError('git_failed', `Base branch ${baseBranch} does not exist on origin.`);
    await git(
      ['worktree', 'add', '--quiet', '--no-track', '-b', branch, path, `origin/${baseBranch}`],
      repoDir,
      ctx,
    );
  }
  return { path, reused: false, originSha: remote ?? null };
};

/** What an interrupted worker left: commits not on origin yet, and uncommitted files. */
export const survivedWork = async (
  worktree: string,
  branch: string,
  baseBranch: string,
  ctx: GitContext,
): Promise<{ unpushedCommits: number; dirtyFiles: number }> => {
  const upstream = (await gitTry(
    ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}`],
    worktree,
    ctx,
  ))
    ? `origin/${branch}`
    : `origin/${baseBranch}`;
  const log = await git(['log', '--oneline', `${upstream}..HEAD`], worktree, ctx);
  const status = await git(['status', '--porcelain'], worktree, ctx);
  const count = (s: string) => s.split('\n').filter((l) => l.trim()).length;
  return { unpushedCommits: count(log), dirtyFiles: count(status) };
};

/**
 * Commits `ref` (a sha of `branch` on origin) holds that `origin/<baseBranch>` does not: the work an
 * earlier attempt of the same issue pushed. Both are fetched first, so the answer is origin's.
 */
export const commitsAheadOfBase = async (
  cwd: string,
  branch: string,
  ref: string,
  baseBranch: string,
  ctx: GitContext,
): Promise<number> => {
  await gitTry(
    [
      'fetch',
      '--quiet',
      'origin',
      `+refs/heads/${baseBranch}:refs/remotes/origin/${baseBranch}`,
      `+refs/heads/${branch}:refs/remotes/origin/${branch}`,
    ],
    cwd,
    ctx,
  );
  const out = await gitTry(['rev-list', '--count', `refs/remotes/origin/${baseBranch}..${ref}`], cwd, ctx);
  return Number(out?.trim() ?? 0) || 0;
};

/**
 * Merges `origin/<baseBranch>` (fetched now) into the worktree and leaves the merge open where it
 * conflicts: returns the conflicted files, for a worker resumed to resolve them.
 */
export const mergeBaseInto = async (
  worktree: string,
  baseBranch: string,
  ctx: GitContext,
): Promise<string[]> => {
  await git(
    ['fetch', '--quiet', 'origin', `+refs/heads/${baseBranch}:refs/remotes/origin/${baseBranch}`],
    worktree,
    ctx,
  );
  const who = ['-c', 'user.name=blitz-bot', '-c', 'user.email=blitz-bot@localhost'];
  await gitTry([...who, 'merge', '--no-edit', `refs/remotes/origin/${baseBranch}`], worktree, ctx);
  const out = await git(['diff', '--name-only', '--diff-filter=U'], worktree, ctx);
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
};

/** Unlocks and removes a worktree (force: a merged branch's leftovers are disposable). */
export const removeWorktree = async (repoDir: string, path: string, ctx: GitContext): Promise<void> => {
  await gitTry(['worktree', 'unlock', path], repoDir, ctx);
  await git(['worktree', 'remove', '--force', path], repoDir, ctx);
  await gitTry(['worktree', 'prune'], repoDir, ctx);
};

/** Local branches whose tip is contained in `origin/<into>`. */
export const mergedBranches = async (repoDir: string, into: string, ctx: GitContext): Promise<string[]> => {
  const out = await git(['branch', '--format=%(refname:short)', '--merged', `origin/${into}`], repoDir, ctx);
  return out
    .split('\n')
    .map((s) => s.trim())
    .filter((b) => b && b !== into);
};

/** Files at `ref` (a sha of `branch` on origin) that still hold a conflict marker line. */
export const conflictMarkers = async (
  cwd: string,
  branch: string,
  ref: string,
  ctx: GitContext,
): Promise<string[]> => {
  await gitTry(['fetch', '--quiet', 'origin', `refs/heads/${branch}`], cwd, ctx);
  const out = await gitTry(['grep', '-l', '-I', '-E', '^(<{7}|>{7})( |$)', ref, '--'], cwd, ctx);
  return (out ?? '')
    .split('\n')
    .map((l) => l.trim().replace(`${ref}:`, ''))
    .filter(Boolean);
};
