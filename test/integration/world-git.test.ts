// Slow for a reason: real git on bare repositories for every merge style, conflict and forge adapter.
// RealGit, the World's git backend over a real bare repository: branches, merges (merge, squash,
// rebase) without a work tree, conflicts, the compare-and-swap on the base, diffs and changed files,
// pushes from a clone, and a PR opened and merged through each forge adapter against its fake.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { createGiteaForge } from '../../src/forges/gitea/index.ts';
import { createGithubForge } from '../../src/forges/github/index.ts';
import type { Forge } from '../../src/forges/types.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startFakeGitea } from '../support/fake-gitea/server.ts';
import { fastRetry } from '../support/fake-github/harness.ts';
import { startFakeGithub } from '../support/fake-github/server.ts';
import { commitAndPush, gitIn, originFile, removeDir, tempDir } from '../support/git.ts';
import { World } from '../support/world.ts';
import { createRealGitRepo, type RealGitRepo } from '../support/world-git.ts';

let repo: RealGitRepo;
let clones: string[] = [];
beforeEach(async () => {
  repo = await createRealGitRepo({ files: { 'README.md': '# app\n', 'src/a.ts': 'export const a = 1;\n' } });
});
afterEach(() => {
  repo.cleanup();
  for (const dir of clones) removeDir(dir);
  clones = [];
});

/** A work clone of the bare origin, as a worker has. */
const clone = async (): Promise<string> => {
  const root = tempDir('blitz-world-git-clone-');
  clones.push(root);
  await gitIn(root, 'clone', '--quiet', repo.bareDir, 'work');
  return `${root}/work`;
};

/** A clone that pushed `branch` off main with `files` committed; returns the pushed sha. */
const pushBranch = async (branch: string, files: Record<string, string>, from = 'main') => {
  const work = await clone();
  await gitIn(work, 'checkout', '--quiet', '-b', branch, `origin/${from}`);
  return commitAndPush(work, files, `change on ${branch}`, branch);
};

const parents = async (sha: string) => (await repo.git.ok(['show', '-s', '--format=%P', sha])).split(' ');
const treeOf = (sha: string) => repo.git.ok(['rev-parse', `${sha}^{tree}`]);

describe('branches', () => {
  it('lists the seeded default branch and resolves branch names and shas, but not unknown refs', async () => {
    const main = (await repo.git.branches()).get('main');
    expect(main).toMatch(/^[0-9a-f]{40}$/);
    expect(await repo.git.resolve('main')).toBe(main);
    expect(await repo.git.resolve(main!)).toBe(main);
    expect(await repo.git.resolve(main!.slice(0, 12))).toBe(main);
    expect(await repo.git.resolve('nope')).toBeUndefined();
    expect(await repo.git.resolve('--all')).toBeUndefined();
    expect(await originFile(repo.bareDir, 'main', 'src/a.ts')).toBe('export const a = 1;');
  });

  it('sees a branch pushed by a clone at once', async () => {
    const sha = await pushBranch('feature', { 'src/b.ts': 'b\n' });
    expect(await repo.git.resolve('feature')).toBe(sha);
    expect((await repo.git.branches()).get('feature')).toBe(sha);
  });

  it('creates and deletes branches, and refuses to overwrite one or to take a bad name', async () => {
    const main = (await repo.git.resolve('main'))!;
    await repo.git.createBranch('blitz/m1', main);
    expect(await repo.git.resolve('blitz/m1')).toBe(main);
    const again = await repo.git.createBranch('blitz/m1', main).catch((e: unknown) => e);
    expect(isAppError(again, 'git_failed')).toBe(true);
    const bad = await repo.git.createBranch('bad..name', main).catch((e: unknown) => e);
    expect(isAppError(bad, 'bad_request')).toBe(true);
    const missing = await repo.git.createBranch('x', 'f'.repeat(40)).catch((e: unknown) => e);
    expect(isAppError(missing, 'not_found')).toBe(true);
    expect([...(await repo.git.branches()).keys()].sort()).toEqual(['blitz/m1', 'main']);
    await repo.git.deleteBranch('blitz/m1');
    expect(await repo.git.resolve('blitz/m1')).toBeUndefined();
  });

  it('answers ancestry and the merge base from the real history', async () => {
    const main = (await repo.git.resolve('main'))!;
    const feature = await pushBranch('feature', { 'src/b.ts': 'b\n' });
    expect(await repo.git.isAncestor(main, 'feature')).toBe(true);
    expect(await repo.git.isAncestor(feature, 'main')).toBe(false);
    expect(await repo.git.isAncestor(main, 'no-such-branch')).toBe(false);
    await pushBranch('other', { 'src/c.ts': 'c\n' });
    expect(await repo.git.mergeBase!('feature', 'other')).toBe(main);
  });
});

