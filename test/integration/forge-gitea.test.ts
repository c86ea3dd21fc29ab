// The Gitea adapter against the contract-checked fake Gitea: every Forge operation, its effect on
// the World, and the answers mapped into domain types. Error paths live in forge-gitea-errors.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.ts';
import { createGiteaForge } from '../../src/forges/gitea/index.ts';
import { type GiteaHarness, startGiteaHarness } from '../support/fake-gitea/setup.ts';
import type { MemoryGit } from '../support/world.ts';

let h: GiteaHarness;
const app = { owner: 'acme', name: 'app' };
const ref = (number: number, repo = app) => ({ repo, number });

beforeEach(async () => {
  h = await startGiteaHarness();
});
afterEach(async () => {
  await h.fake.close();
  h.fake.assertNoViolations();
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
    world.addMilestone(repo, 'M0 old', { state: 'closed' });
    world.addMilestone(repo, 'M1 Foundations');
    world.addMilestone(repo, 'M2 Features');
    world.addMilestone(repo, 'M3 Polish');
    world.addIssue(repo, { title: 'done', milestone: 'M1 Foundations', state: 'closed' });
    world.addIssue(repo, { title: 'todo', milestone: 'M2 Features' });
    world.addIssue(repo, { title: 'later', milestone: 'M3 Polish' });
  });
  const idOf = (title: string) => h.world.milestoneByTitle(h.repo, title)!.id;

  it('picks the lowest-numbered open milestone that still has open issues when no query is given', async () => {
    const m = await h.forge.resolveMilestone(app);
    expect(m).toMatchObject({
      title: 'M2 Features',
      number: idOf('M2 Features'),
      state: 'open',
      openIssues: 1,
    });
  });

  it('resolves a milestone by its id, with or without #, and by a case-insensitive title substring', async () => {
    expect((await h.forge.resolveMilestone(app, String(idOf('M3 Polish')))).title).toBe('M3 Polish');
    expect((await h.forge.resolveMilestone(app, `#${idOf('M1 Foundations')}`)).title).toBe('M1 Foundations');
    expect((await h.forge.resolveMilestone(app, 'polish')).title).toBe('M3 Polish');
  });

  it('refuses an ambiguous title substring and names the milestones it matched', async () => {
    const err = await rejection(h.forge.resolveMilestone(app, 'm'));
    expect(isAppError(err, 'bad_request')).toBe(true);
    expect((err as Error).message).toContain('M1 Foundations, M2 Features, M3 Polish');
  });

  it('says which milestones are open when the asked one does not exist', async () => {
    const err = await rejection(h.forge.resolveMilestone(app, 'M9'));
    expect(isAppError(err, 'not_found')).toBe(true);
    expect((err as Error).message).toBe(
      'milestone M9 not found in acme/app; open milestones: M1 Foundations, M2 Features, M3 Polish',
    );
  });

  it('lists only open milestones', async () => {
    const titles = (await h.forge.listOpenMilestones(app)).map((m) => m.title);
    expect(titles).toEqual(['M1 Foundations', 'M2 Features', 'M3 Polish']);
  });
});

