// Checks and reviews through the GitHub forge against the contract-checked fake: check runs and the
// combined status normalised to one shape, annotations of failed runs, an Actions job's log tail, the
// bot's own `blitz` check created then updated in place, reviews, line comments and a threaded reply,
// and the one GraphQL read of a PR with all of these (pull-feedback.ts) against the REST reads.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { createGithubForge } from '../../src/forges/github/index.ts';
import type { RepoRef } from '../../src/forges/types.ts';
import { fastRetry, type GithubHarness, githubHarness } from '../support/fake-github/harness.ts';
import { checksOf } from '../support/world-checks.ts';

const app: RepoRef = { owner: 'acme', name: 'app' };

let h: GithubHarness;
let sha: string;
beforeEach(async () => {
  h = await githubHarness({
    fake: { tokens: { 'test-token': 'blitz-bot[bot]', 'wendy-token': 'wendy', 'rita-token': 'rita' } },
  });
  sha = h.git.commit('feature', 'main');
  h.world.grant(h.repo, 'wendy', 'write');
  h.world.grant(h.repo, 'rita', 'read');
});
afterEach(async () => {
  await checksOf(h.world).close();
  await h.close();
});

const api = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${h.fake.apiUrl}${path}`, {
    method,
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('checks', () => {
  it('reads check runs and commit statuses on a sha as one list, with annotations and job log of a failure', async () => {
    const store = checksOf(h.world);
    const failed = store.addRun(h.repo, {
      name: 'test (ubuntu)',
      headSha: sha,
      appSlug: 'github-actions',
      conclusion: 'failure',
      title: '2 tests failed',
      summary: 'expected 3, got 4',
      annotations: [
        { path: 'src/a.ts', startLine: 7, endLine: 7, level: 'failure', message: 'boom', title: null },
      ],
      log: `${'x'.repeat(5000)}\nFAIL src/a.test.ts > adds\n`,
    });
    store.addRun(h.repo, { name: 'lint', headSha: sha, appSlug: 'github-actions', status: 'in_progress' });
    store.addStatus(h.repo, {
      sha,
      context: 'ci/legacy',
      state: 'success',
      description: 'ok',
      targetUrl: null,
      creator: 'wendy',
    });

    const checks = await h.forge.listChecks!(app, sha);
    expect(checks).toHaveLength(3);
    expect(checks.find((c) => c.name === 'test (ubuntu)')).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      summary: '2 tests failed\n\nexpected 3, got 4',
      annotations: [{ path: 'src/a.ts', startLine: 7, level: 'failure', message: 'boom' }],
      externalId: `check_run:${failed.id}`,
      actionsJobId: failed.id,
      reporter: 'github-actions',
    });
    expect(checks.find((c) => c.name === 'lint')).toMatchObject({ status: 'in_progress' });
    // A combined status names no creator: only check runs carry who reported them.
    expect(checks.find((c) => c.name === 'ci/legacy')).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      externalId: expect.stringMatching(/^status:\d+$/),
    });

    const tail = await h.forge.jobLogTail!(app, failed.id, 100);
    expect(tail).toContain('FAIL src/a.test.ts > adds');
    expect(Buffer.byteLength(tail ?? '')).toBeLessThanOrEqual(100);
    // The log host never sees the forge token: the signed URL is fetched without it.
    expect(h.logs()).not.toContain('test-token');
  });

  it('a head whose checks finished is read once over many passes, and again after a check webhook for it', async () => {
    const store = checksOf(h.world);
    const lint = store.addRun(h.repo, {
      name: 'lint',
      headSha: sha,
      appSlug: 'github-actions',
      status: 'in_progress',
    });
    const reads = () => h.fake.requests.filter((r) => r.operationId === 'checks/list-for-ref').length;
    const start = reads();
    // Still running: every pass reads it.
    await h.forge.listChecks!(app, sha);
    await h.forge.listChecks!(app, sha);
    expect(reads() - start).toBe(2);
    store.updateRun(lint, { conclusion: 'success' });
    for (let pass = 0; pass < 5; pass++) await h.forge.listChecks!(app, sha);
    // Finished: one read for five passes (each read is the runs and the combined status).
    expect(reads() - start).toBe(3);
    // A re-run reported by webhook: read afresh, and the new result is seen.
    store.updateRun(lint, { status: 'in_progress', conclusion: null });
    h.forge.observeEvent!({ kind: 'checks-changed', repo: app, headSha: sha });
    expect((await h.forge.listChecks!(app, sha)).find((c) => c.name === 'lint')?.status).toBe('in_progress');
    expect(reads() - start).toBe(4);
  });

  it('a job without a log reads as no log, not as a failure', async () => {
    expect(await h.forge.jobLogTail!(app, 999_999, 100)).toBeUndefined();
  });

  it('creates the bot’s own check `blitz` once and then updates it in place', async () => {
    const before = h.fake.requests.length;
    await h.forge.reportProgress!(app, sha, { state: 'queued', title: 'queued', summary: 'waiting' });
    await h.forge.reportProgress!(app, sha, {
      state: 'in_progress',
      title: 'reviewing',
      summary: 'review leg running',
      detailsUrl: 'http://status.example/runs/1',
    });
    await h.forge.reportProgress!(app, sha, {
      state: 'success',
      title: 'review passed',
      summary: 'all good',
    });
    // One search for an existing check run, on the first report; later ones update the one it knows.
    expect(h.fake.requests.slice(before).map((r) => r.operationId)).toEqual([
      'checks/list-for-ref',
      'checks/create',
      'checks/update',
      'checks/update',
    ]);
    const mine = checksOf(h.world).runsFor(h.repo, sha);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      name: 'blitz',
      appSlug: 'blitz-bot',
      status: 'completed',
      conclusion: 'success',
      title: 'review passed',
      detailsUrl: 'http://status.example/runs/1',
    });
    const read = await h.forge.listChecks!(app, sha);
    expect(read).toEqual([expect.objectContaining({ name: 'blitz', reporter: 'blitz-bot' })]);
  });

  it('a malformed check run (unknown status word) is a contract violation and changes nothing', async () => {
    const res = await api('test-token', 'POST', '/repos/acme/app/check-runs', {
      name: 'x',
      head_sha: sha,
      status: 'running',
    });
    expect(res.status).toBe(500);
    expect(h.fake.violations.join('\n')).toMatch(/status/);
    expect(checksOf(h.world).runs).toHaveLength(0);
    h.fake.violations.length = 0;
  });
});

describe('reviews', () => {
  it('lists a writer’s changes-requested review and its line comment, and answers on the thread', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    const posted = await api('wendy-token', 'POST', `/repos/acme/app/pulls/${pr.ref.number}/reviews`, {
      event: 'REQUEST_CHANGES',
      body: 'please rename',
      comments: [{ path: 'src/a.ts', line: 3, body: 'call it `total`' }],
    });
    expect(posted.status).toBe(200);

    const reviews = await h.forge.listReviews!(pr.ref);
    expect(reviews).toEqual([
      expect.objectContaining({
        author: 'wendy',
        state: 'changes_requested',
        body: 'please rename',
        commitSha: sha,
      }),
    ]);
    const comments = await h.forge.listReviewComments!(pr.ref);
    expect(comments).toEqual([
      expect.objectContaining({ author: 'wendy', path: 'src/a.ts', line: 3, body: 'call it `total`' }),
    ]);

    const reply = await h.forge.replyToReviewComment!(pr.ref, comments[0]!.id, 'Renamed in abc1234.');
    expect(reply).toMatchObject({
      author: 'blitz-bot[bot]',
      inReplyTo: comments[0]!.id,
      path: 'src/a.ts',
      line: 3,
    });
    expect(checksOf(h.world).commentsOn(h.repo, pr.ref.number)).toHaveLength(2);
  });

  it('reads a PR with its head’s checks, reviews and review comments in one GraphQL query, as the REST reads say', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    const store = checksOf(h.world);
    store.addRun(h.repo, {
      name: 'test',
      headSha: sha,
      appSlug: 'github-actions',
      conclusion: 'failure',
      title: '1 test failed',
      summary: 'expected 1',
      annotations: [
        { path: 'src/a.ts', startLine: 2, endLine: 2, level: 'failure', message: 'boom', title: null },
      ],
    });
    store.addStatus(h.repo, {
      sha,
      context: 'ci/legacy',
      state: 'pending',
      description: 'running',
      targetUrl: null,
      creator: 'wendy',
    });
    await h.forge.reportProgress!(app, sha, { state: 'queued', title: 'queued', summary: 'waiting' });
    await api('wendy-token', 'POST', `/repos/acme/app/pulls/${pr.ref.number}/reviews`, {
      event: 'REQUEST_CHANGES',
      body: 'please rename',
      comments: [{ path: 'src/a.ts', line: 3, body: 'call it `total`' }],
    });
    const first = (await h.forge.listReviewComments!(pr.ref))[0]!;
    await h.forge.replyToReviewComment!(pr.ref, first.id, 'Renamed in abc1234.');

    const before = h.fake.requests.length;
    const read = await h.forge.readPullFeedback!(pr.ref);
    expect(h.fake.requests.slice(before).map((r) => r.operationId)).toEqual(['graphql']);
    const rest = {
      pull: await h.forge.getPullRequest(pr.ref),
      checks: await h.forge.listChecks!(app, sha),
      reviews: await h.forge.listReviews!(pr.ref),
      comments: await h.forge.listReviewComments!(pr.ref),
    };
    expect(read.pull).toEqual({ ...rest.pull, htmlUrl: expect.any(String) });
    expect(read.pull.head.sha).toBe(sha);
    expect(read.reviews).toEqual(rest.reviews);
    expect(read.comments).toEqual(rest.comments);
    expect(read.comments.map((c) => c.inReplyTo)).toEqual([undefined, first.id]);
    // The conversation's comments are counted (review comments are not among them).
    expect(read.conversationComments).toBe(0);
    await h.forge.createComment(pr.ref, 'a word in the conversation');
    expect((await h.forge.readPullFeedback!(pr.ref)).conversationComments).toBe(1);
    // A status context has no database id in GraphQL (its id differs) but names its creator (REST's
    // combined status does not); the fake's web addresses differ between its REST and GraphQL.
    const noId = (cs: typeof read.checks) =>
      cs
        .map(({ url: _u, reporter, ...c }) => ({
          ...c,
          externalId: c.externalId.split(':')[0],
          ...(c.externalId.startsWith('status:') ? {} : { reporter }),
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    expect(noId(read.checks)).toEqual(noId(rest.checks));
    expect(read.checks.find((c) => c.name === 'ci/legacy')?.reporter).toBe('wendy');
    expect(read.checks.find((c) => c.name === 'test')?.annotations).toEqual([
      { path: 'src/a.ts', startLine: 2, level: 'failure', message: 'boom' },
    ]);
  });

  it('a head the bot has not reported on is given its check without a search; one seen in a feedback read is updated', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    const before = h.fake.requests.length;
    await h.forge.reportProgress!(
      app,
      sha,
      { state: 'queued', title: 'queued', summary: 'waiting' },
      { first: true },
    );
    expect(h.fake.requests.slice(before).map((r) => r.operationId)).toEqual(['checks/create']);
    // Another process of the bot (nothing remembered) reads the PR, then reports on the same head.
    const other = createGithubForge({
      baseUrl: h.fake.apiUrl,
      auth: { token: 'test-token' },
      botLogin: h.world.botLogin,
      retry: fastRetry,
    });
    await other.readPullFeedback!(pr.ref);
    const mid = h.fake.requests.length;
    await other.reportProgress!(app, sha, { state: 'success', title: 'done', summary: 'all good' });
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['checks/update']);
    expect(checksOf(h.world).runsFor(h.repo, sha)).toEqual([
      expect.objectContaining({ name: 'blitz', conclusion: 'success' }),
    ]);
  });

  it('a report that only says the worker is at it is not sent after the one that resumed it; after a completed one it is', async () => {
    const resumed = { state: 'in_progress' as const, title: 'worker resumed: CI red', summary: 'fix 1' };
    const working = {
      state: 'in_progress' as const,
      title: 'the worker is addressing feedback',
      summary: 'fix 1',
      working: true,
    };
    await h.forge.reportProgress!(app, sha, resumed, { first: true });
    const mid = h.fake.requests.length;
    await h.forge.reportProgress!(app, sha, working);
    expect(h.fake.requests.slice(mid)).toEqual([]);
    await h.forge.reportProgress!(app, sha, { state: 'failure', title: 'not merged', summary: 'conflict' });
    const late = h.fake.requests.length;
    await h.forge.reportProgress!(app, sha, working);
    expect(h.fake.requests.slice(late).map((r) => r.operationId)).toEqual(['checks/update']);
    expect(
      checksOf(h.world)
        .runsFor(h.repo, sha)
        .map((r) => r.title),
    ).toEqual(['the worker is addressing feedback']);
  });

  it('answering a comment that is not on the PR is not_found and posts nothing', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    const err = await h.forge.replyToReviewComment!(pr.ref, 424242, 'hello').catch((e: unknown) => e);
    expect(isAppError(err, 'not_found')).toBe(true);
    expect(checksOf(h.world).reviewComments).toHaveLength(0);
  });
});

describe('a PR opened with its first `blitz` check', () => {
  const queued = { state: 'queued' as const, title: 'queued', summary: 'waiting for review' };
  const open = (forge = h.forge) =>
    forge.openPullRequest(
      app,
      { head: 'feature', base: 'main', title: 'x', body: 'Fixes #1' },
      { progress: { sha, report: queued } },
    );

  it('is one GraphQL request once the repository was read; later reports update that check in place', async () => {
    await h.forge.getDefaultBranch(app);
    const before = h.fake.requests.length;
    const pr = await open();
    expect(h.fake.requests.slice(before).map((r) => r.operationId)).toEqual(['graphql']);
    expect(pr).toMatchObject({ state: 'open', head: { ref: 'feature', sha }, progressSent: true });
    expect(h.world.pull(h.repo, pr.ref.number)?.pull?.head).toBe('feature');
    expect(checksOf(h.world).runsFor(h.repo, sha)).toEqual([
      // The gate works on the PR from its open: the opening report is in progress on GitHub.
      expect.objectContaining({
        name: 'blitz',
        appSlug: 'blitz-bot',
        status: 'in_progress',
        title: 'queued',
      }),
    ]);
    const mid = h.fake.requests.length;
    await h.forge.reportProgress!(app, sha, { state: 'success', title: 'done', summary: 'all good' });
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['checks/update']);
    expect(checksOf(h.world).runsFor(h.repo, sha)).toHaveLength(1);
  });

  const waiting = {
    state: 'in_progress' as const,
    title: 'CI green; waiting for the review leg',
    summary: 'review leg: not in yet',
    waiting: true,
  };
  const blitzRuns = (at: string) =>
    checksOf(h.world)
      .runsFor(h.repo, at)
      .map((r) => [r.status, r.conclusion ?? null, r.title]);

  it('the first report after the open that only waits on the named legs is not sent: created, then completed', async () => {
    await h.forge.getDefaultBranch(app);
    await open();
    const mid = h.fake.requests.length;
    await h.forge.reportProgress!(app, sha, waiting);
    expect(h.fake.requests.slice(mid)).toEqual([]);
    expect(blitzRuns(sha)).toEqual([['in_progress', null, 'queued']]);
    // Only the first: a later waiting report on that head has news the opening words lack.
    await h.forge.reportProgress!(app, sha, { ...waiting, title: 'CI pending; waiting for the review leg' });
    await h.forge.reportProgress!(app, sha, { state: 'success', title: 'done', summary: 'all good' });
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['checks/update', 'checks/update']);
    expect(blitzRuns(sha)).toEqual([['completed', 'success', 'done']]);
  });

  it('the first report after the open with news (a worker resumed) is sent', async () => {
    await h.forge.getDefaultBranch(app);
    await open();
    const mid = h.fake.requests.length;
    await h.forge.reportProgress!(app, sha, {
      state: 'in_progress',
      title: 'worker resumed: CI red',
      summary: 'build: 1 check failed',
    });
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['checks/update']);
    expect(blitzRuns(sha)).toEqual([['in_progress', null, 'worker resumed: CI red']]);
  });

  it('a later head of the PR is reported from its first waiting report on', async () => {
    await h.forge.getDefaultBranch(app);
    await open();
    await h.forge.reportProgress!(app, sha, waiting);
    const next = h.git.commit('feature', 'feature');
    const mid = h.fake.requests.length;
    await h.forge.reportProgress!(app, next, waiting);
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual([
      'checks/list-for-ref',
      'checks/create',
    ]);
    expect(blitzRuns(next)).toEqual([['in_progress', null, waiting.title]]);
    expect(blitzRuns(sha)).toEqual([['in_progress', null, 'queued']]);
  });

  it('an opening report through REST (no node id) is created in progress and skips the same waiting report', async () => {
    await open();
    const mid = h.fake.requests.length;
    await h.forge.reportProgress!(app, sha, queued, { first: true });
    await h.forge.reportProgress!(app, sha, waiting);
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['checks/create']);
    expect(blitzRuns(sha)).toEqual([['in_progress', null, 'queued']]);
  });

  it('the fake refuses a check status only GitHub Actions may set, as GitHub does', async () => {
    const repo = await api('test-token', 'GET', '/repos/acme/app');
    const { node_id } = (await repo.json()) as { node_id: string };
    const res = await fetch(h.fake.apiUrl.replace(/\/v3$/, '/graphql'), {
      method: 'POST',
      headers: { authorization: 'token test-token', 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation($repo: ID!, $sha: GitObjectID!) {
        createCheckRun(input: { repositoryId: $repo, headSha: $sha, name: "blitz", status: WAITING }) {
          checkRun { databaseId }
        }
      }`,
        variables: { repo: node_id, sha },
      }),
    });
    const body = (await res.json()) as { errors?: { type?: string; message: string }[] };
    expect(body.errors?.[0]).toMatchObject({
      type: 'UNPROCESSABLE',
      message: expect.stringMatching(/GitHub Actions/),
    });
    expect(checksOf(h.world).runsFor(h.repo, sha)).toHaveLength(0);
  });

  it('answers with the new PR’s feedback: the read after it costs no request and says what a read says', async () => {
    checksOf(h.world).addRun(h.repo, {
      name: 'test',
      headSha: sha,
      appSlug: 'github-actions',
      conclusion: 'failure',
      title: '1 test failed',
      summary: 'expected 1',
      annotations: [
        { path: 'src/a.ts', startLine: 2, endLine: 2, level: 'failure', message: 'boom', title: null },
      ],
    });
    await h.forge.getDefaultBranch(app);
    const before = h.fake.requests.length;
    const pr = await open();
    expect(h.fake.requests.slice(before).map((r) => r.operationId)).toEqual(['graphql']);
    const mid = h.fake.requests.length;
    const given = await h.forge.readPullFeedback!(pr.ref, { pull: pr });
    expect(h.fake.requests.length).toBe(mid);
    const read = await h.forge.readPullFeedback!(pr.ref);
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['graphql']);
    expect(given.pull).toEqual(read.pull);
    expect(given).toMatchObject({ reviews: [], comments: [], conversationComments: 0 });
    expect(given.reviews).toEqual(read.reviews);
    // Read in the open's request before its `blitz` check was made: CI's checks as a read says them.
    const notOwn = (f: typeof read) => f.checks.filter((c) => c.name !== 'blitz');
    expect(given.checks.map((c) => c.name)).toEqual(['test']);
    expect(notOwn(given)).toEqual(notOwn(read));
    expect(given.checks[0]?.annotations).toEqual([
      { path: 'src/a.ts', startLine: 2, level: 'failure', message: 'boom' },
    ]);
    // The check the open made is updated by the merge, not made a second time.
    await h.forge.mergePullRequest(pr.ref, {
      method: 'merge',
      expectedHeadSha: sha,
      progress: { sha, report: { state: 'success', title: 'ready', summary: 'all good' } },
    });
    expect(
      checksOf(h.world)
        .runsFor(h.repo, sha)
        .filter((r) => r.name === 'blitz'),
    ).toHaveLength(1);
  });

  it('a PR whose open it did not make, or another PR, is read: no feedback is taken from it', async () => {
    const first = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    await h.forge.getDefaultBranch(app);
    const again = await open();
    expect(again.feedback).toBeUndefined();
    const otherSha = h.git.commit('other', 'main');
    const other = await h.forge.openPullRequest(
      app,
      { head: 'other', base: 'main', title: 'y', body: '' },
      { progress: { sha: otherSha, report: queued } },
    );
    expect(other.feedback).toBeDefined();
    const mid = h.fake.requests.length;
    const read = await h.forge.readPullFeedback!(first.ref, { pull: other });
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['graphql']);
    expect(read.pull.ref.number).toBe(first.ref.number);
  });

  it('a PR from that head open already is the answer, as on REST', async () => {
    const first = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    await h.forge.getDefaultBranch(app);
    const again = await open();
    expect(again.ref.number).toBe(first.ref.number);
    expect(again.progressSent).toBe(true);
    expect([...h.world.repo('acme', 'app')!.issues.values()].filter((i) => i.pull)).toHaveLength(1);
  });

  it('an open tried again on a commit whose check it made goes through REST: one `blitz` check, not two', async () => {
    await h.forge.getDefaultBranch(app);
    const first = await open();
    // The next pass opens again (its first answer was not kept): the PR stands, its check too.
    const mid = h.fake.requests.length;
    const again = await open();
    expect(again.ref.number).toBe(first.ref.number);
    expect(again.progressSent).toBeFalsy();
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).not.toContain('graphql');
    expect(blitzRuns(sha)).toEqual([['in_progress', null, 'queued']]);
    // Its report goes to the check that is there.
    await h.forge.reportProgress!(
      app,
      sha,
      { state: 'success', title: 'done', summary: 'all good' },
      { first: true },
    );
    expect(blitzRuns(sha)).toEqual([['completed', 'success', 'done']]);
  });

  it('without the repository’s node id it opens through REST and sends no check', async () => {
    const before = h.fake.requests.length;
    const pr = await open();
    expect(h.fake.requests.slice(before).map((r) => r.operationId)).toEqual(['pulls/create']);
    expect(pr.progressSent).toBeFalsy();
    expect(checksOf(h.world).runsFor(h.repo, sha)).toHaveLength(0);
  });

  it('a user token opens the PR but its check is refused (FORBIDDEN): not sent, the PR stands', async () => {
    const wendy = createGithubForge({
      baseUrl: h.fake.apiUrl,
      auth: { token: 'wendy-token' },
      botLogin: h.world.botLogin,
      retry: fastRetry,
    });
    await wendy.getDefaultBranch(app);
    const pr = await open(wendy);
    expect(pr).toMatchObject({ state: 'open', author: 'wendy' });
    expect(pr.progressSent).toBe(false);
    expect(checksOf(h.world).runsFor(h.repo, sha)).toHaveLength(0);
  });

  it('a reader may neither open nor check: forbidden, nothing made', async () => {
    const rita = createGithubForge({
      baseUrl: h.fake.apiUrl,
      auth: { token: 'rita-token' },
      botLogin: h.world.botLogin,
      retry: fastRetry,
    });
    await rita.getDefaultBranch(app);
    const err = await open(rita).catch((e: unknown) => e);
    expect(isAppError(err, 'forbidden')).toBe(true);
    expect([...h.world.repo('acme', 'app')!.issues.values()].filter((i) => i.pull)).toHaveLength(0);
    expect(checksOf(h.world).runsFor(h.repo, sha)).toHaveLength(0);
  });
});