describe('merges without a work tree', () => {
  it('a clean merge moves the base to a merge commit whose parents are base and head', async () => {
    const main = (await repo.git.resolve('main'))!;
    await pushBranch('other-main-change', { 'docs.md': 'docs\n' });
    await repo.git.merge('main', 'other-main-change', 'squash', 'move main first');
    const base = (await repo.git.resolve('main'))!;
    const head = await pushBranch('feature', { 'src/b.ts': 'b\n' }, 'other-main-change');
    expect(base).not.toBe(main);
    const result = await repo.git.merge('main', 'feature', 'merge', 'Merge pull request #1');
    expect('sha' in result).toBe(true);
    const sha = (result as { sha: string }).sha;
    expect(await repo.git.resolve('main')).toBe(sha);
    expect(await parents(sha)).toEqual([base, head]);
    expect(await repo.git.ok(['show', '-s', '--format=%s|%cn', sha])).toBe(
      'Merge pull request #1|Fake Forge',
    );
    expect(await originFile(repo.bareDir, 'main', 'src/b.ts')).toBe('b');
  });

  it('a squash makes one commit on the base with the tree a merge would have', async () => {
    await pushBranch('feature', { 'src/b.ts': 'b\n', 'src/a.ts': 'export const a = 2;\n' });
    const base = (await repo.git.resolve('main'))!;
    const expectedTree = await repo.git.ok(['merge-tree', '--write-tree', 'main', 'feature']);
    const result = (await repo.git.merge('main', 'feature', 'squash', 'Add b (#1)')) as { sha: string };
    expect(await parents(result.sha)).toEqual([base]);
    expect(await treeOf(result.sha)).toBe(expectedTree);
    expect(await repo.git.resolve('main')).toBe(result.sha);
  });

  it('a rebase replays each head commit onto the base, keeping messages and authors', async () => {
    const work = await clone();
    await gitIn(work, 'checkout', '--quiet', '-b', 'feature');
    await commitAndPush(work, { 'src/b.ts': 'b\n' }, 'first', 'feature');
    await commitAndPush(work, { 'src/a.ts': 'export const a = 3;\n' }, 'second', 'feature');
    await pushBranch('moved', { 'docs.md': 'docs\n' });
    await repo.git.merge('main', 'moved', 'merge', 'main moves on');
    const base = (await repo.git.resolve('main'))!;
    const result = (await repo.git.merge('main', 'feature', 'rebase', 'ignored for rebase')) as {
      sha: string;
    };
    expect(await repo.git.resolve('main')).toBe(result.sha);
    const log = await repo.git.ok(['log', '--format=%s|%an|%cn|%P', `${base}..${result.sha}`]);
    const [second, first] = log.split('\n').map((l) => l.split('|'));
    expect(first!.slice(0, 4)).toEqual(['first', 'Blitz Test', 'Fake Forge', base]);
    expect(second!.slice(0, 3)).toEqual(['second', 'Blitz Test', 'Fake Forge']);
    expect(second![3]).not.toBe(base);
    expect(await originFile(repo.bareDir, 'main', 'docs.md')).toBe('docs');
    expect(await originFile(repo.bareDir, 'main', 'src/b.ts')).toBe('b');
    expect(await originFile(repo.bareDir, 'main', 'src/a.ts')).toBe('export const a = 3;');
  });

  it('a conflicting pair reports a conflict, canMerge agrees, and no branch moves', async () => {
    await pushBranch('left', { 'src/a.ts': 'export const a = "left";\n' });
    await pushBranch('right', { 'src/a.ts': 'export const a = "right";\n' });
    expect(await repo.git.canMerge('main', 'left')).toBe(true);
    await repo.git.merge('main', 'left', 'merge', 'left first');
    const before = await repo.git.branches();
    expect(await repo.git.canMerge('main', 'right')).toBe(false);
    for (const method of ['merge', 'squash', 'rebase'] as const)
      expect(await repo.git.merge('main', 'right', method, 'right')).toEqual({ conflict: true });
    expect(await repo.git.branches()).toEqual(before);
  });

  it('a merge whose base moved underneath fails loudly and keeps the pushed commit', async () => {
    let pushed = '';
    const racy = await createRealGitRepo({
      files: { 'README.md': '# app\n' },
      git: {
        beforeRefUpdate: async () => {
          // Someone pushes to main after the merge read it and before it moves the branch.
          const tree = await racy.git.ok(['rev-parse', 'main^{tree}']);
          pushed = await racy.git.ok(['commit-tree', tree, '-p', 'main', '-m', 'concurrent push']);
          await racy.git.ok(['update-ref', 'refs/heads/main', pushed]);
        },
      },
    });
    try {
      await racy.git.createBranch('feature', (await racy.git.resolve('main'))!);
      const tree = await racy.git.ok(['rev-parse', 'main^{tree}']);
      const change = await racy.git.ok(['commit-tree', tree, '-p', 'feature', '-m', 'feature work']);
      await racy.git.ok(['update-ref', 'refs/heads/feature', change]);
      const err = await racy.git.merge('main', 'feature', 'merge', 'merge').catch((e: unknown) => e);
      expect(isAppError(err, 'conflict')).toBe(true);
      expect(await racy.git.resolve('main')).toBe(pushed);
    } finally {
      racy.cleanup();
    }
  });

  it('two merges into the same base at once both land, one after the other', async () => {
    await pushBranch('one', { 'one.txt': '1\n' });
    await pushBranch('two', { 'two.txt': '2\n' });
    const results = await Promise.all([
      repo.git.merge('main', 'one', 'merge', 'one'),
      repo.git.merge('main', 'two', 'merge', 'two'),
    ]);
    expect(results.every((r) => 'sha' in r)).toBe(true);
    expect(await originFile(repo.bareDir, 'main', 'one.txt')).toBe('1');
    expect(await originFile(repo.bareDir, 'main', 'two.txt')).toBe('2');
  });

  it('merging a head the base already contains changes nothing', async () => {
    const main = (await repo.git.resolve('main'))!;
    await repo.git.createBranch('old', main);
    expect(await repo.git.merge('main', 'old', 'merge', 'noop')).toEqual({ sha: main });
    expect(await repo.git.resolve('main')).toBe(main);
  });

  it('refuses to merge into a branch that does not exist', async () => {
    const err = await repo.git.merge('nope', 'main', 'merge', 'x').catch((e: unknown) => e);
    expect(isAppError(err, 'not_found')).toBe(true);
  });
});

