// A GitBackend over a real bare repository, so the fake forges merge, diff and report conflicts the
// way git does. It works without a work tree (merge-tree --write-tree, commit-tree, update-ref), so
// it can sit on the same bare origin that workers push to over a file path: a push is seen at once.
// A git process costs the test process ~10 ms of its own time to start, and the fakes ask about the
// same branches and commits over and over (every PR read checks mergeability): a branch is read from
// the repository's ref files (git writes them atomically; a loose ref wins over packed-refs, as in
// git), and what is fixed once the commits are (a merge's tree, ancestry, a diff) is asked once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../src/errors.ts';
import { type RunResult, run } from '../../src/runner/exec.ts';
import { removeDir, tempDir, testEnv, writeFiles } from './git.ts';
import type { GitBackend } from './world.ts';

export type ChangedFile = Awaited<ReturnType<GitBackend['changedFiles']>>[number];

export interface RealGitOptions {
  /** Per git command; a command that runs longer is killed. */
  timeoutMs?: number;
  /** Test seam: runs after a merge has written its commit and before the branch is moved. */
  beforeRefUpdate?: (branch: string) => Promise<void>;
}

const statusOf: Record<string, ChangedFile['status']> = {
  A: 'added',
  D: 'removed',
  M: 'modified',
  T: 'modified',
};
/** Who the fake forge's merge commits are by, so they are told apart from a worker's commits. */
export const forgeIdentity = {
  GIT_AUTHOR_NAME: 'Fake Forge',
  GIT_AUTHOR_EMAIL: 'forge@blitz.invalid',
  GIT_COMMITTER_NAME: 'Fake Forge',
  GIT_COMMITTER_EMAIL: 'forge@blitz.invalid',
};
const hexSha = /^[0-9a-f]{4,40}$/;
const fullSha = /^[0-9a-f]{40}$/;
/** A branch name that is a plain ref path (no revision syntax), so its ref file alone answers for it. */
const plainBranch = (name: string): boolean =>
  /^[A-Za-z0-9_][A-Za-z0-9._/-]*$/.test(name) && !/\.\.|\/\/|\/\.|\.lock(\/|$)|[/.]$/.test(name);

export class RealGit implements GitBackend {
  private readonly abort = new AbortController();
  private readonly timeoutMs: number;
  /** Merges and ref edits from this process run one at a time; pushes from outside are caught by CAS. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Answers that depend on commit shas only (commits never change): full sha pairs to results. */
  private readonly memo = new Map<string, unknown>();

