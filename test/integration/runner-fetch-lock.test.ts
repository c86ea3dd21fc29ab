// Two fetches into one clone at once race for its remote-tracking refs: the loser fails with
// "cannot lock ref" (a CI run lost a planner that way: its job's fetch met a cleanup's after a merge,
// and the attempt ended as an environment failure). The runner's git tries a fetch again after a short
// wait, a few times, and then gives up with the error. Here another git process's ref lock is a real
// lock file that the injected wait takes away (or not).
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../../src/runner/git.ts';
import { commitAndPush, createOrigin, gitIn, tempDir, testEnv } from '../support/git.ts';

const cloneWithLockedRef = async () => {
  const origin = await createOrigin();
  const clone = join(tempDir('blitz-fetch-'), 'clone');
  await gitIn(tempDir(), 'clone', '--quiet', origin.url, clone);
  // origin's main moves on, so a fetch has to update refs/remotes/origin/main.
  const moved = await commitAndPush(origin.work, { 'b.txt': 'b\n' }, 'b');
  const lock = join(clone, '.git', 'refs', 'remotes', 'origin', 'main.lock');
  writeFileSync(lock, '');
  return { clone, moved, lock };
};

describe('the runner fetching into a clone another git process is updating', () => {
  it('tries the fetch again once the ref lock is free, and the ref moves', async () => {
    const { clone, moved, lock } = await cloneWithLockedRef();
    const waits: number[] = [];
    await git(['fetch', '--quiet', 'origin'], clone, {
      env: testEnv(),
      lockWait: async (ms) => {
        waits.push(ms);
        if (waits.length === 2) rmSync(lock);
      },
    });
    expect(waits).toEqual([50, 150]);
    expect(await gitIn(clone, 'rev-parse', 'refs/remotes/origin/main')).toBe(moved);
  });

  it('gives up after a few tries with git’s error, and a command that is not a fetch is not tried again', async () => {
    const { clone, lock } = await cloneWithLockedRef();
    const waits: number[] = [];
    const ctx = { env: testEnv(), lockWait: async (ms: number) => void waits.push(ms) };
    await expect(git(['fetch', '--quiet', 'origin'], clone, ctx)).rejects.toMatchObject({
      code: 'git_failed',
      message: expect.stringMatching(/cannot lock ref|main\.lock/),
    });
    expect(waits).toEqual([50, 150, 400, 1000]);
    expect(existsSync(lock)).toBe(true);
    waits.length = 0;
    await expect(git(['update-ref', 'refs/remotes/origin/main', 'HEAD'], clone, ctx)).rejects.toMatchObject({
      code: 'git_failed',
    });
    expect(waits).toEqual([]);
  });
});
