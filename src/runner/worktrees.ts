// One repository per attempt branch, under `<workspace>/.worktrees/<owner>/<repo>/`: its own `.git`
// (never a worktree of the runner's clone), created by the runner from that clone (the cache) and then
// handed to the worker. Its objects come from the cache through `objects/info/alternates`, read-only:
// the worker's git writes new objects into its own repository and can change nothing in the cache.
// After the hand-over the runner runs no git there; what it needs crosses as data (worker-git.ts).
import { appendFileSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../errors.ts';
import { worktreeDirName } from './branch-names.ts';
import { type GitContext, git, gitTry } from './git.ts';
import {
  bundleBranch,
  commitsNotIn,
  dirtyFileCount,
  isSha,
  mergeInWorker,
  readWorkerRefs,
  type WorkerGit,
  type WorkerRepo,
} from './worker-git.ts';
import { chownTree, type WorkerUser } from './worker-user.ts';
import { checkRepoSegment, insideWorkspace } from './workspace.ts';

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

/**
 * What a new attempt repository starts from, as the cache has it: the attempt's branch as the runner
 * last took it from a worker (its local branch), its tracking ref (origin's branch as last fetched)
 * and origin's base branch, in one git command (show-ref matches by suffix: keep exact names).
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

/** A git config value in double quotes (a newline cannot be written: refused). */
const configValue = (v: string): string => {
  if (/[\n\r\0]/.test(v)) throw new AppError('bad_request', 'A git config value may not hold a line break.');
  return `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
};

let creating = 0;

/**
 * Creates (or finds again) the repository of `branch`: from the cache's local branch if it has one,
 * else from origin's branch, else new off `origin/<baseBranch>`. The runner makes it in a directory
 * of its own, hands it to the worker user (`user`) and only then moves it into place. Returns its
 * path, whether it already existed and, for a new one, the branch's sha on origin as the cache last
 * fetched it (null: origin has no such branch), read by the command that chose where to start from
 * (or given: `known`, read by the caller since the cache last changed).
 */
export const ensureAttemptRepo = async (
  o: {
    workspace: string;
    cacheDir: string;
    repo: { owner: string; name: string };
    branch: string;
    baseBranch: string;
    cloneUrl: string;
    user?: WorkerUser;
  },
  ctx: GitContext,
  known?: StartRefs,
): Promise<{ path: string; reused: true } | { path: string; reused: false; originSha: string | null }> => {
  const path = worktreePathFor(o.workspace, o.repo, o.branch);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st) {
    if (!st.isDirectory() || !lstatSync(join(path, '.git'), { throwIfNoEntry: false })?.isDirectory())
      throw new AppError(
        'conflict',
        `${path} exists but is not the runner's worktree of ${o.branch}: not a repository of its own (one an older runner added to its shared clone is not one either; remove it).`,
      );
    return { path, reused: true };
  }
  const { local, remote, base } = known ?? (await readStartRefs(o.cacheDir, o.branch, o.baseBranch, ctx));
  const start = local ?? remote ?? base;
  if (!start) throw new AppError('git_failed', `Base branch ${o.baseBranch} does not exist on origin.`);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.creating-${basename(path)}-${process.pid}-${++creating}`);
  try {
    await git(['init', '--quiet', `--initial-branch=${o.branch}`, tmp], dirname(path), ctx);
    writeFileSync(
      join(tmp, '.git', 'objects', 'info', 'alternates'),
      `${join(o.cacheDir, '.git', 'objects')}\n`,
    );
    // origin as a clone would name it (a worker holds no credential to use it with), and the branch
    // tracking origin's when origin has it.
    appendFileSync(
      join(tmp, '.git', 'config'),
      `[remote "origin"]\n\turl = ${configValue(o.cloneUrl)}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n` +
        (remote
          ? `[branch ${configValue(o.branch)}]\n\tremote = origin\n\tmerge = refs/heads/${o.branch}\n`
          : ''),
    );
    const refs = [
      `create refs/heads/${o.branch} ${start}`,
      ...(base ? [`create refs/remotes/origin/${o.baseBranch} ${base}`] : []),
      ...(remote ? [`create refs/remotes/origin/${o.branch} ${remote}`] : []),
    ];
    await git(['update-ref', '--stdin'], tmp, ctx, { input: `${refs.join('\n')}\n` });
    await git(['reset', '--quiet', '--hard'], tmp, ctx);
    // The cache records the branch too (cleanup finds attempt repositories by it).
    if (!local) await gitTry(['update-ref', `refs/heads/${o.branch}`, start, ''], o.cacheDir, ctx);
    if (o.user) chownTree(tmp, o.user);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return { path, reused: false, originSha: remote ?? null };
};

/**
 * Deletes an attempt repository (the runner's to remove: it made it; nothing is run inside). Off the
 * event loop: a repository's few hundred unlinks and rmdirs take ~20 ms of waiting on the disk, which
 * a synchronous remove spent blocking every other run's pass.
 */
export const removeAttemptRepo = (path: string): Promise<void> => rm(path, { recursive: true, force: true });

/** The attempt repositories of a cache: its local branches whose repository exists. */
export const listAttemptRepos = async (
  workspace: string,
  repo: { owner: string; name: string },
  cacheDir: string,
  ctx: GitContext,
): Promise<{ path: string; branch: string }[]> => {
  const out =
    (await gitTry(['for-each-ref', '--format=%(refname:lstrip=2)', 'refs/heads/'], cacheDir, ctx)) ?? '';
  const list: { path: string; branch: string }[] = [];
  for (const branch of out.split('\n').filter(Boolean)) {
    let path: string;
    try {
      path = worktreePathFor(workspace, repo, branch);
    } catch {
      continue;
    }
    if (existsSync(path)) list.push({ path, branch });
  }
  return list;
};

/** The worker's repository of an attempt, with the HOME its worker-side processes get. */
export type AttemptRepo = WorkerRepo;

/**
 * Takes the worker's branch into the cache's `refs/heads/<branch>`: `tip` (the sha the worker-side
 * read found) when the cache has that commit, else through a bundle of exactly that ref, written by
 * the worker's git to a file the runner owns and checked here (one head, the branch, at `tip`) before
 * the cache fetches it with its own config. Returns false when nothing usable arrived.
 */
export const importBranch = async (
  wg: WorkerGit,
  at: AttemptRepo,
  cacheDir: string,
  branch: string,
  tip: string,
  known: readonly string[],
  ctx: GitContext,
): Promise<boolean> => {
  if (!isSha(tip)) return false;
  const ref = `refs/heads/${branch}`;
  if ((await gitTry(['cat-file', '-e', `${tip}^{commit}`], cacheDir, ctx)) !== undefined) {
    return (await gitTry(['update-ref', ref, tip], cacheDir, ctx)) !== undefined;
  }
  const dir = join(cacheDir, '.git', 'blitz-imports');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${worktreeDirName(branch)}-${process.pid}-${++creating}.bundle`);
  try {
    await bundleBranch(wg, at, branch, known, file);
    const heads = (await git(['bundle', 'list-heads', file], cacheDir, ctx)).split('\n').filter(Boolean);
    if (heads.length !== 1 || heads[0] !== `${tip} ${ref}`)
      throw new AppError(
        'forbidden',
        `The worker's bundle held ${heads.length} refs, not just ${ref} at ${tip}.`,
      );
    await git(
      [
        '-c',
        'transfer.fsckObjects=true',
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        file,
        `+${ref}:${ref}`,
      ],
      cacheDir,
      ctx,
    );
    const now = (await git(['rev-parse', '--verify', '--quiet', ref], cacheDir, ctx)).trim();
    return now === tip;
  } finally {
    rmSync(file, { force: true });
  }
};

