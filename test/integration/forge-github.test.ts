// The GitHub forge against the contract-checked fake GitHub: every operation, with the World as the
// witness of what changed. Any request the real API would refuse fails the test in afterEach.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { HIDDEN_REPO } from '../../src/forges/github/mappers.ts';
import type { RepoRef } from '../../src/forges/types.ts';
import { type GithubHarness, githubHarness } from '../support/fake-github/harness.ts';

const app: RepoRef = { owner: 'acme', name: 'app' };
const ref = (number: number, repo: RepoRef = app) => ({ repo, number });

let h: GithubHarness;
beforeEach(async () => {
  h = await githubHarness();
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

describe('milestones', () => {
  beforeEach(() => {
    const { world, repo } = h;
    world.addMilestone(repo, 'M0 empty');
    world.addMilestone(repo, 'M1 Launch', { description: '[blitz]' });
    world.addMilestone(repo, 'M10 Later');
    world.addMilestone(repo, 'Old', { state: 'closed' });
    world.addIssue(repo, { title: 'a', milestone: 'M1 Launch' });
    world.addIssue(repo, { title: 'b', milestone: 'M10 Later' });
  });

  it('picks the lowest-numbered open milestone that has open issues when no query is given', async () => {
    const m = await h.forge.resolveMilestone(app);
    expect(m).toMatchObject({ number: 2, title: 'M1 Launch', description: '[blitz]', openIssues: 1 });
  });

  it('resolves by number, #number and case-insensitive title substring, preferring an exact title', async () => {
    expect((await h.forge.resolveMilestone(app, '3')).title).toBe('M10 Later');
    expect((await h.forge.resolveMilestone(app, '#2')).title).toBe('M1 Launch');
    expect((await h.forge.resolveMilestone(app, 'launch')).number).toBe(2);
    expect((await h.forge.resolveMilestone(app, 'm10 later')).number).toBe(3);
  });

  it('names the matches of an ambiguous substring', async () => {
    const err = await rejection(h.forge.resolveMilestone(app, 'm1'));
    expect(isAppError(err, 'bad_request')).toBe(true);
    expect((err as Error).message).toContain('#2 M1 Launch, #3 M10 Later');
  });

  it('says which milestones are open when the one asked for does not exist', async () => {
    const err = await rejection(h.forge.resolveMilestone(app, '9'));
    expect(isAppError(err, 'not_found')).toBe(true);
    expect((err as Error).message).toBe(
      'milestone 9 not found on acme/app; open milestones: #1 M0 empty, #2 M1 Launch, #3 M10 Later',
    );
    const byTitle = await rejection(h.forge.resolveMilestone(app, 'M9'));
    expect((byTitle as Error).message).toContain('milestone "M9" not found on acme/app; open milestones:');
  });

  it('lists open milestones only, in number order', async () => {
    expect((await h.forge.listOpenMilestones(app)).map((m) => m.number)).toEqual([1, 2, 3]);
  });
});

describe('loadMilestone', () => {
  it('loads open issues with labels, assignees, edges and the state of every outside blocker', async () => {
    const { world, repo } = h;
    const lib = world.addRepo('acme/lib');
    world.addIssue(lib, { number: 7, title: 'lib fix', state: 'closed' });
    world.addIssue(lib, { number: 8, title: 'lib open' });
    world.addMilestone(repo, 'M1');
    world.addMilestone(repo, 'M2');
    world.addLabel(repo, 'design', 'needs a designer');
    world.addIssue(repo, { number: 1, title: 'epic', milestone: 'M1', labels: ['epic'] });
    world.addIssue(repo, { number: 2, title: 'done', milestone: 'M1', state: 'closed' });
    world.addIssue(repo, { number: 3, title: 'other milestone', milestone: 'M2' });
    world.addIssue(repo, {
      number: 4,
      title: 'child',
      milestone: 'M1',
      labels: ['design'],
      parent: 1,
      blockedBy: [2, 3, 'acme/lib#7', 'acme/lib#8', 'ghost/gone#5', 5],
    });
    world.addIssue(repo, { number: 5, title: 'sibling', milestone: 'M1' });
    world.issue(repo, 4)!.assignees.push('alice');
    await world.openPull(repo, { head: 'main', base: 'main', title: 'a PR', body: '', author: 'acme' });

    const snap = await h.forge.loadMilestone(app, 1);
    expect(snap.milestone.title).toBe('M1');
    expect(snap.issues.map((i) => i.ref.number)).toEqual([1, 4, 5]);
    const child = snap.issues.find((i) => i.ref.number === 4)!;
    expect(child.labels).toEqual([{ name: 'design', description: 'needs a designer' }]);
    expect(child.assignees).toEqual(['alice']);
    expect(child.parent).toEqual(ref(1));
    expect(snap.issues[0]!.children).toEqual([ref(4)]);
    // ghost/gone#5 is not readable: kept as a placeholder ref, never dropped.
    expect(child.blockedBy).toEqual([
      ref(2),
      ref(3),
      ref(7, { owner: 'acme', name: 'lib' }),
      ref(8, { owner: 'acme', name: 'lib' }),
      { repo: HIDDEN_REPO, number: expect.any(Number) },
      ref(5),
    ]);
    const states = Object.fromEntries(
      snap.externalBlockers.map((b) => [`${b.ref.repo.owner}/${b.ref.repo.name}#${b.ref.number}`, b.state]),
    );
    // #5 is an open issue of the milestone: not external. The unreadable ghost/gone#5 stays, as unknown.
    expect(states).toMatchObject({
      'acme/app#2': 'closed',
      'acme/app#3': 'open',
      'acme/lib#7': 'closed',
      'acme/lib#8': 'open',
    });
    expect(states['acme/app#5']).toBeUndefined();
    expect(snap.externalBlockers.filter((b) => b.state === 'unknown')).toEqual([
      { ref: child.blockedBy[4], state: 'unknown', title: 'a blocker of #4 the app cannot read' },
    ]);
  });

  it('pages 100 issues per query and follows a blocked-by list longer than 100', async () => {
    const { world, repo } = h;
    world.addMilestone(repo, 'Big');
    for (let n = 1; n <= 250; n += 1) world.addIssue(repo, { number: n, title: `i${n}`, milestone: 'Big' });
    world.issue(repo, 250)!.blockedBy = Array.from({ length: 150 }, (_, i) => ({
      owner: 'acme',
      repo: 'app',
      number: i + 1,
    }));
    const snap = await h.forge.loadMilestone(app, 1);
    expect(snap.issues).toHaveLength(250);
    expect(snap.issues.at(-1)!.blockedBy).toHaveLength(150);
    const graphql = h.fake.requests.filter((r) => r.operationId === 'graphql');
    expect(graphql).toHaveLength(4); // 3 pages of issues + 1 follow-up page of blockers
  });

  it('fails with not_found for a milestone that does not exist', async () => {
    const err = await rejection(h.forge.loadMilestone(app, 42));
    expect(isAppError(err, 'not_found')).toBe(true);
  });
});

describe('issues', () => {
  it('reads, closes and reopens an issue in the World', async () => {
    const issue = h.world.addIssue(h.repo, { title: 'x', body: 'why', labels: ['bug'] });
    const read = await h.forge.getIssue(ref(issue.number));
    expect(read).toMatchObject({
      title: 'x',
      body: 'why',
      state: 'open',
      labels: [{ name: 'bug' }],
      isPullRequest: false,
    });
    await h.forge.closeIssue(ref(issue.number));
    expect(issue.state).toBe('closed');
    await h.forge.reopenIssue(ref(issue.number));
    expect(issue.state).toBe('open');
  });

  it('comments on and closes an issue of a loaded milestone in one GraphQL request, others through REST', async () => {
    h.world.addMilestone(h.repo, 'M1');
    const loaded = h.world.addIssue(h.repo, { title: 'in the milestone', milestone: 'M1' });
    const other = h.world.addIssue(h.repo, { title: 'never read' });
    await h.forge.loadMilestone(app, 1);
    const before = h.fake.requests.length;
    await h.forge.closeIssue(ref(loaded.number), { comment: 'Merged in #9.' });
    const sent = h.fake.requests.slice(before);
    expect(sent.map((r) => r.operationId)).toEqual(['graphql']);
    expect(loaded.state).toBe('closed');
    expect(h.world.commentsOn(h.repo, loaded.number).map((c) => [c.body, c.author])).toEqual([
      ['Merged in #9.', 'blitz-bot[bot]'],
    ]);
    // No node id known: the comment, then the close, through REST.
    const restBefore = h.fake.requests.length;
    await h.forge.closeIssue(ref(other.number), { comment: 'Done.' });
    expect(h.fake.requests.slice(restBefore).map((r) => r.operationId)).toEqual([
      'issues/create-comment',
      'issues/update',
    ]);
    expect(other.state).toBe('closed');
    expect(h.world.commentsOn(h.repo, other.number).map((c) => c.body)).toEqual(['Done.']);
  });

  it('refuses a comment-and-close the app may not write, and changes nothing', async () => {
    h.world.addMilestone(h.repo, 'M1');
    const issue = h.world.addIssue(h.repo, { title: 'x', milestone: 'M1' });
    await h.forge.loadMilestone(app, 1);
    h.world.grant(h.repo, h.world.botLogin, 'read');
    const err = await rejection(h.forge.closeIssue(ref(issue.number), { comment: 'no' }));
    expect(isAppError(err, 'forbidden'), String(err)).toBe(true);
    expect(issue.state).toBe('open');
    expect(h.world.commentsOn(h.repo, issue.number)).toEqual([]);
  });

  it('creates an issue with a milestone and labels', async () => {
    h.world.addMilestone(h.repo, 'M1');
    const created = await h.forge.createIssue(app, {
      title: 'found bug',
      body: 'b',
      labels: ['bug'],
      milestone: 1,
    });
    const stored = h.world.issue(h.repo, created.ref.number)!;
    expect(stored).toMatchObject({ title: 'found bug', labels: ['bug'], author: 'blitz-bot[bot]' });
    expect(created.milestone).toEqual({ number: 1, title: 'M1' });
    // An issue the bot made is closed with its comment in one request, as one it loaded.
    const before = h.fake.requests.length;
    await h.forge.closeIssue(created.ref, { comment: 'fixed' });
    expect(h.fake.requests.slice(before).map((r) => r.operationId)).toEqual(['graphql']);
    expect(stored.state).toBe('closed');
  });

  it('adds a blocked-by edge once, also when asked twice, across repositories', async () => {
    const lib = h.world.addRepo('acme/lib');
    h.world.addIssue(lib, { number: 3, title: 'lib' });
    const issue = h.world.addIssue(h.repo, { title: 'x' });
    await h.forge.addBlockedBy(ref(issue.number), ref(3, { owner: 'acme', name: 'lib' }));
    await h.forge.addBlockedBy(ref(issue.number), ref(3, { owner: 'acme', name: 'lib' }));
    expect(issue.blockedBy).toEqual([{ owner: 'acme', repo: 'lib', number: 3 }]);
  });

  it('adds labels, removes one, and treats removing an absent label as done', async () => {
    const issue = h.world.addIssue(h.repo, { title: 'x', labels: ['a'] });
    await h.forge.addLabels(ref(issue.number), ['b', 'c']);
    expect(issue.labels).toEqual(['a', 'b', 'c']);
    await h.forge.removeLabel(ref(issue.number), 'a');
    await h.forge.removeLabel(ref(issue.number), 'never-there');
    expect(issue.labels).toEqual(['b', 'c']);
    const err = await rejection(h.forge.removeLabel(ref(99), 'a'));
    expect(isAppError(err, 'not_found')).toBe(true);
  });

  it('lists open issues with a label, without pull requests', async () => {
    h.world.addIssue(h.repo, { number: 1, title: 'x', labels: ['fleet'] });
    h.world.addIssue(h.repo, { number: 2, title: 'y', labels: ['fleet'], state: 'closed' });
    h.world.addIssue(h.repo, { number: 3, title: 'z' });
    expect((await h.forge.listIssuesWithLabel(app, 'fleet')).map((i) => i.ref.number)).toEqual([1]);
  });
});

describe('comments', () => {
  it('creates and lists comments across pages', async () => {
    const issue = h.world.addIssue(h.repo, { title: 'x' });
    for (let i = 0; i < 130; i += 1) h.world.addComment(h.repo, issue.number, `c${i}`, 'alice');
    const c = await h.forge.createComment(ref(issue.number), 'hello');
    expect(c).toMatchObject({ body: 'hello', author: 'blitz-bot[bot]' });
    const all = await h.forge.listComments(ref(issue.number));
    expect(all).toHaveLength(131);
    expect(all.at(-1)!.id).toBe(c.id);
  });

  it('edits the sticky comment instead of duplicating it, also behind a paged comment list', async () => {
    const issue = h.world.addIssue(h.repo, { title: 'x' });
    h.world.addComment(h.repo, issue.number, '<!-- dashboard --> forged by a person', 'mallory');
    const first = await h.forge.upsertStickyComment(ref(issue.number), 'dashboard', 'v1');
    for (let i = 0; i < 120; i += 1) h.world.addComment(h.repo, issue.number, `noise ${i}`, 'alice');
    const second = await h.forge.upsertStickyComment(ref(issue.number), 'dashboard', 'v2');
    expect(second.id).toBe(first.id);
    const bots = h.world.commentsOn(h.repo, issue.number).filter((c) => c.author === 'blitz-bot[bot]');
    expect(bots).toHaveLength(1);
    expect(bots[0]!.body).toBe('<!-- dashboard -->\nv2');
    expect(h.world.count('comment', 'acme/app', issue.number)).toBe(122);
    expect(h.world.count('edit_comment', 'acme/app', issue.number)).toBe(1);
  });

  it('posts the sticky comment of a fresh marker without listing the comments first', async () => {
    const issue = h.world.addIssue(h.repo, { title: 'x' });
    const before = h.fake.requests.length;
    const c = await h.forge.upsertStickyComment(ref(issue.number), 'run-1', 'v1', { fresh: true });
    expect(h.fake.requests.slice(before).map((r) => r.operationId)).toEqual(['issues/create-comment']);
    await h.forge.upsertStickyComment(ref(issue.number), 'run-1', 'v2');
    expect(h.world.commentsOn(h.repo, issue.number).map((x) => [x.id, x.body])).toEqual([
      [c.id, '<!-- run-1 -->\nv2'],
    ]);
  });

  it('reacts to a comment', async () => {
    const issue = h.world.addIssue(h.repo, { title: 'x' });
    const c = h.world.addComment(h.repo, issue.number, '/blitz', 'alice');
    await h.forge.reactToComment(app, c.id, 'eyes');
    expect(c.reactions).toEqual([{ content: 'eyes', user: 'blitz-bot[bot]' }]);
  });
});

describe('repository', () => {
  it('normalises permissions: maintain counts as write, triage as read, strangers have none', async () => {
    h.world.grant(h.repo, 'mia', 'maintain');
    h.world.grant(h.repo, 'tom', 'triage');
    h.world.addUser('stranger');
    // The permission API decides for the account the repository lives under too: a run that kept
    // the path of a renamed owner (the forge redirects it) would otherwise trust whoever took the
    // old login.
    const before = h.fake.requests.length;
    expect(await h.forge.getPermission(app, 'acme')).toBe('admin');
    expect(h.fake.requests.length).toBe(before + 1);
    expect(await h.forge.getPermission(app, 'mia')).toBe('write');
    expect(await h.forge.getPermission(app, 'tom')).toBe('read');
    expect(await h.forge.getPermission(app, 'stranger')).toBe('none');
    expect(await h.forge.getPermission(app, 'no-such-user')).toBe('none');
  });

  it('reads the default branch and files, undefined for a missing file', async () => {
    h.repo.files.set('.github/blitz.yml', 'build: npm test\n');
    expect(await h.forge.getDefaultBranch(app)).toBe('main');
    expect(await h.forge.getFile(app, '.github/blitz.yml')).toBe('build: npm test\n');
    expect(await h.forge.getFile(app, '.github/blitz.yml', 'main')).toBe('build: npm test\n');
    expect(await h.forge.getFile(app, 'nope.txt')).toBeUndefined();
  });

  it('creates a branch from a branch or a sha, idempotently, refuses one that points elsewhere, deletes it', async () => {
    const mainSha = (await h.git.resolve('main'))!;
    await h.forge.createBranch(app, 'blitz/m1', 'main');
    await h.forge.createBranch(app, 'blitz/m1', mainSha);
    expect(await h.git.resolve('blitz/m1')).toBe(mainSha);
    h.git.commit('other', 'main');
    const err = await rejection(h.forge.createBranch(app, 'blitz/m1', 'other'));
    expect(isAppError(err, 'conflict')).toBe(true);
    await h.forge.deleteBranch(app, 'blitz/m1');
    await h.forge.deleteBranch(app, 'blitz/m1');
    expect(await h.git.resolve('blitz/m1')).toBeUndefined();
  });

  it('counts the commits a branch holds that the base has not, and resets a branch to the base', async () => {
    expect(await h.forge.commitsAhead(app, 'main', 'blitz/m1')).toBeUndefined();
    await h.forge.createBranch(app, 'blitz/m1', 'main');
    expect(await h.forge.commitsAhead(app, 'main', 'blitz/m1')).toBe(0);
    h.git.commit('blitz/m1');
    h.git.commit('blitz/m1');
    expect(await h.forge.commitsAhead(app, 'main', 'blitz/m1')).toBe(2);
    await h.forge.resetBranch(app, 'blitz/m1', 'main');
    expect(await h.git.resolve('blitz/m1')).toBe(await h.git.resolve('main'));
    expect(await h.forge.commitsAhead(app, 'main', 'blitz/m1')).toBe(0);
  });

  it('hands out clone credentials without putting the token in the URL or the logs', async () => {
    const creds = await h.forge.cloneCredentials(app);
    expect(creds).toEqual({
      url: `${h.fake.url}/acme/app.git`,
      username: 'x-access-token',
      password: 'test-token',
    });
    expect(h.logs()).not.toContain('test-token');
  });
});