describe('loadMilestone', () => {
  it('loads open issues (no PRs) with labels, body, assignees, blocked-by edges and external blocker states', async () => {
    const { world, repo } = h;
    const lib = world.addRepo('acme/lib');
    world.addIssue(lib, { number: 7, title: 'lib fix', state: 'closed' });
    world.addMilestone(repo, 'M1');
    world.addMilestone(repo, 'M2');
    world.addIssue(repo, { number: 1, title: 'closed in M1', milestone: 'M1', state: 'closed' });
    world.addIssue(repo, { number: 2, title: 'open in M2', milestone: 'M2' });
    world.addIssue(repo, { number: 3, title: 'base', milestone: 'M1', labels: ['backend'], body: 'do it' });
    world.addIssue(repo, {
      number: 4,
      title: 'top',
      milestone: 'M1',
      blockedBy: [3, 1, 2, 'acme/lib#7'],
    });
    repo.issues.get(3)!.assignees.push('alice');
    (repo.git as MemoryGit).commit('feature', 'main');
    const pr = await world.openPull(repo, {
      head: 'feature',
      base: 'main',
      title: 'pr',
      body: '',
      author: 'alice',
    });
    pr.milestoneId = world.milestoneByTitle(repo, 'M1')!.id;

    const snap = await h.forge.loadMilestone(app, world.milestoneByTitle(repo, 'M1')!.id);

    expect(snap.milestone.title).toBe('M1');
    expect(snap.issues.map((i) => i.ref.number)).toEqual([3, 4]);
    const [base, top] = snap.issues;
    expect(base).toMatchObject({
      title: 'base',
      body: 'do it',
      labels: [{ name: 'backend' }],
      assignees: ['alice'],
      blockedBy: [],
      children: [],
      isPullRequest: false,
    });
    expect(top!.blockedBy).toEqual([ref(3), ref(1), ref(2), ref(7, { owner: 'acme', name: 'lib' })]);
    expect(snap.externalBlockers).toEqual([
      { ref: ref(1), state: 'closed', title: 'closed in M1' },
      { ref: ref(2), state: 'open', title: 'open in M2' },
      { ref: ref(7, { owner: 'acme', name: 'lib' }), state: 'closed', title: 'lib fix' },
    ]);
  });

  it('reads every page of a milestone larger than one page, and one dependency list per issue', async () => {
    const { world, repo } = h;
    const m = world.addMilestone(repo, 'Big');
    for (let n = 1; n <= 120; n += 1) {
      world.addIssue(repo, {
        number: n,
        title: `issue ${n}`,
        milestone: 'Big',
        blockedBy: n > 1 ? [n - 1] : [],
      });
    }
    const snap = await h.forge.loadMilestone(app, m.id);
    expect(snap.issues).toHaveLength(120);
    expect(snap.issues[119]!.blockedBy).toEqual([ref(119)]);
    expect(snap.externalBlockers).toEqual([]);
    expect(h.fake.count('issueListIssues')).toBe(3);
    expect(h.fake.count('issueListIssueDependencies')).toBe(120);
  });

  it('reloads a milestone asking again only for the blocker lists that may have changed', async () => {
    const { world, repo } = h;
    const lib = world.addRepo('acme/lib');
    world.addIssue(lib, { number: 7, title: 'lib fix' });
    const m = world.addMilestone(repo, 'M1');
    world.addIssue(repo, { number: 1, title: 'one', milestone: 'M1' });
    world.addIssue(repo, { number: 2, title: 'two', milestone: 'M1', blockedBy: [1] });
    world.addIssue(repo, { number: 3, title: 'three', milestone: 'M1', blockedBy: ['acme/lib#7'] });
    world.addIssue(repo, { number: 4, title: 'four', milestone: 'M1' });
    // Kept milestone snapshots off: every load goes to Gitea, and only the dependency lists are kept.
    const forge = createGiteaForge({
      url: h.fake.url,
      token: h.fake.token,
      botLogin: world.botLogin,
      keptForMs: 0,
    });
    const asked = () =>
      h.fake.requests
        .filter((r) => r.operationId === 'issueListIssueDependencies')
        .map((r) => r.path.split('/').at(-2));
    const load = async () => {
      const before = asked().length;
      const snap = await forge.loadMilestone(app, m.id);
      return { snap, asked: asked().slice(before).sort() };
    };

    expect((await load()).asked).toEqual(['1', '2', '3', '4']);
    // Nothing changed: only the issue whose blocker lies outside the milestone, still open, is asked.
    expect((await load()).asked).toEqual(['3']);

    // #1 closes: #2's blocker left the open set, so #2 is asked again and reads it closed.
    world.setIssueState(repo, world.issue(repo, 1)!, 'closed', 'alice');
    const afterClose = await load();
    expect(afterClose.asked).toEqual(['2', '3']);
    expect(afterClose.snap.externalBlockers).toContainEqual({ ref: ref(1), state: 'closed', title: 'one' });
    expect((await load()).asked).toEqual(['3']);

    // A person makes #4 wait on #2: Gitea comments on both, their updated_at moves, both are asked.
    // (through another client: this forge's own writes forget the list anyway)
    const person = createGiteaForge({
      url: h.fake.url,
      token: h.fake.token,
      botLogin: world.botLogin,
      requestCache: false,
    });
    await person.addBlockedBy(ref(4), ref(2));
    const afterEdge = await load();
    expect(afterEdge.asked).toEqual(['2', '3', '4']);
    expect(afterEdge.snap.issues.find((i) => i.ref.number === 4)!.blockedBy).toEqual([ref(2)]);

    // The bot closes #2 itself: #4's kept list reads it closed without asking again, as a read says.
    await forge.closeIssue(ref(2), { comment: 'Merged.' });
    const afterOwnClose = await load();
    expect(afterOwnClose.asked).toEqual(['3']);
    expect(afterOwnClose.snap.externalBlockers).toContainEqual({
      ref: ref(2),
      state: 'closed',
      title: 'two',
    });
    expect(afterOwnClose.snap).toEqual(await person.loadMilestone(app, m.id));
    // Reopened by the bot and moved out of the milestone by a person: #4 asks again and reads it open.
    await forge.reopenIssue(ref(2));
    world.issue(repo, 2)!.milestoneId = undefined;
    const afterReopen = await load();
    expect(afterReopen.asked).toEqual(['3', '4']);
    expect(afterReopen.snap.externalBlockers).toContainEqual({ ref: ref(2), state: 'open', title: 'two' });
    // A person closes it and the webhook says so: read closed without asking again.
    world.setIssueState(repo, world.issue(repo, 2)!, 'closed', 'alice');
    forge.observeEvent?.({ kind: 'issue-closed', repo: app, issueNumber: 2 });
    const afterWebhook = await load();
    expect(afterWebhook.asked).toEqual(['3']);
    expect(afterWebhook.snap.externalBlockers).toContainEqual({ ref: ref(2), state: 'closed', title: 'two' });
  });

  it('pages on its own URL when Gitea builds Link headers from a different ROOT_URL', async () => {
    await h.fake.close();
    h = await startGiteaHarness({ fake: { rootUrl: 'https://git.example.invalid' }, world: h.world });
    const m = h.world.addMilestone(h.repo, 'Big');
    for (let n = 1; n <= 60; n += 1)
      h.world.addIssue(h.repo, { number: n, title: `i${n}`, milestone: 'Big' });
    expect((await h.forge.loadMilestone(app, m.id)).issues).toHaveLength(60);
    expect(h.fake.count('issueListIssues')).toBe(2);
  });

  describe('right after a list of milestones', () => {
    let clock = 0;
    let forge: ReturnType<typeof createGiteaForge>;
    beforeEach(() => {
      clock = 1_000_000;
      forge = createGiteaForge({
        url: h.fake.url,
        token: h.fake.token,
        botLogin: h.world.botLogin,
        keptForMs: 0,
        now: () => clock,
      });
      h.world.addMilestone(h.repo, 'M1');
      h.world.addIssue(h.repo, { number: 1, title: 'one', milestone: 'M1' });
    });
    const reads = () => h.fake.count('issueGetMilestone');

    it('a load takes its milestone from the list it just read, once', async () => {
      const m = await forge.resolveMilestone(app, 'M1');
      clock += 9_000;
      const snap = await forge.loadMilestone(app, m.number);
      expect(reads()).toBe(0);
      expect(snap.milestone).toEqual(m);
      expect(snap.issues.map((i) => i.ref.number)).toEqual([1]);
      // The next load reads the milestone itself.
      await forge.loadMilestone(app, m.number);
      expect(reads()).toBe(1);
    });

    it('a load later than moments after the list reads the milestone', async () => {
      const m = await forge.resolveMilestone(app, 'M1');
      clock += 11_000;
      await forge.loadMilestone(app, m.number);
      expect(reads()).toBe(1);
    });

    it('a milestone renamed since the list is read again and its issues found', async () => {
      const m = await forge.resolveMilestone(app, 'M1');
      h.world.milestoneByTitle(h.repo, 'M1')!.title = 'M1 renamed';
      const snap = await forge.loadMilestone(app, m.number);
      expect(reads()).toBe(1);
      expect(snap.milestone.title).toBe('M1 renamed');
      expect(snap.issues.map((i) => i.ref.number)).toEqual([1]);
    });
  });

  it('names the open milestones when the milestone id does not exist', async () => {
    h.world.addMilestone(h.repo, 'M1');
    const err = await rejection(h.forge.loadMilestone(app, 99999));
    expect(isAppError(err, 'not_found')).toBe(true);
    expect((err as Error).message).toMatch(
      /^milestone 99999 not found in acme\/app; open milestones: M1 \(\d+\)$/,
    );
  });
});

