// Cleanup of merged and closed issues in real git: a bare origin, the runner's clone and the attempt
// repositories made from it.
// A merged issue's worktree, local branch and origin branch go (origin's unless keepBranches); work
// that exists nowhere else is kept and named; at start, closed issues' workspaces are swept.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cleanupMergedIssue,
  issueNumberOfBranch,
  sweepClosedIssueWorkspaces,
} from '../../src/runner/cleanup.ts';
import type { GitContext } from '../../src/runner/git.ts';
import { plainJail } from '../../src/runner/jail.ts';
import { WorkerGit } from '../../src/runner/worker-git.ts';
import { ensureClone } from '../../src/runner/workspace.ts';
import { ensureAttemptRepo } from '../../src/runner/worktrees.ts';
import { commandsOf } from '../support/command-counts.ts';
import {
  commitAndPush,
  createOrigin,
  gitIn,
  type Origin,
  originSha,
  removeDir,
  tempDir,
} from '../support/git.ts';

const repo = { owner: 'acme', name: 'shop' };
let origin: Origin;
let workspace: string;
let repoDir: string;
const ctx: GitContext = { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempDir('blitz-home-') } };
const wg = new WorkerGit(plainJail(undefined), ctx.env);
const who = ['-c', 'user.name=Worker', '-c', 'user.email=worker@blitz.invalid'];

beforeEach(async () => {
  origin = await createOrigin();
  await gitIn(origin.work, 'push', '--quiet', 'origin', 'main:refs/heads/blitz/m1');
  workspace = tempDir('blitz-cleanup-');
  repoDir = await ensureClone(workspace, repo, origin.url, ctx);
});
afterEach(() => {
  removeDir(origin.root);
  removeDir(workspace);
});