/** What an interrupted worker left: commits not on origin yet, and uncommitted files (read as the worker). */
export const survivedWork = async (
  wg: WorkerGit,
  at: AttemptRepo,
  cacheDir: string,
  branch: string,
  baseBranch: string,
  ctx: GitContext,
): Promise<{ unpushedCommits: number; dirtyFiles: number }> => {
  const { remote, base } = await readStartRefs(cacheDir, branch, baseBranch, ctx);
  const upstream = remote ?? base;
  const head = (await readWorkerRefs(wg, at, branch)).head;
  const unpushedCommits = head ? await commitsNotIn(wg, at, head, upstream ? [upstream] : []) : 0;
  return { unpushedCommits, dirtyFiles: await dirtyFileCount(wg, at) };
};

/**
 * Commits `ref` (a sha of `branch` on origin) holds that `origin/<baseBranch>` does not: the work an
 * earlier attempt of the same issue pushed. Both are fetched into the cache first, so the answer is
 * origin's.
 */
export const commitsAheadOfBase = async (
  cacheDir: string,
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
    cacheDir,
    ctx,
  );
  const out = await gitTry(
    ['rev-list', '--count', `refs/remotes/origin/${baseBranch}..${ref}`],
    cacheDir,
    ctx,
  );
  return Number(out?.trim() ?? 0) || 0;
};

/**
 * Merges `origin/<baseBranch>` (fetched now into the cache, with the runner's credentials) into the
 * worker's branch, as the worker, and leaves the merge open where it conflicts: returns the
 * conflicted files, for a worker resumed to resolve them.
 */
export const mergeBaseInto = async (
  wg: WorkerGit,
  at: AttemptRepo,
  cacheDir: string,
  baseBranch: string,
  ctx: GitContext,
): Promise<string[]> => {
  const tracking = `refs/remotes/origin/${baseBranch}`;
  await git(['fetch', '--quiet', 'origin', `+refs/heads/${baseBranch}:${tracking}`], cacheDir, ctx);
  const sha = (await git(['rev-parse', '--verify', '--quiet', tracking], cacheDir, ctx)).trim();
  return mergeInWorker(wg, at, baseBranch, sha);
};

/**
 * Local branches whose tip is contained in `origin/<into>`, but the one the clone's HEAD names (its
 * default branch, never checked out: git refuses to delete it, so it is not offered).
 */
export const mergedBranches = async (repoDir: string, into: string, ctx: GitContext): Promise<string[]> => {
  const out = await git(
    ['branch', '--format=%(HEAD)%(refname:short)', '--merged', `origin/${into}`],
    repoDir,
    ctx,
  );
  return out
    .split('\n')
    .map((s) => s.trim())
    .filter((b) => b && !b.startsWith('*') && b !== into);
};

/**
 * Files at `ref` that still hold a conflict marker line. `ref` is a commit the cache holds: the exit's
 * read asks only after commitsAheadOfBase fetched the branch and counted commits up to it, so no
 * second fetch.
 */
export const conflictMarkers = async (cacheDir: string, ref: string, ctx: GitContext): Promise<string[]> => {
  const out = await gitTry(['grep', '-l', '-I', '-E', '^(<{7}|>{7})( |$)', ref, '--'], cacheDir, ctx);
  return (out ?? '')
    .split('\n')
    .map((l) => l.trim().replace(`${ref}:`, ''))
    .filter(Boolean);
};
