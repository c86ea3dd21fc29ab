// Cleanup of merged and closed issues in real git: a bare origin, the runner's clone and worktrees.
// A merged issue's worktree, local branch and origin branch go (origin's unless keepBranches); work
// that exists nowhere else is kept and named; at start, closed issues' workspaces are swept.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueNumberOfBranch, sweepClosedIssueWorkspaces } from '../../src/runner/cleanup.ts';
import type { GitContext } from '../../src/runner/git.ts';
import { ensureClone } from '../../src/runner/workspace.ts';
import { ensureWorktree } from '../../src/runner/worktrees.ts';
import { createOrigin, gitIn, type Origin, originSha, removeDir, tempDir } from '../support/git.ts';

const repo = { owner: 'acme', name: 'shop' };
let origin: Origin;
let workspace: string;
let repoDir: string;
const ctx: GitContext = { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempDir('blitz-home-') } };
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

/** A worker's worktree on `branch` with one commit, pushed to origin. */
const workerBranch = async (branch: string, file: string): Promise<string> => {
  const { path } = await ensureWorktree(workspace, repoDir, repo, branch, 'blitz/m1', ctx);
  writeFileSync(join(path, file), `${branch}\n`);
  await gitIn(path, 'add', '-A');
  await gitIn(path, ...who, 'commit', '--quiet', '-m', `work on ${branch}`);
  await gitIn(path, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
  return path;
};

describe('issueNumberOfBranch', () => {
  it('reads the issue of a worker branch, and of nothing else', () => {
    for (const branch of ['main', 'blitz/m1', 'blitz/3', 'feature'])
      expect(issueNumberOfBranch(branch)).toBeUndefined();
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
    const r = await sweepClosedIssueWorkspaces(workspace, repo, [12, 14, 15, 99], [busy], ctx);
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
