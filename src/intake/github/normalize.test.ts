import { describe, expect, it } from 'vitest';
import { fixture, githubExample } from '../../../test/support/signing.ts';
import { isAppError } from '../../errors.ts';
import { forgeEventSchema } from '../events.ts';
import { normalizeGithub } from './normalize.ts';

const events = (event: string, payload: unknown) => {
  const n = normalizeGithub(event, payload);
  if (n.outcome !== 'accepted') throw new Error(`expected accepted, got ignored: ${n.reason}`);
  for (const e of n.events) forgeEventSchema.parse(e);
  return n.events;
};

const comment = (body: string, action = 'created') => {
  const p = githubExample('issue_comment', 'created');
  p.action = action;
  (p.comment as Record<string, unknown>).body = body;
  return p;
};

describe('normalizeGithub', () => {
  it('turns every command line of a created comment into a command event, in order', () => {
    const out = events('issue_comment', comment('Let us go.\n/blitz M1 --dry-run\n\n/review'));
    expect(out.map((e) => e.kind)).toEqual(['command', 'command']);
    const [first, second] = out;
    expect(first).toMatchObject({
      forge: 'github',
      repo: { owner: 'Codertocat', name: 'Hello-World' },
      issueNumber: 1,
      isPullRequest: false,
      sender: { login: 'Codertocat', type: 'User' },
      parsed: { ok: true, command: { name: 'blitz', milestone: 'M1', dryRun: true } },
    });
    expect(second).toMatchObject({ parsed: { ok: true, command: { name: 'review' } } });
  });

  it('keeps a malformed command as an event so it can be answered with its usage', () => {
    const [only] = events('issue_comment', comment('/blitz --max many'));
    expect(only).toMatchObject({ kind: 'command', parsed: { ok: false, word: 'blitz' } });
  });

  it('ignores edited and deleted comments: editing an old comment must not start work again', () => {
    expect(normalizeGithub('issue_comment', comment('/blitz M1', 'edited'))).toMatchObject({
      outcome: 'ignored',
    });
    expect(normalizeGithub('issue_comment', comment('/blitz M1', 'deleted'))).toMatchObject({
      outcome: 'ignored',
    });
  });

  it('ignores a comment without commands', () => {
    expect(normalizeGithub('issue_comment', comment('just chatting'))).toMatchObject({ outcome: 'ignored' });
  });

  it('marks comments on pull requests', () => {
    const p = comment('/merge');
    (p.issue as Record<string, unknown>).pull_request = { url: 'https://api.github.com/repos/o/r/pulls/1' };
    expect(events('issue_comment', p)[0]).toMatchObject({ isPullRequest: true, parsed: { ok: true } });
  });

  it('label blitz added to an issue in a milestone is a milestone signal', () => {
    const p = githubExample('issues', 'labeled');
    (p.label as Record<string, unknown>).name = 'Blitz';
    (p.issue as Record<string, unknown>).milestone = { number: 4, title: 'M1', description: null };
    expect(events('issues', p)).toEqual([
      expect.objectContaining({
        kind: 'milestone-signal',
        milestone: { number: 4, title: 'M1' },
        source: 'label',
      }),
    ]);
  });

  it('label blitz/approved added is a label-added event naming who added it', () => {
    const p = githubExample('issues', 'labeled');
    (p.label as Record<string, unknown>).name = 'blitz/approved';
    p.sender = { ...(p.sender as object), login: 'maya', type: 'User' };
    expect(events('issues', p)).toEqual([
      expect.objectContaining({
        kind: 'label-added',
        label: 'blitz/approved',
        issueNumber: (p.issue as { number: number }).number,
        sender: { login: 'maya', type: 'User' },
      }),
    ]);
  });

  it('label blitz on an issue without a milestone, or another label, is ignored', () => {
    const p = githubExample('issues', 'labeled');
    (p.label as Record<string, unknown>).name = 'blitz';
    (p.issue as Record<string, unknown>).milestone = null;
    expect(normalizeGithub('issues', p).outcome).toBe('ignored');
    const other = githubExample('issues', 'labeled');
    (other.label as Record<string, unknown>).name = 'bug';
    expect(normalizeGithub('issues', other).outcome).toBe('ignored');
  });

  it('an issue carrying label blitz put into a milestone is a milestone signal', () => {
    const p = githubExample('issues', 'milestoned');
    const issue = p.issue as Record<string, unknown>;
    issue.labels = [{ name: 'blitz' }];
    expect(events('issues', p)[0]).toMatchObject({ kind: 'milestone-signal', source: 'label' });
  });

  it('[blitz] in a created or edited milestone is a signal; a plain milestone is not', () => {
    const created = githubExample('milestone', 'created');
    expect(normalizeGithub('milestone', created).outcome).toBe('ignored');
    (created.milestone as Record<string, unknown>).title = 'v1.0 [blitz]';
    expect(events('milestone', created)[0]).toMatchObject({ kind: 'milestone-signal', source: 'milestone' });
    const edited = githubExample('milestone', 'created');
    edited.action = 'edited';
    (edited.milestone as Record<string, unknown>).description = 'ship it [BLITZ]';
    expect(events('milestone', edited)[0]).toMatchObject({ kind: 'milestone-signal' });
  });

  it('issue closed and reopened', () => {
    expect(events('issues', githubExample('issues', 'reopened'))[0]).toMatchObject({
      kind: 'issue-reopened',
    });
    const closed = githubExample('issues', 'opened');
    closed.action = 'closed';
    expect(events('issues', closed)[0]).toMatchObject({ kind: 'issue-closed', issueNumber: 1 });
  });

  it('pull requests: opened, synchronize, closed unmerged, closed merged', () => {
    expect(events('pull_request', githubExample('pull_request', 'opened'))[0]).toMatchObject({
      kind: 'pr-opened',
    });
    expect(events('pull_request', githubExample('pull_request', 'synchronize'))[0]).toMatchObject({
      kind: 'pr-synchronized',
    });
    expect(events('pull_request', githubExample('pull_request', 'closed'))[0]).toMatchObject({
      kind: 'pr-closed',
    });
    expect(events('pull_request', fixture('github', 'pull_request.closed.merged'))[0]).toMatchObject({
      kind: 'pr-merged',
      mergeCommitSha: '9b0c3f1e2d4a5b6c7d8e9f00112233445566778f',
      installationId: 2,
    });
  });

  it('installation: new_permissions_accepted is one event per repository it names; other actions are ignored', () => {
    expect(events('installation', githubExample('installation', 'new_permissions_accepted'))).toEqual([
      {
        kind: 'permissions-accepted',
        forge: 'github',
        repo: { owner: 'Codertocat', name: 'Hello-World' },
        sender: { login: 'Codertocat', type: 'User' },
        installationId: 957387,
      },
    ]);
    // Naming no repository, it names the installation's account: every run there looks again.
    const none = githubExample('installation', 'new_permissions_accepted');
    delete none.repositories;
    expect(events('installation', none)).toEqual([
      {
        kind: 'installation-permissions-accepted',
        forge: 'github',
        sender: { login: 'Codertocat', type: 'User' },
        installationId: 957387,
        account: 'Codertocat',
      },
    ]);
    const nobody = structuredClone(none);
    delete (nobody.installation as Record<string, unknown>).account;
    expect(normalizeGithub('installation', nobody).outcome).toBe('ignored');
    expect(normalizeGithub('installation', githubExample('installation', 'suspend')).outcome).toBe('ignored');
  });

  it('dependencies: blocked_by_added and blocking_removed name the blocked and the blocking issue', () => {
    expect(
      events('issue_dependencies', fixture('github', 'issue_dependencies.blocked_by_added'))[0],
    ).toMatchObject({
      kind: 'dependency-changed',
      change: 'added',
      blocked: { repo: { owner: 'Codertocat', name: 'Hello-World' }, number: 5 },
      blocking: { number: 3 },
    });
    expect(
      events('issue_dependencies', fixture('github', 'issue_dependencies.blocking_removed'))[0],
    ).toMatchObject({
      change: 'removed',
      blocked: { number: 7 },
      blocking: { number: 5 },
    });
  });

  it('sub-issues added and removed', () => {
    expect(events('sub_issues', fixture('github', 'sub_issues.sub_issue_added'))[0]).toMatchObject({
      kind: 'sub-issue-changed',
      change: 'added',
      parent: { number: 1 },
      child: { number: 5 },
    });
    expect(events('sub_issues', fixture('github', 'sub_issues.sub_issue_removed'))[0]).toMatchObject({
      change: 'removed',
    });
  });

  it('an event the bot does not follow is ignored, with the reason', () => {
    expect(normalizeGithub('star', githubExample('star', 'created'))).toEqual({
      outcome: 'ignored',
      reason: 'event star is not followed',
    });
  });

  it('a payload missing a field the bot reads fails with the path of that field', () => {
    const p = comment('/blitz');
    delete (p.comment as Record<string, unknown>).id;
    let caught: unknown;
    try {
      normalizeGithub('issue_comment', p);
    } catch (err) {
      caught = err;
    }
    expect(isAppError(caught, 'invalid_payload')).toBe(true);
    expect((caught as { details: { path: string } }).details.path).toBe('comment.id');
  });
});