describe('issues', () => {
  it('reads an issue and tells a pull request apart', async () => {
    const { world, repo } = h;
    world.addMilestone(repo, 'M1');
    world.addIssue(repo, {
      number: 1,
      title: 'one',
      body: 'b',
      labels: ['bug'],
      milestone: 'M1',
      author: 'alice',
    });
    (repo.git as MemoryGit).commit('feature', 'main');
    await world.openPull(repo, { head: 'feature', base: 'main', title: 'pr', body: '', author: 'alice' });
    const issue = await h.forge.getIssue(ref(1));
    expect(issue).toMatchObject({
      ref: ref(1),
      title: 'one',
      body: 'b',
      state: 'open',
      labels: [{ name: 'bug' }],
      author: 'alice',
      milestone: { title: 'M1' },
      isPullRequest: false,
    });
    expect((await h.forge.getIssue(ref(2))).isPullRequest).toBe(true);
  });

  it('closes and reopens an issue in the tracker', async () => {
    const issue = h.world.addIssue(h.repo, { title: 'x' });
    await h.forge.closeIssue(ref(issue.number));
    expect(issue.state).toBe('closed');
    await h.forge.reopenIssue(ref(issue.number));
    expect(issue.state).toBe('open');
    expect(h.world.count('close', 'acme/app', issue.number)).toBe(1);
  });

  it('creates an issue with labels and a milestone', async () => {
    h.world.addLabel(h.repo, 'bug');
    const m = h.world.addMilestone(h.repo, 'M1');
    const created = await h.forge.createIssue(app, {
      title: 'new',
      body: 'text',
      labels: ['Bug'],
      milestone: m.id,
    });
    expect(created).toMatchObject({ title: 'new', labels: [{ name: 'bug' }], milestone: { number: m.id } });
    expect(h.repo.issues.get(created.ref.number)?.milestoneId).toBe(m.id);
  });

  it('creates a label the repository lacks before the issue that names it, as GitHub does (tried: labels ["hold"])', async () => {
    const created = await h.forge.createIssue(app, { title: 'new', body: '', labels: ['hold'] });
    expect(created).toMatchObject({ labels: [{ name: 'hold' }] });
    expect(h.repo.labels.has('hold')).toBe(true);
    expect(h.repo.issues.size).toBe(1);
  });

  it('adds a blocked-by edge once, also across repositories', async () => {
    const lib = h.world.addRepo('acme/lib');
    h.world.addIssue(lib, { number: 5, title: 'lib' });
    const a = h.world.addIssue(h.repo, { number: 1, title: 'a' });
    h.world.addIssue(h.repo, { number: 2, title: 'b' });
    await h.forge.addBlockedBy(ref(1), ref(2));
    await h.forge.addBlockedBy(ref(1), ref(2));
    await h.forge.addBlockedBy(ref(1), ref(5, { owner: 'acme', name: 'lib' }));
    expect(a.blockedBy).toEqual([
      { owner: 'acme', repo: 'app', number: 2 },
      { owner: 'acme', repo: 'lib', number: 5 },
    ]);
    expect(h.fake.count('issueCreateIssueDependencies')).toBe(2);
  });

  it('adds and removes labels, and lists open issues by label', async () => {
    h.world.addLabel(h.repo, 'blitz');
    h.world.addLabel(h.repo, 'ready');
    const issue = h.world.addIssue(h.repo, { number: 1, title: 'a' });
    h.world.addIssue(h.repo, { number: 2, title: 'b', labels: ['ready'] });
    await h.forge.addLabels(ref(1), ['blitz', 'ready']);
    expect(issue.labels).toEqual(['blitz', 'ready']);
    await h.forge.removeLabel(ref(1), 'blitz');
    await h.forge.removeLabel(ref(1), 'not-there');
    expect(issue.labels).toEqual(['ready']);
    const ready = await h.forge.listIssuesWithLabel(app, 'ready');
    expect(ready.map((i) => i.ref.number).sort()).toEqual([1, 2]);
  });
});