/** A worker's repository on `branch` with one commit, pushed to origin. */
const workerBranch = async (branch: string, file: string): Promise<string> => {
  const { path } = await ensureAttemptRepo(
    { workspace, cacheDir: repoDir, repo, branch, baseBranch: 'blitz/m1', cloneUrl: origin.url },
    ctx,
  );
  writeFileSync(join(path, file), `${branch}\n`);
  await gitIn(path, 'add', '-A');
  await gitIn(path, ...who, 'commit', '--quiet', '-m', `work on ${branch}`);
  await gitIn(path, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
  return path;
};

/** Merges origin's `branch` into blitz/m1 on origin, as the bot's merge of the PR does. */
const mergeOnOrigin = async (branch: string) => {
  await gitIn(origin.work, 'fetch', '--quiet', 'origin');
  await gitIn(origin.work, 'checkout', '--quiet', '-B', 'blitz/m1', 'origin/blitz/m1');
  await gitIn(
    origin.work,
    ...who,
    'merge',
    '--quiet',
    '--no-ff',
    '-m',
    `merge ${branch}`,
    `origin/${branch}`,
  );
  await gitIn(origin.work, 'push', '--quiet', 'origin', 'blitz/m1');
};

const merged = (branch: string, deleteRemote = true) => ({
  repo,
  branch,
  mergedInto: 'blitz/m1',
  deleteRemote,
  cloneUrl: origin.url,
});

describe('cleanupMergedIssue', () => {
  it('removes the worktree, the local branch and the branch on origin of a merged issue', async () => {
    const path = await workerBranch('m1/12-add-cart', 'cart.txt');
    await mergeOnOrigin('m1/12-add-cart');
    const r = await cleanupMergedIssue(workspace, merged('m1/12-add-cart'), ctx, wg);
    expect(r).toEqual({
      worktreeRemoved: path,
      localBranchDeleted: true,
      remoteBranchDeleted: true,
      kept: [],
    });
    expect(existsSync(path)).toBe(false);
    expect(await originSha(origin.url, 'm1/12-add-cart')).toBeNull();
    expect(await gitIn(repoDir, 'branch', '--list', 'm1/12-add-cart')).toBe('');
    // The integration branch is untouched.
    expect(await originSha(origin.url, 'blitz/m1')).not.toBeNull();
  });

  it("on the bot's side (no worktree here) reads both of the branch's tips in one git command", async () => {
    removeDir(await workerBranch('m1/12-add-cart', 'cart.txt'));
    await mergeOnOrigin('m1/12-add-cart');
    let r: Awaited<ReturnType<typeof cleanupMergedIssue>> | undefined;
    const commands = await commandsOf(async () => {
      r = await cleanupMergedIssue(workspace, merged('m1/12-add-cart'), ctx);
    });
    expect(r).toEqual({ localBranchDeleted: true, remoteBranchDeleted: true, kept: [] });
    expect(commands).toEqual({
      'git fetch': 1,
      'git for-each-ref': 1,
      'git merge-base': 2,
      'git branch': 1,
      'git push': 1,
      'git update-ref': 1,
    });
  });

  it('keeps the branch on origin with keepBranches', async () => {
    await workerBranch('m1/12-add-cart', 'cart.txt');
    await mergeOnOrigin('m1/12-add-cart');
    const r = await cleanupMergedIssue(workspace, merged('m1/12-add-cart', false), ctx, wg);
    expect(r).toMatchObject({ localBranchDeleted: true, remoteBranchDeleted: false, kept: [] });
    expect(await originSha(origin.url, 'm1/12-add-cart')).not.toBeNull();
  });

  it('keeps an origin branch someone pushed to after the merge, and names why', async () => {
    await workerBranch('m1/12-add-cart', 'cart.txt');
    await mergeOnOrigin('m1/12-add-cart');
    await gitIn(origin.work, 'checkout', '--quiet', '-B', 'late', 'origin/m1/12-add-cart');
    const late = await commitAndPush(origin.work, { 'late.txt': 'x\n' }, 'late fix', 'm1/12-add-cart');
    const r = await cleanupMergedIssue(workspace, merged('m1/12-add-cart'), ctx, wg);
    expect(r.remoteBranchDeleted).toBe(false);
    expect(r.kept).toEqual(['m1/12-add-cart on origin has commits that are not merged']);
    expect(await originSha(origin.url, 'm1/12-add-cart')).toBe(late);
  });

  it('keeps a worktree with uncommitted files, and its branch', async () => {
    const path = await workerBranch('m1/12-add-cart', 'cart.txt');
    await mergeOnOrigin('m1/12-add-cart');
    writeFileSync(join(path, 'notes.txt'), 'unsaved\n');
    const r = await cleanupMergedIssue(workspace, merged('m1/12-add-cart', false), ctx, wg);
    expect(r).toMatchObject({
      localBranchDeleted: false,
      kept: ['the worktree of m1/12-add-cart has uncommitted files'],
    });
    expect(existsSync(join(path, 'notes.txt'))).toBe(true);
  });

  it('keeps the work of an issue that is not merged at all', async () => {
    const path = await workerBranch('m1/13-pay', 'pay.txt');
    const r = await cleanupMergedIssue(workspace, merged('m1/13-pay'), ctx, wg);
    expect(r.kept).toEqual([
      'the worktree of m1/13-pay holds commits that are not merged',
      'm1/13-pay on origin has commits that are not merged',
    ]);
    expect(existsSync(path)).toBe(true);
    expect(await originSha(origin.url, 'm1/13-pay')).not.toBeNull();
  });

  it('never deletes a branch that is not an issue branch', async () => {
    for (const branch of ['main', 'blitz/m1', 'blitz/3', 'feature']) {
      const r = await cleanupMergedIssue(workspace, { ...merged(branch), mergedInto: 'main' }, ctx, wg);
      expect(r, branch).toEqual({
        localBranchDeleted: false,
        remoteBranchDeleted: false,
        kept: [`${branch} is not an issue branch`],
      });
      expect(await originSha(origin.url, branch === 'blitz/m1' ? 'blitz/m1' : 'main')).not.toBeNull();
    }
    expect(issueNumberOfBranch('ticket/12-headless')).toBe(12);
    expect(issueNumberOfBranch('m1/7-fix-login')).toBe(7);
  });
});

describe('sweepClosedIssueWorkspaces', () => {
  it('removes closed issues’ clean worktrees, keeps open ones, busy ones and unpushed work', async () => {
    const closed = await workerBranch('m1/12-add-cart', 'cart.txt');
    const open = await workerBranch('m1/13-pay', 'pay.txt');
    const busy = await workerBranch('m1/14-search', 'search.txt');
    const unpushed = await workerBranch('ticket/15-headless', 'x.txt');
    writeFileSync(join(unpushed, 'y.txt'), 'y\n');
    await gitIn(unpushed, 'add', '-A');
    await gitIn(unpushed, ...who, 'commit', '--quiet', '-m', 'not pushed');
    const r = await sweepClosedIssueWorkspaces(workspace, repo, [12, 14, 15, 99], [busy], ctx, wg);
    expect(r.removed).toEqual([closed]);
    expect(r.deletedBranches).toEqual(['m1/12-add-cart']);
    expect(r.kept).toEqual([
      { path: busy, reason: 'an attempt is still using it (#14 is closed)' },
      { path: unpushed, reason: '#15 is closed but its worktree holds work found nowhere else' },
    ]);
    expect(existsSync(closed)).toBe(false);
    expect(existsSync(open)).toBe(true);
    // Origin keeps the closed issue's pushed branch: a sweep only frees this host's disk.
    expect(await originSha(origin.url, 'm1/12-add-cart')).not.toBeNull();
  });
});
