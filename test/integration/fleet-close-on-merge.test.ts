// Closing on merge over the fake GitHub: a merged PR closes the issues it names (same repo and
// another repo) with a comment naming the merge commit, leaves an issue that is already closed
// alone, closes the parent epic once its last child is closed, and a second run changes nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RepoRef } from '../../src/forges/types.ts';
import { closeOnMerge } from '../../src/runs/close-on-merge.ts';
import { type GithubHarness, githubHarness } from '../support/fake-github/harness.ts';
import { MemoryGit } from '../support/world.ts';

const app: RepoRef = { owner: 'acme', name: 'app' };
const lib: RepoRef = { owner: 'acme', name: 'lib' };

let h: GithubHarness;
beforeEach(async () => {
  h = await githubHarness();
  const libRepo = h.world.addRepo('acme/lib', { git: new MemoryGit('main') });
  h.world.addMilestone(h.repo, 'M1');
  h.world.addIssue(h.repo, {
    number: 1,
    title: 'Epic: the views',
    body: '- [ ] #2\n- [ ] #3',
    milestone: 'M1',
    blockedBy: [2, 3],
  });
  h.world.addIssue(h.repo, { number: 2, title: 'List view', milestone: 'M1' });
  h.world.addIssue(h.repo, { number: 3, title: 'Detail view', milestone: 'M1', state: 'closed' });
  h.world.addIssue(h.repo, { number: 4, title: 'Unrelated', milestone: 'M1' });
  h.world.addIssue(libRepo, { number: 1, title: 'Client side' });
  h.git.commit('feature', 'main');
});
afterEach(async () => {
  await h.close();
});

describe('close on merge', () => {
  it('closes what the merged PR names once, with the merge commit, and the epic after its last child', async () => {
    const pr = await h.forge.openPullRequest(app, {
      head: 'feature',
      base: 'main',
      title: 'Views',
      body: 'Fixes #2\nCloses #3\nResolves acme/lib#1',
    });
    const { sha } = await h.forge.mergePullRequest(pr.ref, { method: 'squash' });
    if (!sha) throw new Error('the merge names no merge commit');
    const input = { forge: h.forge, pr: pr.ref, mergeSha: sha, forgeFor: async () => h.forge };
    const first = await closeOnMerge(input);
    expect(first.closed).toEqual([
      { repo: app, number: 2 },
      { repo: lib, number: 1 },
    ]);
    expect(first.alreadyClosed).toEqual([{ repo: app, number: 3 }]);
    expect(first.epicsClosed).toEqual([{ repo: app, number: 1 }]);
    expect(h.world.issue(h.repo, 4)?.state).toBe('open');
    const comment = h.world.commentsOn(h.repo, 2).at(-1)!.body;
    expect(comment).toContain(`#${pr.ref.number}`);
    expect(comment).toContain(sha);
    expect(h.world.commentsOn(h.world.repo('acme', 'lib')!, 1).at(-1)!.body).toContain(
      `acme/app#${pr.ref.number}`,
    );
    const closes = () => [1, 2, 3].map((n) => h.world.count('close', 'acme/app', n));
    expect(closes()).toEqual([1, 1, 0]);
    // A second look (a redelivered merge event, a blitz run's own close) changes nothing.
    const again = await closeOnMerge(input);
    expect(again.closed).toEqual([]);
    expect(again.epicsClosed).toEqual([]);
    expect(closes()).toEqual([1, 1, 0]);
    expect(h.world.commentsOn(h.repo, 2)).toHaveLength(1);
  });

  it('leaves the epic open while another child is open', async () => {
    h.world.issue(h.repo, 3)!.state = 'open';
    const pr = await h.forge.openPullRequest(app, {
      head: 'feature',
      base: 'main',
      title: 'List',
      body: 'Fixes #2',
    });
    const { sha } = await h.forge.mergePullRequest(pr.ref, { method: 'squash' });
    if (!sha) throw new Error('the merge names no merge commit');
    const r = await closeOnMerge({ forge: h.forge, pr: pr.ref, mergeSha: sha });
    expect(r.closed).toEqual([{ repo: app, number: 2 }]);
    expect(r.epicsClosed).toEqual([]);
    expect(h.world.issue(h.repo, 1)?.state).toBe('open');
  });
});
