// Doctor checks of this host: git present and new enough for worktrees as the runner uses them,
// and the workspace a place the runner can write (or make): asked, never tried by writing.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { run } from '../runner/exec.ts';
import { noSandboxWarning, probeBubblewrap } from '../runner/jail.ts';
import { compareVersions, versionOf } from '../runner/tools/tested-versions.ts';
import type { WorkerUser } from '../runner/worker-user.ts';
import { type CheckResult, fail, messageOf, ok, warn } from './checks.ts';

/** `git worktree` with `--force` removal and `ls-remote --heads` as used since 2.25. */
export const MIN_GIT = [2, 25, 0] as const;

export const checkGit = async (env: Record<string, string>): Promise<CheckResult> => {
  try {
    const res = await run(['git', '--version'], { cwd: '/', env, timeoutMs: 15_000 });
    const v = versionOf(res.stdout);
    if (res.exitCode !== 0 || !v) return fail('git', `"git --version" failed: ${res.stderr.trim()}`);
    if (compareVersions(v, MIN_GIT) < 0)
      return fail('git', `git ${v.join('.')} is older than ${MIN_GIT.join('.')}; install a newer git`);
    return ok('git', `git ${v.join('.')}`);
  } catch (err) {
    return fail('git', `git is not on the PATH: ${messageOf(err)}`);
  }
};

/** The path itself when it exists, else its nearest ancestor that does. */
export const nearestExisting = (path: string): string => {
  let p = resolve(path);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
};

/** A directory this process may create entries in. */
export const writableDir = (dir: string): boolean => {
  try {
    if (!statSync(dir).isDirectory()) return false;
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * What workers and gates run in, as the runner will find it at start: bubblewrap tried once (as the
 * worker user when there is one); `none`, asked for or fallen back to, is a warning that says so.
 */
export const checkSandbox = (
  runner: { sandbox?: 'bubblewrap' | 'none'; network?: 'full' | 'model-only' },
  path: string | undefined,
  user?: WorkerUser,
  probe: typeof probeBubblewrap = probeBubblewrap,
): CheckResult => {
  const modelOnly = runner.network === 'model-only';
  if (runner.sandbox === 'none')
    return modelOnly
      ? fail(
          'sandbox',
          'runner.network is model-only, which needs the bubblewrap sandbox; runner.sandbox is none',
        )
      : warn('sandbox', noSandboxWarning('runner.sandbox is none'));
  const p = probe(user, path);
  if (p.ok)
    return ok(
      'sandbox',
      `bubblewrap works: workers and gates run sandboxed${user ? ` as ${user.name}` : ''}, network ${runner.network ?? 'full'}`,
    );
  if (runner.sandbox === 'bubblewrap' || modelOnly)
    return fail('sandbox', `runner.sandbox needs bubblewrap, but ${p.reason}`);
  return warn('sandbox', noSandboxWarning(p.reason));
};

/** Whether the runner can write the workspace, or make it: asked of the file system, nothing made. */
export const checkWorkspace = (workspace: string): CheckResult => {
  const dir = resolve(workspace);
  const at = nearestExisting(dir);
  if (at === dir)
    return writableDir(dir)
      ? ok('workspace', `${dir} is writable`)
      : fail('workspace', `${dir} is not a directory this user can write`);
  return writableDir(at)
    ? ok('workspace', `${dir} does not exist yet; serve makes it (${at} is writable)`)
    : fail('workspace', `${dir} does not exist, and ${at} is not writable: serve cannot make it`);
};
