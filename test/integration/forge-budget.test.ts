// The GitHub adapter's request economy against the contract-checked fake: conditional GETs answered
// 304 only when the ETag matches (and not counted against the rate limit), the milestone reload
// skipped while the milestone's issue list is unchanged, and the rate-limit budget the fake reports
// reaching the budget tracker, its pace, and the /metrics gauges; a rate-limit refusal (403 or 429 with
// Retry-After), waited out or not, holds new sessions until its wait is over.
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { createGithubForge } from '../../src/forges/github/index.ts';
import { budgetKey, createBudgetTracker } from '../../src/forges/rate-budget.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { type FakeGithub, startFakeGithub } from '../support/fake-github/server.ts';
import { World } from '../support/world.ts';

let fake: FakeGithub | undefined;
afterEach(async () => {
  await fake?.close();
  fake?.assertNoViolations();
  fake = undefined;
});

const setup = async (
  core = 5000,
  keptForMs = 0,
  opts: { retries?: number; now?: () => number; graphql?: number; fakeNow?: () => number } = {},
) => {
  const world = new World();
  const repo = world.addRepo('acme/app');
  world.grant(repo, world.botLogin, 'write');
  repo.files.set('.github/blitz.yml', 'maxSessions: 2\n');
  world.addMilestone(repo, 'M1');
  world.addIssue(repo, { number: 1, title: 'a', milestone: 'M1' });
  world.addIssue(repo, { number: 2, title: 'b', milestone: 'M1', blockedBy: [1] });
  fake = await startFakeGithub(world, {
    rateLimit: {
      core,
      ...(opts.graphql ? { graphql: opts.graphql } : {}),
      ...(opts.fakeNow ? { now: opts.fakeNow } : {}),
    },
  });
  const tracker = createBudgetTracker(opts.now ? { now: opts.now } : undefined);
  const metrics = createMetrics();
  metrics.setBudgetSource(() => tracker.all());
  const forge = createGithubForge({
    baseUrl: fake.apiUrl,
    auth: { token: 'test-token' },
    botLogin: world.botLogin,
    retry: { retries: opts.retries ?? 0, minDelayMs: 1, secondMs: 0 },
    // 0: every read reaches the client (the conditional layer under test); the kept layer has its own test.
    keptForMs,
    onRequest: (r) => tracker.observe(budgetKey('github', 7), r),
  });
  return { world, repo, forge, tracker, metrics, fake, at: { owner: 'acme', name: 'app' } };
};

const statuses = (f: FakeGithub, from = 0) => f.requests.slice(from).map((r) => `${r.method} ${r.status}`);