describe('comments and reactions', () => {
  it('creates and lists comments', async () => {
    h.world.addIssue(h.repo, { number: 1, title: 'a' });
    const c = await h.forge.createComment(ref(1), 'hello');
    expect(c).toMatchObject({ body: 'hello', author: 'blitz-bot' });
    expect((await h.forge.listComments(ref(1))).map((x) => x.body)).toEqual(['hello']);
  });

  it('edits the sticky comment on the second call instead of posting another', async () => {
    h.world.addIssue(h.repo, { number: 1, title: 'a' });
    const first = await h.forge.upsertStickyComment(ref(1), 'blitz-dashboard', 'v1');
    const second = await h.forge.upsertStickyComment(ref(1), 'blitz-dashboard', 'v2');
    expect(second.id).toBe(first.id);
    const all = h.world.commentsOn(h.repo, 1);
    expect(all).toHaveLength(1);
    expect(all[0]!.body).toBe('<!-- blitz-dashboard -->\nv2');
  });

  it('posts the sticky comment of a fresh marker without listing the comments first', async () => {
    h.world.addIssue(h.repo, { number: 1, title: 'a' });
    const before = h.fake.requests.length;
    const c = await h.forge.upsertStickyComment(ref(1), 'run-1', 'v1', { fresh: true });
    expect(h.fake.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v1/repos/acme/app/issues/1/comments',
    ]);
    await h.forge.upsertStickyComment(ref(1), 'run-1', 'v2');
    expect(h.world.commentsOn(h.repo, 1).map((x) => [x.id, x.body])).toEqual([[c.id, '<!-- run-1 -->\nv2']]);
  });

  it('finds its sticky comment among many comments and ignores a person quoting the marker', async () => {
    const { world, repo } = h;
    world.addIssue(repo, { number: 1, title: 'a' });
    world.addComment(repo, 1, '<!-- blitz-dashboard --> copied by a person', 'alice');
    const mine = world.addComment(repo, 1, '<!-- blitz-dashboard -->\nold', 'blitz-bot');
    for (let i = 0; i < 150; i += 1) world.addComment(repo, 1, `chatter ${i}`, 'alice');
    const out = await h.forge.upsertStickyComment(ref(1), 'blitz-dashboard', 'new');
    expect(out.id).toBe(mine.id);
    expect(mine.body).toBe('<!-- blitz-dashboard -->\nnew');
    expect(world.commentsOn(repo, 1)[0]!.body).toBe('<!-- blitz-dashboard --> copied by a person');
    expect(world.commentsOn(repo, 1)).toHaveLength(152);
  });

  it('reacts to a comment once', async () => {
    h.world.addIssue(h.repo, { number: 1, title: 'a' });
    const c = h.world.addComment(h.repo, 1, '/blitz M1', 'alice');
    await h.forge.reactToComment(app, c.id, 'eyes');
    await h.forge.reactToComment(app, c.id, 'eyes');
    expect(c.reactions).toEqual([{ content: 'eyes', user: 'blitz-bot' }]);
  });
});

