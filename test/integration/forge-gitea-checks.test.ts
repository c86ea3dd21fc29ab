// Commit statuses and reviews through the Gitea forge against the contract-checked fake: the combined
// status normalised to checks, the bot's progress as the `blitz` status, reviews (stale after a push),
// their line comments, and an answer that joins the comment's conversation.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { type GiteaHarness, startGiteaHarness } from '../support/fake-gitea/setup.ts';
import type { MemoryGit } from '../support/world.ts';
import { checksOf } from '../support/world-checks.ts';

const app = { owner: 'acme', name: 'app' };
let h: GiteaHarness;
let sha: string;

beforeEach(async () => {
  h = await startGiteaHarness({
    fake: { tokens: { 'gitea-test-token': 'blitz-bot', 'wendy-token': 'wendy' } },
  });
  sha = (h.repo.git as MemoryGit).commit('feature', 'main');
  h.world.grant(h.repo, 'wendy', 'write');
});
afterEach(async () => {
  await h.fake.close();
  h.fake.assertNoViolations();
});

const api = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${h.fake.url}/api/v1${path}`, {
    method,
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('statuses', () => {
  it('reads the newest status per context as checks, and reports progress as the `blitz` status', async () => {
    const store = checksOf(h.world);
    const base = { sha, description: '', targetUrl: null, creator: 'ci-bot' };
    store.addStatus(h.repo, { ...base, context: 'ci/test', state: 'pending' });
    store.addStatus(h.repo, { ...base, context: 'ci/test', state: 'failure', description: '3 failed' });
    store.addStatus(h.repo, { ...base, context: 'ci/lint', state: 'pending' });

    await h.forge.reportProgress!(app, sha, {
      state: 'in_progress',
      title: 'reviewing',
      summary: 'not sent to Gitea',
      detailsUrl: 'http://status.example/runs/1',
    });
    const checks = await h.forge.listChecks!(app, sha);
    expect(checks).toHaveLength(3);
    expect(checks.find((c) => c.name === 'ci/test')).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      summary: '3 failed',
      reporter: 'ci-bot',
    });
    expect(checks.find((c) => c.name === 'ci/lint')).toMatchObject({ status: 'in_progress' });
    expect(checks.find((c) => c.name === 'blitz')).toMatchObject({
      status: 'in_progress',
      reporter: 'blitz-bot',
      url: 'http://status.example/runs/1',
    });
  });

  const blitzStatuses = () =>
    checksOf(h.world)
      .statuses.filter((s) => s.context === 'blitz')
      .map((s) => [s.state, s.description]);
  const report = (state: 'queued' | 'in_progress' | 'success', title: string, waiting = false) =>
    h.forge.reportProgress!(app, sha, { state, title, summary: '', ...(waiting ? { waiting } : {}) });

  it('sends nothing that only waits on a head with no status yet: a PR whose CI is in gets one status', async () => {
    await report('queued', 'queued: waiting for the review leg and the build');
    await report('in_progress', 'CI pending', true);
    await report('in_progress', 'CI green; waiting for the review leg', true);
    expect(h.fake.count('repoCreateStatus')).toBe(0);
    await report('success', 'ready to merge');
    expect(blitzStatuses()).toEqual([['success', 'ready to merge']]);
    expect(h.fake.count('repoCreateStatus')).toBe(1);
  });

  it('sends news (a worker resumed) at once, and no pending that only waits after it', async () => {
    await report('queued', 'queued: waiting for the review leg and the build');
    await report('in_progress', 'worker resumed: conflict with blitz/m1');
    await h.forge.reportProgress!(app, sha, {
      state: 'in_progress',
      title: 'the worker is addressing feedback',
      summary: '',
      working: true,
    });
    await report('in_progress', 'CI pending', true);
    await report('in_progress', 'CI green; waiting for the merge', true);
    expect(h.fake.count('repoCreateStatus')).toBe(1);
    await report('in_progress', 'worker resumed: CI red');
    await report('success', 'ready to merge');
    // The merge was refused: back to waiting, which a person must see (success → pending).
    await report('in_progress', 'CI green; waiting for the merge', true);
    await report('in_progress', 'CI pending', true);
    expect(blitzStatuses()).toEqual([
      ['pending', 'worker resumed: conflict with blitz/m1'],
      ['pending', 'worker resumed: CI red'],
      ['success', 'ready to merge'],
      ['pending', 'CI green; waiting for the merge'],
    ]);
    expect(h.fake.count('repoCreateStatus')).toBe(4);
  });

  it('a status on a commit that does not exist is not_found and records nothing', async () => {
    const err = await h.forge.reportProgress!(app, 'f'.repeat(40), {
      state: 'success',
      title: 'x',
      summary: '',
    }).catch((e: unknown) => e);
    expect(isAppError(err, 'not_found')).toBe(true);
    expect(checksOf(h.world).statuses).toHaveLength(0);
  });

  it('an unknown status state is refused by the contract check and records nothing', async () => {
    const res = await api('gitea-test-token', 'POST', `/repos/acme/app/statuses/${sha}`, {
      context: 'x',
      state: 'running',
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(checksOf(h.world).statuses).toHaveLength(0);
    h.fake.violations.length = 0;
  });
});

describe('reviews', () => {
  it('lists a writer’s review and line comment, marks it stale after a push, and answers on its line', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    const posted = await api('wendy-token', 'POST', `/repos/acme/app/pulls/${pr.ref.number}/reviews`, {
      event: 'REQUEST_CHANGES',
      body: 'please rename',
      comments: [{ path: 'src/a.ts', new_position: 3, body: 'call it `total`' }],
    });
    expect(posted.status).toBe(200);

    expect(await h.forge.listReviews!(pr.ref)).toEqual([
      expect.objectContaining({ author: 'wendy', state: 'changes_requested', commitSha: sha }),
    ]);
    const [comment] = await h.forge.listReviewComments!(pr.ref);
    expect(comment).toMatchObject({ author: 'wendy', path: 'src/a.ts', line: 3, body: 'call it `total`' });

    const mid = h.fake.requests.length;
    const reply = await h.forge.replyToReviewComment!(pr.ref, comment!.id, 'Renamed in abc1234.');
    // The comment was read already: its file and line need no second list of the reviews.
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual([
      'repoCreatePullReview',
      'repoGetPullReviewComments',
    ]);
    expect(reply).toMatchObject({ author: 'blitz-bot', path: 'src/a.ts', line: 3, inReplyTo: comment!.id });
    expect(checksOf(h.world).commentsOn(h.repo, pr.ref.number).at(-1)?.inReplyTo).toBe(comment!.id);

    (h.repo.git as MemoryGit).commit('feature');
    const [after] = await h.forge.listReviews!(pr.ref);
    expect(after).toMatchObject({ state: 'changes_requested', stale: true });
  });

  it('reads a review’s comments once: every later list of the reviews reuses them, its own answer too', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    const review = (body: string) =>
      api('wendy-token', 'POST', `/repos/acme/app/pulls/${pr.ref.number}/reviews`, {
        event: 'REQUEST_CHANGES',
        body: '',
        comments: [{ path: 'src/a.ts', new_position: 3, body }],
      });
    expect((await review('call it `total`')).status).toBe(200);
    const reads = () => h.fake.count('repoGetPullReviewComments');

    const [first] = await h.forge.listReviewComments!(pr.ref);
    expect(await h.forge.listReviewComments!(pr.ref)).toEqual([first]);
    expect(reads()).toBe(1);

    await h.forge.replyToReviewComment!(pr.ref, first!.id, 'Renamed in abc1234.');
    expect(reads()).toBe(2);
    const withAnswer = await h.forge.listReviewComments!(pr.ref);
    expect(withAnswer.map((c) => [c.author, c.body])).toEqual([
      ['wendy', 'call it `total`'],
      ['blitz-bot', 'Renamed in abc1234.'],
    ]);
    expect(reads()).toBe(2);

    // A new review is read, once; the two before it are not read again.
    expect((await review('and `count`')).status).toBe(200);
    expect((await h.forge.listReviewComments!(pr.ref)).map((c) => c.body)).toEqual([
      'call it `total`',
      'Renamed in abc1234.',
      'and `count`',
    ]);
    await h.forge.readPullFeedback!(pr.ref);
    expect(reads()).toBe(3);
  });

  it('answering a comment that is not on the PR is not_found and posts nothing', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    const err = await h.forge.replyToReviewComment!(pr.ref, 4242, 'hi').catch((e: unknown) => e);
    expect(isAppError(err, 'not_found')).toBe(true);
    expect(checksOf(h.world).reviews).toHaveLength(0);
  });
});

describe('the feedback read of a PR the call opened', () => {
  const ops = (from: number) => h.fake.requests.slice(from).map((r) => r.operationId);

  it('reads only its status when the open made it: a new PR has no reviews yet', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    expect(pr.created).toBe(true);
    const mid = h.fake.requests.length;
    const read = await h.forge.readPullFeedback!(pr.ref, { pull: pr });
    expect(ops(mid)).toEqual(['repoGetCombinedStatusByRef']);
    // Nor a comment: the review leg posts its own without listing the conversation first.
    expect(read).toMatchObject({ pull: { ref: pr.ref }, reviews: [], comments: [], conversationComments: 0 });
  });

  it('reads its reviews when the open found a PR from that head already (it may have some)', async () => {
    const first = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    await api('wendy-token', 'POST', `/repos/acme/app/pulls/${first.ref.number}/reviews`, {
      event: 'REQUEST_CHANGES',
      body: 'please rename',
    });
    const again = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    expect(again.ref.number).toBe(first.ref.number);
    expect(again.created).toBeFalsy();
    const mid = h.fake.requests.length;
    const read = await h.forge.readPullFeedback!(again.ref, { pull: again });
    expect(ops(mid)).toContain('repoListPullReviews');
    expect(read.reviews).toEqual([expect.objectContaining({ author: 'wendy', state: 'changes_requested' })]);
  });
});