describe('a merge with the `blitz` check’s last report', () => {
  const queued = { state: 'queued' as const, title: 'queued', summary: 'waiting for review' };
  const ready = { state: 'success' as const, title: 'ready to merge', summary: 'all good' };
  const blitzRuns = (at: string) =>
    checksOf(h.world)
      .runsFor(h.repo, at)
      .map((r) => [r.status, r.conclusion ?? null, r.title]);
  const opened = async () => {
    await h.forge.getDefaultBranch(app);
    return h.forge.openPullRequest(
      app,
      { head: 'feature', base: 'main', title: 'x', body: 'Fixes #1' },
      { progress: { sha, report: queued } },
    );
  };
  const merge = (number: number, expectedHeadSha = sha) =>
    h.forge.mergePullRequest(
      { repo: app, number },
      { method: 'merge', expectedHeadSha, title: 'x (#2)', progress: { sha, report: ready } },
    );

  it('is one GraphQL request: the check completed, then the PR merged at the expected head', async () => {
    const pr = await opened();
    const mid = h.fake.requests.length;
    const result = await merge(pr.ref.number);
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['graphql']);
    expect(blitzRuns(sha)).toEqual([['completed', 'success', 'ready to merge']]);
    const stored = h.world.pull(h.repo, pr.ref.number)!;
    expect(stored.pull).toMatchObject({ merged: true, mergeCommitSha: result.sha });
    expect(await h.git.resolve('main')).toBe(result.sha);
  });

  it('a PR known from a feedback read and a check seen there merge the same way', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    await h.forge.reportProgress!(app, sha, queued, { first: true });
    // A fresh adapter knows the PR and its check only from the feedback read.
    const other = createGithubForge({
      baseUrl: h.fake.apiUrl,
      auth: { token: 'test-token' },
      botLogin: h.world.botLogin,
      retry: fastRetry,
    });
    await other.getDefaultBranch(app);
    await other.readPullFeedback!(pr.ref);
    const mid = h.fake.requests.length;
    await other.mergePullRequest(pr.ref, {
      method: 'merge',
      expectedHeadSha: sha,
      progress: { sha, report: ready },
    });
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['graphql']);
    expect(blitzRuns(sha)).toEqual([['completed', 'success', 'ready to merge']]);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(true);
  });

  const ownRuns = (at: string) =>
    checksOf(h.world)
      .runsFor(h.repo, at)
      .filter((r) => r.name === 'blitz')
      .map((r) => [r.status, r.conclusion ?? null, r.title]);

  it('a new head read whole without a check of the bot’s merges with its check made, in one request', async () => {
    const pr = await opened();
    // The worker pushes a new head; the feedback read shows its checks, none of them the bot's.
    const next = h.git.commit('feature', 'feature');
    checksOf(h.world).addRun(h.repo, { name: 'test', headSha: next, appSlug: 'github-actions' });
    await h.forge.readPullFeedback!(pr.ref);
    const mid = h.fake.requests.length;
    await h.forge.mergePullRequest(pr.ref, {
      method: 'merge',
      expectedHeadSha: next,
      progress: { sha: next, report: ready },
    });
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['graphql']);
    expect(ownRuns(next)).toEqual([['completed', 'success', 'ready to merge']]);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(true);
    // A later report on that head updates the check made with the merge: no search, no second check.
    const after = h.fake.requests.length;
    await h.forge.reportProgress!(app, next, { state: 'success', title: 'merged', summary: 'done' });
    expect(h.fake.requests.slice(after).map((r) => r.operationId)).toEqual(['checks/update']);
  });

  it('a new head whose feedback read held a check of the bot’s is not given a second one', async () => {
    const pr = await opened();
    const next = h.git.commit('feature', 'feature');
    await h.forge.reportProgress!(app, next, queued, { first: true });
    // A fresh adapter knows that check only from the feedback read: it updates it with the merge.
    const other = createGithubForge({
      baseUrl: h.fake.apiUrl,
      auth: { token: 'test-token' },
      botLogin: h.world.botLogin,
      retry: fastRetry,
    });
    await other.getDefaultBranch(app);
    await other.readPullFeedback!(pr.ref);
    await other.mergePullRequest(pr.ref, {
      method: 'merge',
      expectedHeadSha: next,
      progress: { sha: next, report: ready },
    });
    expect(ownRuns(next)).toEqual([['completed', 'success', 'ready to merge']]);
  });

  it('a head that moved is refused as REST’s 409 (conflict): nothing merged', async () => {
    const pr = await opened();
    h.git.commit('feature', 'feature');
    const err = await merge(pr.ref.number).catch((e: unknown) => e);
    expect(isAppError(err, 'conflict')).toBe(true);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(false);
  });

  it('a conflicting PR is refused as REST’s 405 (unmergeable): nothing merged', async () => {
    const pr = await opened();
    h.git.conflicts.add('main<-feature');
    const err = await merge(pr.ref.number).catch((e: unknown) => e);
    expect(isAppError(err, 'unmergeable')).toBe(true);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(false);
  });

  it('a merge that went in is a merge even when its check can be completed neither with it nor alone', async () => {
    const pr = await opened();
    // Tried: the bot's check run gone from GitHub (the document's update answers NOT_FOUND) and the
    // REST update sent alone after it failing with 503s past the client's retries.
    const runs = checksOf(h.world).runs;
    runs.splice(
      runs.findIndex((r) => r.headSha === sha),
      1,
    );
    h.fake.failNext(10, { status: 503, match: /^PATCH .*\/check-runs\// });
    const result = await merge(pr.ref.number);
    h.fake.clearFailures();
    expect(result.sha).toBe(h.world.pull(h.repo, pr.ref.number)!.pull!.mergeCommitSha);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(true);
    expect(h.logs()).toContain('PR merged, but its blitz check could not be completed');
  });

  it('a merge raced by a push to the base ("Base branch was modified") is tried once more after a read, and goes in', async () => {
    // Before: GitHub's UNPROCESSABLE "Base branch was modified" was taken for unmergeable and bounced.
    const pr = await opened();
    h.world.pull(h.repo, pr.ref.number)!.pull!.baseRaces = 1;
    const mid = h.fake.requests.length;
    await merge(pr.ref.number);
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['graphql', 'pulls/get', 'graphql']);
    expect(h.world.count('merge-refused', 'acme/app', pr.ref.number)).toBe(1);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(true);
  });

  it('a merge raced twice is refused as unmergeable: the retry is bounded', async () => {
    const pr = await opened();
    h.world.pull(h.repo, pr.ref.number)!.pull!.baseRaces = 2;
    const err = await merge(pr.ref.number).catch((e: unknown) => e);
    expect(isAppError(err, 'unmergeable')).toBe(true);
    expect(h.world.count('merge-refused', 'acme/app', pr.ref.number)).toBe(2);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(false);
  });

  it('without the ids it needs, the report goes first on its own and the merge through REST', async () => {
    const pr = await h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'x', body: '' });
    await h.forge.reportProgress!(app, sha, queued, { first: true });
    const mid = h.fake.requests.length;
    // The repository's node id is unknown (never read through REST): no GraphQL merge.
    await merge(pr.ref.number);
    expect(h.fake.requests.slice(mid).map((r) => r.operationId)).toEqual(['checks/update', 'pulls/merge']);
    expect(blitzRuns(sha)).toEqual([['completed', 'success', 'ready to merge']]);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(true);
  });

  it('the fake refuses a check run update by another App and a merge by a reader, as GitHub does', async () => {
    const pr = await opened();
    const repo = await api('test-token', 'GET', '/repos/acme/app');
    const { node_id } = (await repo.json()) as { node_id: string };
    const run = checksOf(h.world).runsFor(h.repo, sha)[0]!;
    const runId = Buffer.from(`CheckRun:${run.id}`).toString('base64url');
    const gql = async (token: string, query: string, variables: Record<string, unknown>) =>
      (await (
        await fetch(h.fake.apiUrl.replace(/\/v3$/, '/graphql'), {
          method: 'POST',
          headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query, variables }),
        })
      ).json()) as { errors?: { type?: string; message: string }[] };
    const byUser = await gql(
      'wendy-token',
      `mutation($repo: ID!, $run: ID!) {
        updateCheckRun(input: { repositoryId: $repo, checkRunId: $run, status: COMPLETED, conclusion: SUCCESS }) {
          checkRun { databaseId }
        }
      }`,
      { repo: node_id, run: runId },
    );
    expect(byUser.errors?.[0]).toMatchObject({ type: 'FORBIDDEN' });
    const prId = h.world.pull(h.repo, pr.ref.number)!.id;
    const byReader = await gql(
      'rita-token',
      `mutation($pr: ID!) { mergePullRequest(input: { pullRequestId: $pr }) { pullRequest { merged } } }`,
      { pr: Buffer.from(`Issue:${prId}`).toString('base64url') },
    );
    expect(byReader.errors?.[0]).toMatchObject({ type: 'FORBIDDEN' });
    expect(blitzRuns(sha)).toEqual([['in_progress', null, 'queued']]);
    expect(h.world.pull(h.repo, pr.ref.number)!.pull!.merged).toBe(false);
  });
});