describe('diff and changed files', () => {
  it('shows what head changed since it left base, not what base did since', async () => {
    await pushBranch('feature', {
      'src/é.ts': 'const x = "é";\n',
      'src/a.ts': 'export const a = 2;\nexport const z = 0;\n',
    });
    const work = await clone();
    await gitIn(work, 'rm', '--quiet', 'README.md');
    await gitIn(work, 'commit', '--quiet', '-m', 'drop readme');
    await gitIn(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/feature2');
    await pushBranch('main-moves', { 'later.txt': 'later\n' });
    await repo.git.merge('main', 'main-moves', 'merge', 'main moves');

    const diff = await repo.git.diff('main', 'feature');
    expect(diff).toContain('diff --git a/src/é.ts b/src/é.ts');
    expect(diff).toContain('+export const a = 2;');
    expect(diff).not.toContain('later.txt');
    expect(await repo.git.changedFiles('main', 'feature')).toEqual([
      { path: 'src/a.ts', status: 'modified', additions: 2, deletions: 1 },
      { path: 'src/é.ts', status: 'added', additions: 1, deletions: 0 },
    ]);
    expect(await repo.git.changedFiles('main', 'feature2')).toEqual([
      { path: 'README.md', status: 'removed', additions: 0, deletions: 1 },
    ]);
    const err = await repo.git.diff('main', 'nope').catch((e: unknown) => e);
    expect(isAppError(err, 'not_found')).toBe(true);
  });
});

const quietLogger = () =>
  createLogger({
    level: 'silent',
    destination: new Writable({ write: (_c, _e, cb) => cb() }),
  });

/** The fake GitHub over a World whose repo is the real bare origin, and the GitHub forge on it. */
const withGithub = async (test: (forge: Forge) => Promise<void>) => {
  const world = new World('blitz-bot[bot]');
  world.addRepo('acme/app', { git: repo.git });
  const fake = await startFakeGithub(world);
  try {
    await test(
      createGithubForge({
        baseUrl: fake.apiUrl,
        auth: { token: 'test-token' },
        botLogin: world.botLogin,
        logger: quietLogger(),
        retry: fastRetry,
      }),
    );
  } finally {
    await fake.close();
  }
  fake.assertNoViolations();
};

const withGitea = async (test: (forge: Forge) => Promise<void>) => {
  const world = new World('blitz-bot');
  world.addRepo('acme/app', { git: repo.git });
  const fake = await startFakeGitea(world);
  try {
    await test(
      createGiteaForge({
        url: fake.url,
        token: fake.token,
        botLogin: world.botLogin,
        logger: quietLogger(),
        retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1, sleep: async () => {} },
      }),
    );
  } finally {
    await fake.close();
  }
  fake.assertNoViolations();
};

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );

