// Pull requests through the GitHub forge against the fake: open, read, find, files, bounded diff,
// guarded merge, update branch and closing issues, with the World's git as the witness.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import type { RepoRef } from '../../src/forges/types.ts';
import { type GithubHarness, githubHarness } from '../support/fake-github/harness.ts';

const app: RepoRef = { owner: 'acme', name: 'app' };
const ref = (number: number, repo: RepoRef = app) => ({ repo, number });

let h: GithubHarness;
let featureSha: string;
beforeEach(async () => {
  h = await githubHarness();
  featureSha = h.git.commit('feature', 'main');
  h.git.diffs.set('main...feature', 'diff --git a/src/é.ts b/src/é.ts\n+const x = "ééé";\n');
});
afterEach(async () => {
  await h.close();
});

const rejection = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
};

const open = () =>
  h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'Add x', body: 'Fixes #1' });

describe('pull requests', () => {
  it('opens a PR and reads it back with mergeability and head sha', async () => {
    const pr = await open();
    expect(h.world.pull(h.repo, pr.ref.number)?.pull).toMatchObject({ head: 'feature', base: 'main' });
    const read = await h.forge.getPullRequest(pr.ref);
    expect(read).toMatchObject({
      title: 'Add x',
      state: 'open',
      merged: false,
      mergeable: true,
      mergeState: 'clean',
      head: { ref: 'feature', sha: featureSha },
      base: { ref: 'main' },
      author: 'blitz-bot[bot]',
    });
  });

  it('finds the open PR from a branch, and nothing for a branch without one', async () => {
    const pr = await open();
    expect((await h.forge.findPullRequest(app, 'feature'))?.ref.number).toBe(pr.ref.number);
    expect(await h.forge.findPullRequest(app, 'other')).toBeUndefined();
  });

  it('opening a PR from a head that has one answers with that PR: no second PR, no read first', async () => {
    const pr = await open();
    const again = await open();
    expect(again.ref.number).toBe(pr.ref.number);
    expect(h.world.count('open_pull')).toBe(1);
  });

  it('lists changed files and bounds the diff, saying when it was cut', async () => {
    const pr = await open();
    expect(await h.forge.listPullRequestFiles(pr.ref)).toEqual([
      { path: 'src/é.ts', status: 'modified', additions: 0, deletions: 0 },
    ]);
    const whole = await h.forge.getPullRequestDiff(pr.ref, 10_000);
    expect(whole.truncated).toBe(false);
    expect(whole.diff).toContain('const x');
    const cut = await h.forge.getPullRequestDiff(pr.ref, 20);
    expect(cut).toMatchObject({ truncated: true, totalBytes: whole.totalBytes });
    expect(Buffer.byteLength(cut.diff)).toBeLessThanOrEqual(20);
    expect(cut.diff).not.toContain('\uFFFD');
  });

  it('reports behind when the base moved, and update-branch brings the base in', async () => {
    const pr = await open();
    h.git.commit('main');
    expect((await h.forge.getPullRequest(pr.ref)).mergeState).toBe('behind');
    await h.forge.updatePullRequestBranch(pr.ref);
    const after = await h.forge.getPullRequest(pr.ref);
    expect(after.mergeState).toBe('clean');
    expect(after.head.sha).not.toBe(featureSha);
  });

  it('merges with the expected head sha and the World records the merge', async () => {
    const pr = await open();
    const result = await h.forge.mergePullRequest(pr.ref, { method: 'squash', expectedHeadSha: featureSha });
    expect(await h.git.resolve('main')).toBe(result.sha);
    const stored = h.world.pull(h.repo, pr.ref.number)!;
    expect(stored.state).toBe('closed');
    expect(stored.pull).toMatchObject({ merged: true, mergeCommitSha: result.sha });
    expect(await h.forge.getPullRequest(pr.ref)).toMatchObject({ merged: true, mergeCommitSha: result.sha });
  });

  it('refuses to merge when the head moved since it was read (conflict) and changes nothing', async () => {
    const pr = await open();
    h.git.commit('feature');
    const err = await rejection(
      h.forge.mergePullRequest(pr.ref, { method: 'merge', expectedHeadSha: featureSha }),
    );
    expect(isAppError(err, 'conflict')).toBe(true);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(false);
  });

  it('a 405 "Base branch was modified" is tried once more after the PR is read again, and merges', async () => {
    // Before: every 405 was unmergeable, so a push to the base that raced the merge bounced the PR.
    const pr = await open();
    h.world.pull(h.repo, pr.ref.number)!.pull!.baseRaces = 1;
    const mid = h.fake.requests.length;
    const result = await h.forge.mergePullRequest(pr.ref, { method: 'squash', expectedHeadSha: featureSha });
    expect(h.fake.requests.slice(mid).map((r) => [r.operationId, r.status])).toEqual([
      ['pulls/merge', 405],
      ['pulls/get', 200],
      ['pulls/merge', 200],
    ]);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull).toMatchObject({
      merged: true,
      mergeCommitSha: result.sha,
    });
  });

  it('a base raced on the merge tried again too is refused as unmergeable; another 405 is not tried again', async () => {
    const raced = await open();
    h.world.pull(h.repo, raced.ref.number)!.pull!.baseRaces = 2;
    const err = await rejection(h.forge.mergePullRequest(raced.ref, { method: 'merge' }));
    expect(isAppError(err, 'unmergeable')).toBe(true);
    expect(h.world.count('merge-refused', 'acme/app', raced.ref.number)).toBe(2);
    expect(h.world.pull(h.repo, raced.ref.number)!.pull!.merged).toBe(false);
    // A conflict's 405 keeps its meaning: one request, refused.
    h.world.pull(h.repo, raced.ref.number)!.pull!.baseRaces = 0;
    h.git.conflicts.add('main<-feature');
    const mid = h.fake.requests.length;
    const conflict = await rejection(h.forge.mergePullRequest(raced.ref, { method: 'merge' }));
    expect(isAppError(conflict, 'unmergeable')).toBe(true);
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['pulls/merge']);
  });

  it('reports a conflicting PR as dirty and its merge as unmergeable', async () => {
    const pr = await open();
    h.git.conflicts.add('main<-feature');
    expect(await h.forge.getPullRequest(pr.ref)).toMatchObject({ mergeable: false, mergeState: 'dirty' });
    const err = await rejection(h.forge.mergePullRequest(pr.ref, { method: 'merge' }));
    expect(isAppError(err, 'unmergeable')).toBe(true);
    const update = await rejection(h.forge.updatePullRequestBranch(pr.ref));
    expect(isAppError(update, 'conflict')).toBe(true);
  });

  it('names the issues a PR closes: linked ones into the default branch, keywords in the body elsewhere', async () => {
    h.world.addIssue(h.repo, { number: 1, title: 'one' });
    const lib = h.world.addRepo('acme/lib');
    h.world.addIssue(lib, { number: 2, title: 'two' });
    const pr = await h.forge.openPullRequest(app, {
      head: 'feature',
      base: 'main',
      title: 'x',
      body: 'Fixes #1\nCloses acme/lib#2\nresolves #1',
    });
    expect(await h.forge.closingIssues(pr.ref)).toEqual([ref(1), ref(2, { owner: 'acme', name: 'lib' })]);
    h.git.commit('blitz/m1', 'main');
    h.git.commit('m1/3-thing', 'main');
    const into = await h.forge.openPullRequest(app, {
      head: 'm1/3-thing',
      base: 'blitz/m1',
      title: 'y',
      body: 'Resolves: #3',
    });
    expect(await h.forge.closingIssues(into.ref)).toEqual([ref(3)]);
  });
});