  constructor(
    readonly bareDir: string,
    private readonly opts: RealGitOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  /** Cancels any git command still running (used on cleanup). */
  close(): void {
    this.abort.abort();
  }

  /** Runs git in the bare repo; no user or system config, so identity and output are fixed. */
  async exec(
    args: string[],
    extra: { input?: string; env?: Record<string, string> } = {},
  ): Promise<RunResult> {
    return run(['git', '-c', 'core.quotePath=false', ...args], {
      cwd: this.bareDir,
      env: { ...testEnv(), ...forgeIdentity, GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', ...extra.env },
      timeoutMs: this.timeoutMs,
      signal: this.abort.signal,
      input: extra.input,
    });
  }

  /** Like exec, but anything other than exit 0 is a `git_failed` error carrying git's stderr. */
  async ok(args: string[], extra: { input?: string; env?: Record<string, string> } = {}): Promise<string> {
    const res = await this.exec(args, extra);
    if (res.exitCode !== 0)
      throw new AppError('git_failed', `git ${args[0]} failed: ${res.stderr.trim()}`, { args });
    return res.stdout.trim();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async branches(): Promise<Map<string, string>> {
    const out = await this.ok(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/']);
    const map = new Map<string, string>();
    for (const line of out.split('\n').filter(Boolean)) {
      const [sha, ref] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
      map.set(ref.slice('refs/heads/'.length), sha);
    }
    return map;
  }

  /**
   * The sha of branch `name` from the ref files: a loose `refs/heads/NAME` wins over `packed-refs`.
   * null: no such branch; undefined: the files do not settle it (a symbolic ref, revision syntax), git does.
   */
  private branchFromFiles(name: string): string | null | undefined {
    if (!plainBranch(name)) return undefined;
    let loose: string | undefined;
    try {
      loose = readFileSync(join(this.bareDir, 'refs', 'heads', name), 'utf8').trim();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'EISDIR' && code !== 'ENOTDIR') return undefined;
    }
    if (loose !== undefined) return fullSha.test(loose) ? loose : undefined;
    let packed: string;
    try {
      packed = readFileSync(join(this.bareDir, 'packed-refs'), 'utf8');
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
    }
    const line = packed.split('\n').find((l) => l.endsWith(` refs/heads/${name}`));
    const sha = line?.slice(0, line.indexOf(' '));
    return sha === undefined ? null : fullSha.test(sha) ? sha : undefined;
  }

  /** A branch name or a (possibly short) commit sha to the full sha; undefined when neither exists. */
  async resolve(ref: string): Promise<string | undefined> {
    if (ref === '' || ref.startsWith('-')) return undefined;
    const fromFiles = this.branchFromFiles(ref);
    if (typeof fromFiles === 'string') return fromFiles;
    if (fromFiles === undefined) {
      const asBranch = await this.exec(['rev-parse', '--verify', '--quiet', `refs/heads/${ref}^{commit}`]);
      if (asBranch.exitCode === 0) return asBranch.stdout.trim();
    }
    if (!hexSha.test(ref)) return undefined;
    if (this.memo.get(`commit ${ref}`)) return ref;
    const asSha = await this.exec(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    if (asSha.exitCode !== 0) return undefined;
    const sha = asSha.stdout.trim();
    this.memo.set(`commit ${sha}`, true);
    return sha;
  }

  /** `compute` once per key of commit shas; a failure is not kept. */
  private async once<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.memo.has(key)) return this.memo.get(key) as T;
    const value = await compute();
    this.memo.set(key, value);
    return value;
  }

  private async mustResolve(ref: string): Promise<string> {
    const sha = await this.resolve(ref);
    if (!sha) throw new AppError('not_found', `No branch or commit ${ref} in ${this.bareDir}.`);
    return sha;
  }

  /** Creates a new branch; an existing one is never overwritten (the empty old value is a CAS). */
  createBranch(name: string, sha: string): Promise<void> {
    return this.serial(async () => {
      const check = await this.exec(['check-ref-format', `refs/heads/${name}`]);
      if (check.exitCode !== 0 || name.startsWith('-'))
        throw new AppError('bad_request', `Not a valid branch name: ${name}`);
      const target = await this.mustResolve(sha);
      await this.ok(['update-ref', '-m', 'fake forge: create branch', `refs/heads/${name}`, target, '']);
    });
  }

  deleteBranch(name: string): Promise<void> {
    return this.serial(async () => {
      const sha = (await this.branches()).get(name);
      if (sha) await this.ok(['update-ref', '-d', `refs/heads/${name}`, sha]);
    });
  }

  /** Moves an existing branch to `sha` (compare-and-swap on where it was, as a forced push does). */
  moveBranch(name: string, sha: string): Promise<void> {
    return this.serial(async () => {
      const was = (await this.branches()).get(name);
      if (!was) throw new AppError('not_found', `No branch ${name} to move.`);
      const target = await this.mustResolve(sha);
      await this.ok(['update-ref', '-m', 'fake forge: move branch', `refs/heads/${name}`, target, was]);
    });
  }

  /** The commits on `head` that `base` does not have, newest first. */
  async commitsAhead(base: string, head: string): Promise<string[]> {
    const [b, h] = [await this.mustResolve(base), await this.mustResolve(head)];
    return this.once(`ahead ${b} ${h}`, async () =>
      (await this.ok(['rev-list', `${b}..${h}`])).split('\n').filter(Boolean),
    );
  }

  async isAncestor(ancestor: string, ref: string): Promise<boolean> {
    const [a, b] = [await this.resolve(ancestor), await this.resolve(ref)];
    if (!a || !b) return false;
    return this.once(`ancestor ${a} ${b}`, async () => {
      const res = await this.exec(['merge-base', '--is-ancestor', a, b]);
      if (res.exitCode > 1) throw new AppError('git_failed', `git merge-base failed: ${res.stderr.trim()}`);
      return res.exitCode === 0;
    });
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    const [shaA, shaB] = [await this.resolve(a), await this.resolve(b)];
    if (!shaA || !shaB) return undefined;
    return this.once(`merge-base ${shaA} ${shaB}`, async () => {
      const res = await this.exec(['merge-base', shaA, shaB]);
      return res.exitCode === 0 ? res.stdout.trim() : undefined;
    });
  }

  /** The merged tree of two commits, or undefined on conflict (merge-tree exits 1). */
  private mergeTree(ours: string, theirs: string): Promise<string | undefined> {
    return this.once(`merge-tree ${ours} ${theirs}`, async () => {
      const res = await this.exec(['merge-tree', '--write-tree', '--no-messages', ours, theirs]);
      if (res.exitCode === 1) return undefined;
      if (res.exitCode !== 0) throw new AppError('git_failed', `git merge-tree failed: ${res.stderr.trim()}`);
      return res.stdout.split('\n')[0]!.trim();
    });
  }

  async canMerge(base: string, head: string): Promise<boolean> {
    const [b, h] = [await this.resolve(base), await this.resolve(head)];
    if (!b || !h) return false;
    return (await this.mergeTree(b, h)) !== undefined;
  }

  merge(
    base: string,
    head: string,
    method: 'merge' | 'squash' | 'rebase',
    message: string,
  ): Promise<{ sha: string } | { conflict: true }> {
    return this.serial(async () => {
      const baseSha = (await this.branches()).get(base);
      if (!baseSha) throw new AppError('not_found', `No branch ${base} to merge into.`);
      const headSha = await this.mustResolve(head);
      // Nothing to bring in: the base already has every commit of head.
      if (await this.isAncestor(headSha, baseSha)) return { sha: baseSha };
      const sha =
        method === 'rebase'
          ? await this.replay(baseSha, headSha)
          : await this.combine(baseSha, headSha, method, message);
      if (!sha) return { conflict: true as const };
      await this.opts.beforeRefUpdate?.(base);
      // Compare-and-swap: if someone pushed to base since we read it, fail rather than drop their commit.
      const moved = await this.exec([
        'update-ref',
        '-m',
        `fake forge: ${method}`,
        `refs/heads/${base}`,
        sha,
        baseSha,
      ]);
      if (moved.exitCode !== 0)
        throw new AppError('conflict', `Branch ${base} moved during the merge; nothing was merged.`, {
          stderr: moved.stderr.trim(),
        });
      return { sha };
    });
  }

  /** A merge commit (parents base, head) or a squash commit (parent base) of the merged tree. */
  private async combine(
    baseSha: string,
    headSha: string,
    method: 'merge' | 'squash',
    message: string,
  ): Promise<string | undefined> {
    const tree = await this.mergeTree(baseSha, headSha);
    if (!tree) return undefined;
    const parents = method === 'merge' ? ['-p', baseSha, '-p', headSha] : ['-p', baseSha];
    return this.ok(['commit-tree', tree, ...parents, '-F', '-'], { input: `${message}\n` });
  }

  /**
   * Rebase: each non-merge commit of head since the merge base is cherry-picked onto base, keeping its
   * author and message. Git 2.39's merge-tree has no --merge-base, so each pick merges a scratch
   * commit (the current tip's tree on the picked commit's parent) with the picked commit: their merge
   * base is that parent, which makes the three-way merge a cherry-pick.
   */
  private async replay(baseSha: string, headSha: string): Promise<string | undefined> {
    const list = await this.ok([
      'rev-list',
      '--reverse',
      '--topo-order',
      '--no-merges',
      `${baseSha}..${headSha}`,
    ]);
    let tip = baseSha;
    for (const commit of list.split('\n').filter(Boolean)) {
      const info = await this.ok(['show', '-s', '--format=%P%x00%an%x00%ae%x00%aI%x00%B', commit]);
      const [parentsField, name, email, date, ...rest] = info.split('\0');
      const parent = parentsField?.split(' ')[0];
      if (!parent) throw new AppError('git_failed', `Cannot rebase root commit ${commit}.`);
      const tipTree = await this.ok(['rev-parse', `${tip}^{tree}`]);
      const scratch = await this.ok(['commit-tree', tipTree, '-p', parent, '-m', 'scratch']);
      const tree = await this.mergeTree(scratch, commit);
      if (!tree) return undefined;
      tip = await this.ok(['commit-tree', tree, '-p', tip, '-F', '-'], {
        input: `${rest.join('\0').trim()}\n`,
        env: { GIT_AUTHOR_NAME: name ?? '', GIT_AUTHOR_EMAIL: email ?? '', GIT_AUTHOR_DATE: date ?? '' },
      });
    }
    return tip;
  }

  /** What head changed since it left base, as GitHub shows a PR (`base...head`), renames as delete+add. */
  async diff(base: string, head: string): Promise<string> {
    const [b, h] = [await this.mustResolve(base), await this.mustResolve(head)];
    return this.once(`diff ${b} ${h}`, async () => {
      const res = await this.exec(['diff', '--no-color', '--no-ext-diff', '--no-renames', `${b}...${h}`]);
      if (res.exitCode !== 0) throw new AppError('git_failed', `git diff failed: ${res.stderr.trim()}`);
      return res.stdout;
    });
  }

  async changedFiles(base: string, head: string): Promise<ChangedFile[]> {
    const [b, h] = [await this.mustResolve(base), await this.mustResolve(head)];
    const files = await this.once(`changed ${b} ${h}`, () => this.changedBetween(`${b}...${h}`));
    return files.map((f) => ({ ...f }));
  }

  async commitFiles(sha: string): Promise<ChangedFile[]> {
    const c = await this.mustResolve(sha);
    const files = await this.once(`commit files ${c}`, () => this.changedBetween(`${c}^1..${c}`));
    return files.map((f) => ({ ...f }));
  }

  /** One `git diff` with both `--raw` (each path's status) and `--numstat` (its line counts). */
  private async changedBetween(range: string): Promise<ChangedFile[]> {
    const out = await this.ok(['diff', '-z', '--raw', '--numstat', '--no-renames', range]);
    const fields = out.split('\0').filter(Boolean);
    const raw: { path: string; status: ChangedFile['status'] }[] = [];
    const counts = new Map<string, { additions: number; deletions: number }>();
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      if (f.startsWith(':')) {
        // `:<modes> <shas> <status>` then the path as a field of its own.
        const path = fields[++i] ?? '';
        raw.push({ path, status: statusOf[f.split(' ')[4]?.charAt(0) ?? ''] ?? 'modified' });
      } else {
        // `<added>\t<deleted>\t<path>`; binary files show "-" for both counts.
        const [add, del, ...path] = f.split('\t');
        counts.set(path.join('\t'), { additions: Number(add) || 0, deletions: Number(del) || 0 });
      }
    }
    return raw.map((r) => ({ ...r, ...(counts.get(r.path) ?? { additions: 0, deletions: 0 }) }));
  }
}

export interface RealGitRepo {
  bareDir: string;
  git: RealGit;
  cleanup(): void;
}

/** A bare origin in a temp dir whose default branch holds one commit with `files`. */
export const createRealGitRepo = async (opts: {
  files: Record<string, string>;
  defaultBranch?: string;
  git?: RealGitOptions;
}): Promise<RealGitRepo> => {
  const branch = opts.defaultBranch ?? 'main';
  const root = tempDir('blitz-world-git-');
  const bareDir = join(root, 'origin.git');
  try {
    await new RealGit(root, opts.git).ok([
      'init',
      '--quiet',
      '--bare',
      `--initial-branch=${branch}`,
      bareDir,
    ]);
    const seeded = new RealGit(bareDir, opts.git);
    const staging = join(root, 'seed');
    writeFiles(staging, opts.files);
    const paths = Object.keys(opts.files);
    // Blobs and the index are written without a work tree; the index lives outside the bare repo.
    const env = { GIT_INDEX_FILE: join(root, 'seed.index') };
    if (paths.length > 0) {
      const blobs = (
        await seeded.ok(['hash-object', '-w', '--stdin-paths'], {
          input: `${paths.map((p) => join(staging, p)).join('\n')}\n`,
        })
      ).split('\n');
      const info = paths.map((p, i) => `100644 ${blobs[i]}\t${p}\0`).join('');
      await seeded.ok(['update-index', '-z', '--add', '--index-info'], { input: info, env });
    }
    const tree = await seeded.ok(['write-tree'], { env });
    const commit = await seeded.ok(['commit-tree', tree, '-m', 'initial']);
    await seeded.ok(['update-ref', `refs/heads/${branch}`, commit, '']);
    removeDir(staging);
    return {
      bareDir,
      git: seeded,
      cleanup() {
        seeded.close();
        removeDir(root);
      },
    };
  } catch (err) {
    removeDir(root);
    throw err;
  }
};
