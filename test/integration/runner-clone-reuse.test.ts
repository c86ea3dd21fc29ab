// The job-start git work in real git: a runner checks a clone's origin once and refuses a clone of
// another remote whoever asks; a new attempt repository says origin's sha of its branch from the same
// read that chose its start, so the runner asks git nothing more for it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GitContext } from '../../src/runner/git.ts';
import { ensureClone } from '../../src/runner/workspace.ts';
import { ensureAttemptRepo } from '../../src/runner/worktrees.ts';
import { commitAndPush, createOrigin, gitIn, type Origin, removeDir, tempDir } from '../support/git.ts';

const repo = { owner: 'acme', name: 'shop' };
let origin: Origin;
let other: Origin;
let workspace: string;
const ctx: GitContext = { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempDir('blitz-home-') } };

beforeEach(async () => {
  origin = await createOrigin();
  other = await createOrigin();
  workspace = tempDir('blitz-ws-');
});

afterEach(() => {
  for (const dir of [origin.root, other.root, workspace]) removeDir(dir);
});

describe('clone reuse at job start', () => {
  it('remembers the origin of the clone it made, and refuses another remote for that directory', async () => {
    const known = new Map<string, string>();
    const dir = await ensureClone(workspace, repo, origin.url, ctx, true, known);
    expect(known.get(dir)).toBe(origin.url);
    expect(await ensureClone(workspace, repo, origin.url, ctx, true, known)).toBe(dir);

    // Another remote's job for the same owner/name: asked, and refused, with the map or without.
    await expect(ensureClone(workspace, repo, other.url, ctx, true, known)).rejects.toThrow(
      /is a clone of another remote/,
    );
    await expect(ensureClone(workspace, repo, other.url, ctx)).rejects.toThrow(
      /is a clone of another remote/,
    );
    expect(known.get(dir)).toBe(origin.url);
  });

  it("checks an existing clone's origin the first time a runner meets it", async () => {
    const dir = await ensureClone(workspace, repo, origin.url, ctx);
    await gitIn(dir, 'remote', 'set-url', 'origin', other.url);
    const known = new Map<string, string>();
    await expect(ensureClone(workspace, repo, origin.url, ctx, true, known)).rejects.toThrow(
      /is a clone of another remote/,
    );
    expect(known.has(dir)).toBe(false);
  });

  it("gives a new attempt repository origin's sha of its branch: null when origin has none", async () => {
    const pushed = await commitAndPush(origin.work, { 'a.txt': 'a\n' }, 'earlier attempt', 'm1/7-pushed');
    const dir = await ensureClone(workspace, repo, origin.url, ctx);
    const ensureWorktree = (branch: string) =>
      ensureAttemptRepo(
        { workspace, cacheDir: dir, repo, branch, baseBranch: 'main', cloneUrl: origin.url },
        ctx,
      );

    const fresh = await ensureWorktree('m1/8-fresh');
    expect(fresh).toMatchObject({ reused: false, originSha: null });
    const resumed = await ensureWorktree('m1/7-pushed');
    expect(resumed).toMatchObject({ reused: false, originSha: pushed });
    expect(await gitIn(resumed.path, 'rev-parse', 'HEAD')).toBe(pushed);

    const again = await ensureWorktree('m1/8-fresh');
    expect(again).toEqual({ path: fresh.path, reused: true });
  });
});