describe('repository', () => {
  it('normalises permissions: owner and admin → admin, write and maintain → write, triage → read, strangers → none', async () => {
    const { world, repo } = h;
    world.grant(repo, 'blitz-bot', 'admin');
    world.grant(repo, 'wendy', 'write');
    world.grant(repo, 'max', 'maintain');
    world.grant(repo, 'tina', 'triage');
    world.addUser('nobody');
    // The permission API decides for the account the repository lives under too: a run that kept
    // the path of a renamed owner (the forge redirects it) would otherwise trust whoever took the
    // old login.
    const before = h.fake.requests.length;
    expect(await h.forge.getPermission(app, 'acme')).toBe('admin');
    expect(h.fake.requests.length).toBe(before + 1);
    expect(await h.forge.getPermission(app, 'wendy')).toBe('write');
    expect(await h.forge.getPermission(app, 'max')).toBe('write');
    expect(await h.forge.getPermission(app, 'tina')).toBe('read');
    expect(await h.forge.getPermission(app, 'nobody')).toBe('none');
    expect(await h.forge.getPermission(app, 'ghost-user')).toBe('none');
  });

  it('reads the default branch and a file, and says undefined for a missing file', async () => {
    h.repo.files.set('.gitea/blitz.yml', 'build: npm test\n');
    expect(await h.forge.getDefaultBranch(app)).toBe('main');
    expect(await h.forge.getFile(app, '.gitea/blitz.yml')).toBe('build: npm test\n');
    expect(await h.forge.getFile(app, '.gitea/missing.yml')).toBeUndefined();
  });

  it('creates a branch idempotently, refuses one that exists elsewhere, and deletes it', async () => {
    const git = h.repo.git as MemoryGit;
    const mainSha = (await git.resolve('main'))!;
    await h.forge.createBranch(app, 'blitz/m1', 'main');
    await h.forge.createBranch(app, 'blitz/m1', mainSha);
    expect(await git.resolve('blitz/m1')).toBe(mainSha);
    git.commit('other', 'main');
    const err = await rejection(h.forge.createBranch(app, 'blitz/m1', 'other'));
    expect(isAppError(err, 'conflict')).toBe(true);
    await h.forge.deleteBranch(app, 'blitz/m1');
    await h.forge.deleteBranch(app, 'blitz/m1');
    expect(await git.resolve('blitz/m1')).toBeUndefined();
  });

  it('counts the commits a branch holds that the base has not, and resets a branch to the base', async () => {
    const git = h.repo.git as MemoryGit;
    expect(await h.forge.commitsAhead(app, 'main', 'blitz/m1')).toBeUndefined();
    await h.forge.createBranch(app, 'blitz/m1', 'main');
    expect(await h.forge.commitsAhead(app, 'main', 'blitz/m1')).toBe(0);
    git.commit('blitz/m1');
    git.commit('blitz/m1');
    expect(await h.forge.commitsAhead(app, 'main', 'blitz/m1')).toBe(2);
    await h.forge.resetBranch(app, 'blitz/m1', 'main');
    expect(await git.resolve('blitz/m1')).toBe(await git.resolve('main'));
    expect(await h.forge.commitsAhead(app, 'main', 'blitz/m1')).toBe(0);
  });

  it('pushes with GITEA_PUSH_TOKEN when set, and keeps the bot token for the API alone', async () => {
    const forge = createGiteaForge({
      url: h.fake.url,
      token: h.fake.token,
      pushToken: 'push-only-token',
      botLogin: h.world.botLogin,
    });
    const creds = await forge.cloneCredentials(app);
    expect(creds.password).toBe('push-only-token');
    expect(creds.url).not.toContain('push-only-token');
    // The fake knows the bot token only: every API call above went with it, none with the push token.
    expect(await forge.getDefaultBranch(app)).toBe('main');
    expect(h.fake.requests.every((r) => r.status !== 401)).toBe(true);
  });

  it('hands out the token as clone password with the bot as user, and never logs the token', async () => {
    const creds = await h.forge.cloneCredentials(app);
    expect(creds).toEqual({
      url: `${h.fake.url}/acme/app.git`,
      username: 'blitz-bot',
      password: h.fake.token,
    });
    // Kept: the runner asks before every git operation, the repository is read once.
    const reads = h.fake.count('repoGet');
    expect(await h.forge.cloneCredentials(app)).toEqual(creds);
    expect(await h.forge.getDefaultBranch(app)).toBe('main');
    expect(h.fake.count('repoGet')).toBe(reads);
    h.fake.failNext({ status: 503, times: 1 });
    await h.forge.listOpenMilestones(app);
    expect(h.logs()).toContain('gitea request failed, retrying');
    expect(h.logs()).not.toContain(h.fake.token);
  });
});

