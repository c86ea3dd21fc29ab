// git in a worker's repository, run as the worker: through its jail (its uid, its sandbox), with no
// credential and none of the runner's config. Whatever the worker configured there (hooks, fsmonitor,
// gpg.program, alternateRefsCommand, filters) runs as the worker, which could run it anyway. What
// crosses back to the runner is data, parsed strictly here: shas, counts, file names, a bundle.
import { existsSync } from 'node:fs';
import { AppError } from '../errors.ts';
import { run } from './exec.ts';
import type { WorkerJail } from './jail.ts';

/** A worker's repository and the HOME its processes get. */
export interface WorkerRepo {
  path: string;
  home: string;
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** A sha as git prints it; anything else from a worker-side process is refused. */
export const isSha = (s: string | undefined): s is string => s !== undefined && SHA.test(s);

export class WorkerGit {
  constructor(
    readonly jail: WorkerJail,
    /** PATH and the like (no secret: workers get it too), from config/. */
    private readonly baseEnv: Record<string, string>,
    /**
     * What a sandboxed git must read besides the repository: the runner's cache objects it borrows
     * (found by the runner from the path, never from the repository's own alternates file).
     */
    private readonly readableFor: (path: string) => string[] = () => [],
  ) {}

  /** A worker's repository at `path`, with the worker's HOME (else the bot's, else the repository). */
  repoAt(path: string): WorkerRepo {
    const home = this.jail.user ? this.jail.user.home : this.baseEnv.HOME;
    return { path, home: home && existsSync(home) ? home : path };
  }

  /** Runs `git <args>` in the worker's repository as the worker; a non-zero exit is returned. */
  run(
    repo: WorkerRepo,
    args: string[],
    opts: { stdoutFile?: string; timeoutMs?: number; signal?: AbortSignal } = {},
  ) {
    const user = this.jail.user;
    // In the sandbox git gets a HOME of its own on the sandbox's private /tmp: neither the bot's nor the
    // worker's (whose global config the worker wrote), and no network.
    const sandboxed = this.jail.kind === 'bubblewrap';
    const argv = this.jail.wrap(['git', ...args], {
      cwd: repo.path,
      writable: sandboxed ? [repo.path] : [repo.path, repo.home],
      home: sandboxed ? '/tmp' : repo.home,
      readable: this.readableFor(repo.path),
      offline: true,
    });
    return run(argv, {
      cwd: repo.path,
      env: {
        ...this.baseEnv,
        HOME: repo.home,
        ...(user ? { USER: user.name, LOGNAME: user.name } : {}),
        GIT_TERMINAL_PROMPT: '0',
        LC_ALL: 'C',
      },
      timeoutMs: opts.timeoutMs ?? 60_000,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.stdoutFile !== undefined ? { stdoutFile: opts.stdoutFile } : {}),
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
  }

  /** Like run(), but a non-zero exit throws `git_failed` with the (worker's) stderr. */
  async must(repo: WorkerRepo, args: string[], opts: { stdoutFile?: string } = {}): Promise<string> {
    const res = await this.run(repo, args, opts);
    if (res.exitCode !== 0)
      throw new AppError(
        'git_failed',
        `git ${args[0]} in the worker's repository failed: ${(res.stderr.trim() || res.stdout.trim()).slice(-500)}`,
        { args: args.slice(0, 1), exitCode: res.exitCode, timedOut: res.timedOut },
      );
    return res.stdout;
  }
}

/** HEAD and the attempt's branch in the worker's repository (null / undefined: none). */
export interface WorkerRefs {
  head: string | null;
  local?: string;
}

export const readWorkerRefs = async (
  wg: WorkerGit,
  repo: WorkerRepo,
  branch: string,
): Promise<WorkerRefs> => {
  const local = `refs/heads/${branch}`;
  const res = await wg.run(repo, ['show-ref', '--head', '--', local]);
  const refs: WorkerRefs = { head: null };
  for (const line of res.stdout.split('\n')) {
    const [sha, name, extra] = line.split(' ');
    if (!isSha(sha) || extra !== undefined) continue;
    if (name === 'HEAD') refs.head = sha;
    else if (name === local) refs.local = sha;
  }
  return refs;
};

/** Files `git status` lists (modified, staged, untracked) in the worker's repository. */
export const dirtyFileCount = async (wg: WorkerGit, repo: WorkerRepo): Promise<number> => {
  const out = await wg.must(repo, ['status', '--porcelain']);
  return out.split('\n').filter((l) => l.trim()).length;
};

/** Commits `tip` holds that none of `known` (shas the runner has) does, counted by the worker's git. */
export const commitsNotIn = async (
  wg: WorkerGit,
  repo: WorkerRepo,
  tip: string,
  known: readonly string[],
): Promise<number> => {
  const not = known.filter(isSha);
  const out = (
    await wg.must(repo, ['rev-list', '--count', tip, ...(not.length ? ['--not', ...not] : [])])
  ).trim();
  if (!/^\d{1,9}$/.test(out)) throw new AppError('git_failed', 'The worker-side count was not a number.');
  return Number(out);
};

/**
 * Writes a bundle of exactly `refs/heads/<branch>` to `file` (a path the runner owns: the worker's git
 * writes to its stdout, never to a path of the worker's choosing), leaving out what `known` holds.
 */
export const bundleBranch = async (
  wg: WorkerGit,
  repo: WorkerRepo,
  branch: string,
  known: readonly string[],
  file: string,
): Promise<void> => {
  const not = known.filter(isSha).map((s) => `^${s}`);
  await wg.must(repo, ['bundle', 'create', '--quiet', '-', `refs/heads/${branch}`, ...not], {
    stdoutFile: file,
  });
};

/** Parses NUL-separated paths a worker-side git printed: relative, no `..`, no control characters. */
export const parsePaths = (out: string): string[] =>
  out
    .split('\0')
    .filter(Boolean)
    .filter(
      (p) =>
        p.length <= 4096 &&
        !p.startsWith('/') &&
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
        !/[\u0000-\u001f\u007f]/.test(p) &&
        !p.split('/').includes('..'),
    );

/**
 * Merges `sha` (origin's base as the runner fetched it, named `refs/remotes/origin/<baseBranch>` in
 * the worker's repository too) into the worker's branch, as the worker, and leaves the merge open
 * where it conflicts: returns the conflicted files.
 */
export const mergeInWorker = async (
  wg: WorkerGit,
  repo: WorkerRepo,
  baseBranch: string,
  sha: string,
): Promise<string[]> => {
  if (!isSha(sha)) throw new AppError('git_failed', `Not a commit to merge: ${sha}.`);
  const tracking = `refs/remotes/origin/${baseBranch}`;
  await wg.must(repo, ['update-ref', tracking, sha]);
  const who = ['-c', 'user.name=blitz-bot', '-c', 'user.email=blitz-bot@localhost'];
  await wg.run(repo, [...who, 'merge', '--no-edit', tracking]);
  return parsePaths(await wg.must(repo, ['diff', '--name-only', '--diff-filter=U', '-z']));
};

/** Of `files`, those whose HEAD version still starts a line with a conflict marker (each on its own). */
export const filesWithMarkersAt = async (
  wg: WorkerGit,
  repo: WorkerRepo,
  files: readonly string[],
): Promise<string[]> => {
  const marked: string[] = [];
  for (const f of files) {
    const res = await wg.run(repo, ['grep', '-c', '-E', '^(<{7}|>{7})( |$)', 'HEAD', '--', f]);
    if (res.exitCode === 0 && res.stdout.trim() !== '') marked.push(f);
  }
  return marked;
};
