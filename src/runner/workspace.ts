// The runner's workspace: one clone per repo at `<workspace>/<owner>/<repo>`, reused and fetched
// when present. Every path is resolved and checked to stay inside the workspace, symlinks included.
import { existsSync, lstatSync, mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { AppError } from '../errors.ts';
import { type GitContext, git, gitTry } from './git.ts';

const SAFE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;

/** Resolves segments under root; throws `workspace_escape` when the result (or a symlink on the way) leaves it. */
export const insideWorkspace = (root: string, ...segments: string[]): string => {
  const base = resolve(root);
  const target = resolve(base, ...segments);
  const rel = relative(base, target);
  if (rel === '' || rel.startsWith('..') || rel.split(sep).includes('..') || resolve(base, rel) !== target) {
    throw new AppError('workspace_escape', `Path ${segments.join('/')} is outside the workspace.`);
  }
  // Walk the existing part of the path: a symlink may not lead out of the workspace.
  const realBase = existsSync(base) ? realpathSync(base) : base;
  let probe = target;
  while (!existsSync(probe) && probe !== base) probe = dirname(probe);
  if (existsSync(probe)) {
    const real = realpathSync(probe);
    if (real !== realBase && !real.startsWith(realBase + sep)) {
      throw new AppError(
        'workspace_escape',
        `Path ${segments.join('/')} leads outside the workspace via a link.`,
      );
    }
  }
  return target;
};

export const checkRepoSegment = (s: string, what: string): string => {
  if (!SAFE_SEGMENT.test(s) || s.includes('..') || s.endsWith('.lock')) {
    throw new AppError('bad_request', `Unsafe ${what} name: ${JSON.stringify(s)}.`);
  }
  return s;
};

export const repoDirFor = (workspace: string, owner: string, name: string): string =>
  insideWorkspace(workspace, checkRepoSegment(owner, 'owner'), checkRepoSegment(name, 'repository'));

const hasUserInfo = (url: string): boolean => /^[a-z+]+:\/\/[^/]*@/i.test(url);

/**
 * Returns the clone of a repo, cloning it (into a temp dir, renamed into place only on success, so a
 * failed clone leaves nothing behind) or fetching the existing one.
 */
export const ensureClone = async (
  workspace: string,
  repo: { owner: string; name: string },
  cloneUrl: string,
  ctx: GitContext,
  /** False when the caller knows a fetch began after it asked (one fetch serves a burst of jobs). */
  fetch = true,
  /**
   * Clones (dir → clone URL) whose origin this caller has already checked or made: their
   * `remote get-url` is not asked again (a runner keeps one for its life). Only the runner writes its
   * clones (git.ts: a worker's repository is its own, read by the worker's git), so an origin checked
   * once stays what it was. Default: the context's (a runner's contexts carry its map).
   */
  knownOrigins?: Map<string, string>,
): Promise<string> => {
  if (hasUserInfo(cloneUrl)) {
    throw new AppError('bad_request', 'Clone URL must not carry credentials; they are passed per command.');
  }
  const known = knownOrigins ?? ctx.knownOrigins;
  const dir = repoDirFor(workspace, repo.owner, repo.name);
  if (existsSync(dir)) {
    if (lstatSync(dir).isSymbolicLink() || !existsSync(join(dir, '.git'))) {
      throw new AppError('conflict', `${dir} exists but is not a clone made by the runner.`);
    }
    if (known?.get(dir) !== cloneUrl) {
      const origin = (await gitTry(['remote', 'get-url', 'origin'], dir, ctx))?.trim();
      if (origin !== cloneUrl) {
        throw new AppError('conflict', `${dir} is a clone of another remote (${origin ?? 'none'}).`);
      }
      known?.set(dir, cloneUrl);
    }
    if (!fetch) return dir;
    // No `maintenance run --auto` child on every job start: the fetch of the cleanup after a merge
    // (cleanup.ts) keeps it, which is when a clone has gathered something to pack.
    await git(['fetch', '--prune', '--quiet', '--no-auto-maintenance', 'origin'], dir, {
      ...ctx,
      timeoutMs: ctx.timeoutMs ?? 600_000,
    });
    return dir;
  }
  mkdirSync(dirname(dir), { recursive: true });
  const tmp = insideWorkspace(workspace, repo.owner, `.cloning-${repo.name}-${process.pid}-${Date.now()}`);
  try {
    await git(['clone', '--quiet', '--no-checkout', '--', cloneUrl, tmp], dirname(dir), {
      ...ctx,
      timeoutMs: ctx.timeoutMs ?? 600_000,
    });
    renameSync(tmp, dir);
    known?.set(dir, cloneUrl);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err instanceof AppError
      ? new AppError(err.code, `Could not clone ${repo.owner}/${repo.name}: ${err.message}`, err.details)
      : err;
  }
  return dir;
};
