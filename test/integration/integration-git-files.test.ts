// What a merge into the integration branch changed, read with real git in the bot's own clone (no forge
// request): a merge commit's paths against the tip it landed on, a rename as both its paths, and a
// squash merge (one parent) the same way. An id that is not a commit id never reaches git. And the
// integration worktree: one fetch brings the integration branch and the branch a diff is read against.
import { afterEach, describe, expect, it } from 'vitest';
import { filesOfMerge, type IntegrationGit, integrationWorktree } from '../../src/runner/integration-git.ts';
import { commandsOf } from '../support/command-counts.ts';
import {
  commitAndPush,
  createOrigin,
  gitIn,
  type Origin,
  removeDir,
  tempDir,
  testEnv,
} from '../support/git.ts';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) removeDir(d);
});

const setUp = async (): Promise<{ origin: Origin; g: IntegrationGit }> => {
  const origin = await createOrigin({ 'README.md': '# r\n', 'old.txt': 'old\n', 'keep.txt': 'k\n' });
  const workspace = tempDir('blitz-integration-ws-');
  made.push(origin.root, workspace);
  await gitIn(origin.work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/blitz/m1');
  const g: IntegrationGit = {
    workspace,
    repo: { owner: 'o', name: 'r' },
    cloneUrl: origin.url,
    branch: 'blitz/m1',
    ctx: { env: testEnv() },
  };
  return { origin, g };
};

describe('filesOfMerge', () => {
  it("a merge commit: the paths the merged branch changed, not the integration branch's own", async () => {
    const { origin, g } = await setUp();
    // The integration branch moves first (another issue's merge), then the worker's branch merges in.
    await gitIn(origin.work, 'checkout', '--quiet', '-b', 'ticket/2', 'main');
    await commitAndPush(origin.work, { 'b.txt': 'b\n' }, 'work of #2', 'ticket/2');
    await gitIn(origin.work, 'mv', 'old.txt', 'new.txt');
    await gitIn(origin.work, 'commit', '--quiet', '-m', 'rename');
    await gitIn(origin.work, 'checkout', '--quiet', '-b', 'integration', 'main');
    await commitAndPush(origin.work, { 'a.txt': 'a\n' }, 'merge of #1', 'blitz/m1');
    await gitIn(origin.work, 'merge', '--quiet', '--no-ff', '-m', 'Merge #2', 'ticket/2');
    await gitIn(origin.work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/blitz/m1');
    const merge = await gitIn(origin.work, 'rev-parse', 'HEAD');
    expect((await filesOfMerge(g, merge)).sort()).toEqual(['b.txt', 'new.txt', 'old.txt']);
  });

  it('a squash merge (one parent): the paths of that one commit', async () => {
    const { origin, g } = await setUp();
    const sha = await commitAndPush(
      origin.work,
      { 'keep.txt': 'changed\n', 'c.txt': 'c\n' },
      'squash #3',
      'blitz/m1',
    );
    expect((await filesOfMerge(g, sha)).sort()).toEqual(['c.txt', 'keep.txt']);
  });

  it("asks nothing of a clone's origin that the runner has checked (its contexts carry the map)", async () => {
    const { origin, g } = await setUp();
    const sha = await commitAndPush(origin.work, { 'c.txt': 'c\n' }, 'squash #3', 'blitz/m1');
    const known: IntegrationGit = { ...g, ctx: { ...g.ctx, knownOrigins: new Map() } };
    // No clone yet: made, and its origin is known from then on.
    expect(await commandsOf(() => filesOfMerge(known, sha))).toEqual({
      'git clone': 1,
      'git fetch': 1,
      'git diff': 1,
    });
    expect(await commandsOf(() => filesOfMerge(known, sha))).toEqual({ 'git fetch': 1, 'git diff': 1 });
    // A context without the map asks git for origin's URL each time.
    expect(await commandsOf(() => filesOfMerge(g, sha))).toEqual({
      'git remote': 1,
      'git fetch': 1,
      'git diff': 1,
    });
  });

  it('refuses what is not a commit id before git runs', async () => {
    const { g } = await setUp();
    await expect(filesOfMerge(g, '--output=/tmp/x')).rejects.toThrow(/not a commit id/);
    await expect(filesOfMerge(g, 'HEAD')).rejects.toThrow(/not a commit id/);
  });
});

describe('integrationWorktree', () => {
  it('one fetch brings the integration branch and the branches named beside it', async () => {
    const { origin, g } = await setUp();
    const known: IntegrationGit = { ...g, ctx: { ...g.ctx, knownOrigins: new Map() } };
    let path = '';
    const make = (also: string[]) => async () => {
      path = await integrationWorktree(known, undefined, also);
    };
    expect(await commandsOf(make(['main']))).toEqual({ 'git clone': 1, 'git fetch': 1, 'git worktree': 2 });
    // Both branches move on origin; the next worktree has both from its one fetch (a branch named
    // twice is fetched once).
    const mainTip = await commitAndPush(origin.work, { 'm.txt': 'm\n' }, 'on main', 'main');
    const tip = await commitAndPush(origin.work, { 'i.txt': 'i\n' }, 'merge of #1', 'blitz/m1');
    expect(await commandsOf(make(['main', 'blitz/m1']))).toEqual({ 'git fetch': 1, 'git worktree': 2 });
    expect(await gitIn(path, 'rev-parse', 'HEAD')).toBe(tip);
    expect(await gitIn(path, 'rev-parse', 'refs/remotes/origin/main')).toBe(mainTip);
  });
});
