// Real git for tests: temp dirs, bare origins seeded with files, clones, commits. Shared by every
// suite that needs a remote (runner, orchestrator, fleet); everything runs through src/runner/exec.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { run } from '../../src/runner/exec.ts';

/** Minimal environment for git and node in tests: no user config, a fixed identity. */
export const testEnv = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Blitz Test',
  GIT_AUTHOR_EMAIL: 'test@blitz.invalid',
  GIT_COMMITTER_NAME: 'Blitz Test',
  GIT_COMMITTER_EMAIL: 'test@blitz.invalid',
});

export const tempDir = (prefix = 'blitz-test-'): string => mkdtempSync(join(tmpdir(), prefix));

export const removeDir = (dir: string): void => rmSync(dir, { recursive: true, force: true });

/** Runs git and returns stdout; a failure throws with git's stderr. */
export const gitIn = async (cwd: string, ...args: string[]): Promise<string> => {
  const res = await run(['git', ...args], { cwd, env: testEnv(), timeoutMs: 60_000 });
  if (res.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${res.stderr}`);
  return res.stdout.trim();
};

export interface Origin {
  /** Path of the bare repository; usable as a clone URL. */
  url: string;
  /** A work clone of the origin, for a test to push from. */
  work: string;
  root: string;
}

/** A bare origin with `files` committed on `branch`, and a work clone next to it. */
export const createOrigin = async (
  files: Record<string, string> = { 'README.md': '# test repo\n' },
  branch = 'main',
): Promise<Origin> => {
  const root = tempDir('blitz-origin-');
  const url = join(root, 'origin.git');
  const work = join(root, 'work');
  await gitIn(root, 'init', '--quiet', '--bare', `--initial-branch=${branch}`, url);
  await gitIn(root, 'init', '--quiet', `--initial-branch=${branch}`, work);
  writeFiles(work, files);
  await gitIn(work, 'add', '-A');
  await gitIn(work, 'commit', '--quiet', '-m', 'initial');
  await gitIn(work, 'remote', 'add', 'origin', url);
  await gitIn(work, 'push', '--quiet', '-u', 'origin', branch);
  return { url, work, root };
};

export const writeFiles = (dir: string, files: Record<string, string>): void => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
};

/** Commits `files` in a work clone and pushes `branch` to origin. */
export const commitAndPush = async (
  work: string,
  files: Record<string, string>,
  message: string,
  branch = 'main',
): Promise<string> => {
  writeFiles(work, files);
  await gitIn(work, 'add', '-A');
  await gitIn(work, 'commit', '--quiet', '-m', message);
  await gitIn(work, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
  return gitIn(work, 'rev-parse', 'HEAD');
};

/** The sha of a branch in a bare origin, or null when it has no such branch. */
export const originSha = async (url: string, branch: string): Promise<string | null> => {
  const res = await run(['git', 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
    cwd: url,
    env: testEnv(),
    timeoutMs: 30_000,
  });
  return res.exitCode === 0 ? res.stdout.trim() : null;
};

/** File contents of `path` at `branch` in a bare origin. */
export const originFile = (url: string, branch: string, path: string): Promise<string> =>
  gitIn(url, 'show', `${branch}:${path}`);

/** `count` small files spread over directories, for repos of realistic size. */
export const manyFiles = (count: number): Record<string, string> => {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`src/d${i % 50}/f${i}.ts`] = `export const v${i} = ${i};\n`;
  return files;
};