describe('pull requests', () => {
  const setupPr = async () => {
    const git = h.repo.git as MemoryGit;
    git.commit('feature', 'main');
    git.diffs.set('main...feature', `diff --git a/a.txt b/a.txt\n${'+hello\n'.repeat(40)}`);
    return h.forge.openPullRequest(app, { head: 'feature', base: 'main', title: 'Add a', body: 'Fixes #1' });
  };

  it('opens a pull request, reads it back with mergeability and head sha, and finds it by head', async () => {
    const pr = await setupPr();
    const headSha = await h.repo.git.resolve('feature');
    expect(pr).toMatchObject({
      title: 'Add a',
      state: 'open',
      merged: false,
      head: { ref: 'feature', sha: headSha },
    });
    const got = await h.forge.getPullRequest(pr.ref);
    expect(got).toMatchObject({ mergeable: true, mergeState: 'clean', base: { ref: 'main' } });
    expect((await h.forge.findPullRequest(app, 'feature'))?.ref.number).toBe(pr.ref.number);
    expect(await h.forge.findPullRequest(app, 'nope')).toBeUndefined();
  });

  it('opening a pull request from a head that has one answers with that one, not a second', async () => {
    const pr = await setupPr();
    const again = await h.forge.openPullRequest(app, {
      head: 'feature',
      base: 'main',
      title: 'Add a',
      body: 'Fixes #1',
    });
    expect(again.ref.number).toBe(pr.ref.number);
    expect(h.world.count('open_pull')).toBe(1);
  });

  it('reports a conflicting pull request as dirty and a stale one as behind', async () => {
    const pr = await setupPr();
    const git = h.repo.git as MemoryGit;
    git.commit('main');
    expect((await h.forge.getPullRequest(pr.ref)).mergeState).toBe('behind');
    git.conflicts.add('main<-feature');
    expect(await h.forge.getPullRequest(pr.ref)).toMatchObject({ mergeable: false, mergeState: 'dirty' });
  });

  it('lists the changed files and bounds the diff, saying when it was cut', async () => {
    const pr = await setupPr();
    expect(await h.forge.listPullRequestFiles(pr.ref)).toEqual([
      { path: 'a.txt', status: 'modified', additions: 0, deletions: 0 },
    ]);
    const whole = await h.forge.getPullRequestDiff(pr.ref, 10_000);
    expect(whole).toMatchObject({ truncated: false, totalBytes: whole.diff.length });
    const cut = await h.forge.getPullRequestDiff(pr.ref, 50);
    expect(cut.truncated).toBe(true);
    expect(cut.diff).toBe(whole.diff.slice(0, 50));
    expect(cut.totalBytes).toBe(whole.totalBytes);
  });

  it('merges with the expected head sha and never asks Gitea to delete the branch', async () => {
    const pr = await setupPr();
    const result = await h.forge.mergePullRequest(pr.ref, { method: 'squash', expectedHeadSha: pr.head.sha });
    expect(await h.repo.git.resolve('main')).toBe(result.sha);
    expect(h.repo.issues.get(pr.ref.number)?.pull?.merged).toBe(true);
    expect(await h.repo.git.resolve('feature')).toBe(pr.head.sha);
    const sent = h.fake.requests.find((r) => r.operationId === 'repoMergePullRequest');
    expect(sent?.body).toEqual({
      Do: 'squash',
      delete_branch_after_merge: false,
      head_commit_id: pr.head.sha,
    });
  });

  it('refuses to merge when the head moved since it was reviewed, and changes nothing', async () => {
    const pr = await setupPr();
    const mainBefore = await h.repo.git.resolve('main');
    (h.repo.git as MemoryGit).commit('feature');
    const err = await rejection(
      h.forge.mergePullRequest(pr.ref, { method: 'merge', expectedHeadSha: pr.head.sha }),
    );
    expect(isAppError(err, 'conflict')).toBe(true);
    expect(await h.repo.git.resolve('main')).toBe(mainBefore);
  });

  it('reports a pull request with conflicts as unmergeable', async () => {
    const pr = await setupPr();
    (h.repo.git as MemoryGit).conflicts.add('main<-feature');
    const err = await rejection(h.forge.mergePullRequest(pr.ref, { method: 'merge' }));
    expect(isAppError(err, 'unmergeable')).toBe(true);
    expect(h.repo.issues.get(pr.ref.number)?.pull?.merged).toBe(false);
  });

  it('updates a pull request branch from its base', async () => {
    const pr = await setupPr();
    const git = h.repo.git as MemoryGit;
    const newMain = git.commit('main');
    await h.forge.updatePullRequestBranch(pr.ref);
    expect(await git.isAncestor(newMain, 'feature')).toBe(true);
    expect((await h.forge.getPullRequest(pr.ref)).mergeState).toBe('clean');
  });

  it('finds the issues a pull request closes in its body and its commit messages', async () => {
    const pr = await setupPr();
    h.repo.issues.get(pr.ref.number)!.pull!.commits = [
      { sha: 'a'.repeat(40), message: 'Resolves acme/lib#4 and closes #9' },
      { sha: 'b'.repeat(40), message: 'refs #12 (not a closing keyword)' },
    ];
    expect(await h.forge.closingIssues(pr.ref)).toEqual([
      ref(1),
      ref(4, { owner: 'acme', name: 'lib' }),
      ref(9),
    ]);
  });
});