describe('GitHub request economy', () => {
  it('is refused past the primary limit as GitHub refuses: REST 403, GraphQL RATE_LIMITED; nothing is done until the reset', async () => {
    let clock = Date.now();
    const {
      world,
      repo,
      forge,
      tracker,
      fake: f,
      at,
    } = await setup(1, 0, { graphql: 1, fakeNow: () => clock });
    expect(await forge.getFile(at, '.github/blitz.yml')).toBe('maxSessions: 2\n');
    const err = await forge.createComment({ repo: at, number: 1 }, 'hello').catch((e: unknown) => e);
    expect(isAppError(err) && err.code).toBe('rate_limited');
    expect(world.commentsOn(repo, 1)).toEqual([]);
    expect(statuses(f)).toEqual(['GET 200', 'POST 403']);
    expect(tracker.snapshot('github:7')?.resources.core?.remaining).toBe(0);

    const gql = (query: string) =>
      fetch(`${f.url}/api/graphql`, {
        method: 'POST',
        headers: { authorization: 'token test-token', 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
    const query = 'query { repository(owner: "acme", name: "app") { id } }';
    expect((await gql(query)).status).toBe(200);
    const refused = await gql(query);
    expect(refused.status).toBe(200);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toEqual({
      errors: [{ type: 'RATE_LIMITED', message: expect.stringMatching(/^API rate limit exceeded for /) }],
    });

    // The window resets an hour after its first request: the same write goes through.
    clock += 3_601_000;
    await forge.createComment({ repo: at, number: 1 }, 'hello');
    expect(world.commentsOn(repo, 1).map((c) => c.body)).toEqual(['hello']);
    expect((await gql(query)).status).toBe(200);
  });

  it('answers a repeated read 304 from the kept answer, not counted against the rate limit; a change is read again', async () => {
    const { repo, forge, tracker, fake: f, at } = await setup();
    expect(await forge.getFile(at, '.github/blitz.yml')).toBe('maxSessions: 2\n');
    expect(await forge.getFile(at, '.github/blitz.yml')).toBe('maxSessions: 2\n');
    expect(statuses(f)).toEqual(['GET 200', 'GET 304']);
    expect(tracker.snapshot('github:7')?.resources.core?.remaining).toBe(4999);

    repo.files.set('.github/blitz.yml', 'maxSessions: 4\n');
    expect(await forge.getFile(at, '.github/blitz.yml')).toBe('maxSessions: 4\n');
    expect(statuses(f, 2)).toEqual(['GET 200']);
    expect(tracker.snapshot('github:7')?.resources.core?.remaining).toBe(4998);
  });

  it('counts a GraphQL mutation as a content-creating write, a GraphQL query not', async () => {
    const { world, repo, forge, tracker, at } = await setup();
    await forge.loadMilestone(at, 1);
    expect(tracker.snapshot('github:7')?.writesLastMinute).toBe(0);
    await forge.closeIssue({ repo: at, number: 1 }, { comment: 'Merged.' });
    expect(world.issue(repo, 1)?.state).toBe('closed');
    expect(tracker.snapshot('github:7')?.writesLastMinute).toBe(1);
  });

  it('the fake answers 304 only to the current ETag: a stale or made-up one gets the full answer', async () => {
    const { fake: f } = await setup();
    const url = `${f.apiUrl}/repos/acme/app/contents/.github%2Fblitz.yml`;
    const first = await fetch(url, { headers: { authorization: 'token test-token' } });
    const etag = first.headers.get('etag');
    expect(first.status).toBe(200);
    expect(etag).toMatch(/^W\/"[0-9a-f]{40}"$/);
    const made = await fetch(url, {
      headers: { authorization: 'token test-token', 'if-none-match': 'W/"0"' },
    });
    expect(made.status).toBe(200);
    const same = await fetch(url, { headers: { authorization: 'token test-token', 'if-none-match': etag! } });
    expect(same.status).toBe(304);
    expect(await same.text()).toBe('');
  });

  it('skips the GraphQL reload while the milestone is unchanged or only issues of it closed; reloads on any other change', async () => {
    const { world, repo, forge, fake: f, at } = await setup();
    const first = await forge.loadMilestone(at, 1);
    expect(first.issues.map((i) => i.ref.number)).toEqual([1, 2]);
    const before = f.requests.length;
    const again = await forge.loadMilestone(at, 1);
    expect(again).toEqual(first);
    expect(f.requests.slice(before).map((r) => `${r.operationId} ${r.status}`)).toEqual([
      'issues/list-for-repo 304',
    ]);

    // A close (here a person's) is all the list says: applied to the kept snapshot as a reload says it.
    world.setIssueState(repo, world.issue(repo, 1)!, 'closed', 'alice');
    const mark = f.requests.length;
    const after = await forge.loadMilestone(at, 1);
    expect(after.issues.map((i) => i.ref.number)).toEqual([2]);
    expect(after.externalBlockers).toEqual([expect.objectContaining({ state: 'closed' })]);
    expect(f.requests.slice(mark).map((r) => `${r.operationId} ${r.status}`)).toEqual([
      'issues/list-for-repo 200',
    ]);
    // What a forge that never kept anything reads now.
    const fresh = createGithubForge({
      baseUrl: f.apiUrl,
      auth: { token: 'test-token' },
      botLogin: world.botLogin,
      retry: { retries: 0, minDelayMs: 1, secondMs: 0 },
      keptForMs: 0,
    });
    expect(after).toEqual(await fresh.loadMilestone(at, 1));
    // Anything else in the list (a label; an issue added) is loaded again.
    world.issue(repo, 2)!.labels.push('bug');
    world.issue(repo, 2)!.updatedAt = world.now();
    const relabelled = f.requests.length;
    expect((await forge.loadMilestone(at, 1)).issues[0]?.labels.map((l) => l.name)).toEqual(['bug']);
    expect(f.requests.slice(relabelled).map((r) => r.operationId)).toEqual([
      'issues/list-for-repo',
      'graphql',
    ]);
    world.setIssueState(repo, world.issue(repo, 2)!, 'closed', 'alice');
    world.addIssue(repo, { number: 3, title: 'c', milestone: 'M1' });
    const added = f.requests.length;
    expect((await forge.loadMilestone(at, 1)).issues.map((i) => i.ref.number)).toEqual([3]);
    expect(f.requests.slice(added).map((r) => r.operationId)).toEqual(['issues/list-for-repo', 'graphql']);
  });

  it("keeps the milestone: a read again and the bot's own close cost no request, a webhook drops it", async () => {
    const { world, repo, forge, fake: f, at } = await setup(5000, 60_000);
    await forge.loadMilestone(at, 1);
    expect(f.requests.map((r) => r.operationId)).toEqual(['issues/list-for-repo', 'graphql']);
    await forge.closeIssue({ repo: at, number: 1 });
    const mark = f.requests.length;
    const after = await forge.loadMilestone(at, 1);
    expect(f.requests.length).toBe(mark);
    expect(after.issues.map((i) => i.ref.number)).toEqual([2]);
    expect(after.externalBlockers).toEqual([{ ref: { repo: at, number: 1 }, state: 'closed', title: 'a' }]);
    expect(await forge.getFile(at, '.github/blitz.yml')).toBe('maxSessions: 2\n');
    expect(await forge.getFile(at, '.github/blitz.yml')).toBe('maxSessions: 2\n');
    expect(f.requests.filter((r) => r.operationId === 'repos/get-content')).toHaveLength(1);
    world.issue(repo, 2)!.labels.push('bug');
    forge.observeEvent?.({ kind: 'label-added', repo: at, issueNumber: 2 });
    expect((await forge.loadMilestone(at, 1)).issues[0]?.labels.map((l) => l.name)).toEqual(['bug']);
    expect(f.requests.slice(mark).map((r) => `${r.operationId} ${r.status}`)).toEqual([
      'repos/get-content 200',
      'issues/list-for-repo 200',
      'graphql 200',
    ]);
  });

  it('reads the config once whether the default branch is named or not', async () => {
    const { forge, fake: f, at } = await setup(5000, 60_000);
    expect(await forge.getFile(at, '.github/blitz.yml')).toBe('maxSessions: 2\n');
    const main = await forge.getDefaultBranch(at);
    expect(await forge.getFile(at, '.github/blitz.yml', main)).toBe('maxSessions: 2\n');
    expect(await forge.getFile(at, '.github/blitz.yml')).toBe('maxSessions: 2\n');
    expect(f.requests.map((r) => r.operationId)).toEqual(['repos/get-content', 'repos/get']);
    // Another branch is another file.
    await forge.getFile(at, '.github/blitz.yml', 'other');
    expect(f.requests.map((r) => r.operationId)).toEqual([
      'repos/get-content',
      'repos/get',
      'repos/get-content',
    ]);
  });

  it('closes several issues, each with its comment, in one request; a refused close fails alone', async () => {
    const { world, repo, forge, fake: f, at } = await setup(5000, 60_000);
    world.addIssue(repo, { number: 3, title: 'c', milestone: 'M1' });
    // An issue of a repository the bot may only read: its close is refused, the others' are not.
    const other = world.addRepo('acme/other');
    world.grant(other, world.botLogin, 'read');
    world.addIssue(other, { number: 9, title: 'x' });
    const elsewhere = { owner: 'acme', name: 'other' };
    await forge.loadMilestone(at, 1);
    await forge.getIssue({ repo: elsewhere, number: 9 });
    const mark = f.requests.length;
    const answers = await forge.closeIssues!([
      { ref: { repo: at, number: 1 }, comment: 'one is done' },
      { ref: { repo: elsewhere, number: 9 }, comment: 'not mine' },
      { ref: { repo: at, number: 3 }, comment: 'three is done' },
    ]);
    expect(f.requests.slice(mark).map((r) => r.operationId)).toEqual(['graphql']);
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(isAppError((answers[1] as PromiseRejectedResult).reason)).toBe(true);
    expect([1, 3].map((n) => world.issue(repo, n)!.state)).toEqual(['closed', 'closed']);
    expect(world.issue(other, 9)!.state).toBe('open');
    expect([1, 3].map((n) => world.commentsOn(repo, n).map((c) => c.body))).toEqual([
      ['one is done'],
      ['three is done'],
    ]);
    // The kept milestone shows the bot's own closes without a reload.
    const after = mark + 1;
    expect((await forge.loadMilestone(at, 1)).issues.map((i) => i.ref.number)).toEqual([2]);
    expect(f.requests.length).toBe(after);
    // Closes of issues whose node ids it has not read go one by one, as closeIssue.
    world.addIssue(repo, { number: 4, title: 'd', milestone: 'M1' });
    world.addIssue(repo, { number: 5, title: 'e', milestone: 'M1' });
    const single = await forge.closeIssues!([
      { ref: { repo: at, number: 4 }, comment: 'four' },
      { ref: { repo: at, number: 5 }, comment: 'five' },
    ]);
    expect(single.map((a) => a.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(f.requests.slice(after).map((r) => r.operationId)).toEqual([
      'issues/create-comment',
      'issues/update',
      'issues/create-comment',
      'issues/update',
    ]);
  });

  it('exports the budget per installation and resource on /metrics and slows down before the limit', async () => {
    const { forge, tracker, metrics, at } = await setup(20);
    await forge.loadMilestone(at, 1);
    // 1 core read (the conditional list) and 1 GraphQL query (the milestone with its issues), then 18 more core reads.
    for (let i = 0; i < 18; i++) await forge.getPermission(at, `user${i}`);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/blitz_forge_rate_limit_budget_remaining\{key="github:7",resource="core"\} 1\n/);
    expect(text).toMatch(
      /blitz_forge_rate_limit_budget_remaining\{key="github:7",resource="graphql"\} 4999\n/,
    );
    expect(text).toMatch(/blitz_forge_rate_limit_budget_limit\{key="github:7",resource="core"\} 20\n/);
    expect(text).toMatch(/blitz_forge_rate_limit_reset_seconds\{key="github:7",resource="core"\} \d{10}\n/);
    const p = tracker.paceOf('github:7');
    expect(p.sessionFactor).toBe(0);
    expect(p.reason).toMatch(
      /^core rate limit nearly spent \(1\/20\): no new sessions until it resets in \d+ min$/,
    );
  });

  it('a secondary limit the client waits out still holds new sessions until its Retry-After', async () => {
    let t = Date.now();
    const { forge, tracker, fake: f, at } = await setup(5000, 0, { retries: 1, now: () => t });
    f.failNext(1, {
      status: 403,
      headers: { 'retry-after': '90' },
      message: 'You have exceeded a secondary rate limit',
    });
    expect(await forge.getFile(at, '.github/blitz.yml')).toBe('maxSessions: 2\n');
    expect(statuses(f)).toEqual(['GET 403', 'GET 200']);
    expect(tracker.paceOf('github:7')).toMatchObject({ sessionFactor: 0, until: t + 90_000 });
    expect(tracker.paceOf('github:7').reason).toBe(
      'the forge refused a request at its secondary rate limit (retry after 90 s): no new sessions until it lifts in 2 min',
    );
    t += 90_000;
    expect(tracker.paceOf('github:7').sessionFactor).toBe(1);
  });

  it('a refusal past the wait cap fails the call rate_limited and holds new sessions until its Retry-After', async () => {
    let t = Date.now();
    const { forge, tracker, fake: f, at } = await setup(5000, 0, { retries: 2, now: () => t });
    f.failNext(1, { status: 429, headers: { 'retry-after': '3600' }, message: 'Too many requests' });
    const err = await forge.getFile(at, '.github/blitz.yml').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAppError(err, 'rate_limited')).toBe(true);
    expect(statuses(f)).toEqual(['GET 429']);
    expect(tracker.paceOf('github:7')).toMatchObject({ sessionFactor: 0, until: t + 3_600_000 });
    expect(tracker.paceOf('github:7').reason).toMatch(
      /retry after 3600 s\): no new sessions until it lifts in 60 min$/,
    );
    t += 3_600_000;
    expect(tracker.paceOf('github:7').sessionFactor).toBe(1);
  });
});