describe('the fake forges over a real repository', () => {
  const app = { owner: 'acme', name: 'app' };
  const open = (forge: Forge, head: string) =>
    forge.openPullRequest(app, { head, base: 'main', title: head, body: 'Resolves #1' });

  it('GitHub: a PR opened and merged through the forge lands its file on the default branch', async () => {
    await withGithub(async (forge) => {
      const head = await pushBranch('blitz/issue-1', { 'src/feature.ts': 'export const f = 1;\n' });
      const pr = await open(forge, 'blitz/issue-1');
      expect(await forge.listPullRequestFiles(pr.ref)).toEqual([
        { path: 'src/feature.ts', status: 'added', additions: 1, deletions: 0 },
      ]);
      expect((await forge.getPullRequestDiff(pr.ref, 10_000)).diff).toContain('+export const f = 1;');
      const merged = await forge.mergePullRequest(pr.ref, { method: 'merge', expectedHeadSha: head });
      expect(await repo.git.resolve('main')).toBe(merged.sha);
      expect(await parents(merged.sha ?? '')).toContain(head);
      expect(await originFile(repo.bareDir, 'main', 'src/feature.ts')).toBe('export const f = 1;');
    });
  });

  it('GitHub: a PR behind its base is updated by merging the base in; a real conflict is dirty and refused', async () => {
    await withGithub(async (forge) => {
      await pushBranch('behind', { 'src/b.ts': 'b\n' });
      await pushBranch('clash', { 'src/a.ts': 'export const a = "clash";\n' });
      const behind = await open(forge, 'behind');
      const clash = await open(forge, 'clash');
      await pushBranch('moves-main', { 'src/a.ts': 'export const a = "main";\n' });
      await repo.git.merge('main', 'moves-main', 'merge', 'main moves');
      const main = (await repo.git.resolve('main'))!;

      expect((await forge.getPullRequest(behind.ref)).mergeState).toBe('behind');
      await forge.updatePullRequestBranch(behind.ref);
      expect(await repo.git.isAncestor(main, 'behind')).toBe(true);
      expect((await forge.getPullRequest(behind.ref)).mergeState).toBe('clean');

      expect(await forge.getPullRequest(clash.ref)).toMatchObject({ mergeable: false, mergeState: 'dirty' });
      expect(
        isAppError(await rejection(forge.mergePullRequest(clash.ref, { method: 'squash' })), 'unmergeable'),
      ).toBe(true);
      expect(await repo.git.resolve('main')).toBe(main);
    });
  });

  it('Gitea: a PR opened and squash-merged through the forge lands its file on the default branch', async () => {
    await withGitea(async (forge) => {
      const base = (await repo.git.resolve('main'))!;
      await pushBranch('blitz/issue-2', { 'src/gitea.ts': 'export const g = 2;\n' });
      const pr = await open(forge, 'blitz/issue-2');
      expect((await forge.getPullRequest(pr.ref)).mergeState).toBe('clean');
      await forge.mergePullRequest(pr.ref, { method: 'squash', expectedHeadSha: pr.head.sha });
      const main = (await repo.git.resolve('main'))!;
      expect(await parents(main)).toEqual([base]);
      expect(await originFile(repo.bareDir, 'main', 'src/gitea.ts')).toBe('export const g = 2;');
    });
  });

  it('Gitea: a conflicting PR is reported dirty and its merge is refused, leaving the base alone', async () => {
    await withGitea(async (forge) => {
      await pushBranch('left', { 'src/a.ts': 'export const a = "left";\n' });
      await pushBranch('right', { 'src/a.ts': 'export const a = "right";\n' });
      const left = await open(forge, 'left');
      const right = await open(forge, 'right');
      await forge.mergePullRequest(left.ref, { method: 'merge' });
      const main = (await repo.git.resolve('main'))!;
      expect(await forge.getPullRequest(right.ref)).toMatchObject({ mergeable: false, mergeState: 'dirty' });
      expect(
        isAppError(await rejection(forge.mergePullRequest(right.ref, { method: 'merge' })), 'unmergeable'),
      ).toBe(true);
      expect(await repo.git.resolve('main')).toBe(main);
    });
  });
});
