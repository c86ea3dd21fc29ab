import { describe, expect, it } from 'vitest';
import { fixture } from '../../../test/support/signing.ts';
import { isAppError } from '../../errors.ts';
import { forgeEventSchema } from '../events.ts';
import { normalizeGitea } from './normalize.ts';

const events = (type: string, payload: unknown) => {
  const n = normalizeGitea(type, payload);
  if (n.outcome !== 'accepted') throw new Error(`expected accepted, got ignored: ${n.reason}`);
  for (const e of n.events) forgeEventSchema.parse(e);
  return n.events;
};

describe('normalizeGitea', () => {
  it('a created issue comment yields its commands with the comment id and author', () => {
    expect(events('issue_comment', fixture('gitea', 'issue_comment.created'))).toEqual([
      expect.objectContaining({
        kind: 'command',
        forge: 'gitea',
        repo: { owner: 'acme', name: 'shop' },
        issueNumber: 5,
        isPullRequest: false,
        commentId: 501,
        sender: { login: 'alice', type: 'User' },
        parsed: expect.objectContaining({
          ok: true,
          command: expect.objectContaining({ name: 'blitz', max: 2 }),
        }),
      }),
    ]);
  });

  it('a comment on a pull request (pull_request_comment) is marked as on a PR', () => {
    expect(events('pull_request_comment', fixture('gitea', 'pull_request_comment.created'))[0]).toMatchObject(
      {
        isPullRequest: true,
        issueNumber: 9,
        parsed: { ok: true, command: { name: 'merge' } },
      },
    );
  });

  it('an edited comment is not a command', () => {
    expect(normalizeGitea('issue_comment', fixture('gitea', 'issue_comment.edited')).outcome).toBe('ignored');
  });

  it('issue_label with blitz on an issue in a milestone is a signal for that milestone (by id)', () => {
    expect(events('issue_label', fixture('gitea', 'issue_label.label_updated'))[0]).toMatchObject({
      kind: 'milestone-signal',
      milestone: { number: 4, title: 'M1 accounts' },
      source: 'label',
      issueNumber: 5,
    });
  });

  it('issue_label leaving blitz/approved on is a label-added event naming the sender', () => {
    const p = fixture('gitea', 'issue_label.label_updated');
    (p.issue as Record<string, unknown>).labels = [{ id: 9, name: 'blitz/approved', color: 'ffffff' }];
    (p.issue as Record<string, unknown>).milestone = null;
    expect(events('issue_label', p)).toEqual([
      expect.objectContaining({
        kind: 'label-added',
        label: 'blitz/approved',
        issueNumber: 5,
        sender: expect.objectContaining({ login: 'alice' }),
      }),
    ]);
  });

  it('issue_label without the blitz label is ignored', () => {
    const p = fixture('gitea', 'issue_label.label_updated');
    (p.issue as Record<string, unknown>).labels = [{ name: 'bug' }];
    expect(normalizeGitea('issue_label', p).outcome).toBe('ignored');
  });

  it('issues closed, pull request merged and synchronized', () => {
    expect(events('issues', fixture('gitea', 'issues.closed'))[0]).toMatchObject({
      kind: 'issue-closed',
      issueNumber: 5,
    });
    expect(events('pull_request', fixture('gitea', 'pull_request.closed.merged'))[0]).toMatchObject({
      kind: 'pr-merged',
      number: 9,
      mergeCommitSha: '3333333333333333333333333333333333333333',
    });
    expect(events('pull_request_sync', fixture('gitea', 'pull_request_sync.synchronized'))[0]).toMatchObject({
      kind: 'pr-synchronized',
      headSha: '4444444444444444444444444444444444444444',
    });
  });

  it('a payload with a wrong-typed field fails with its path', () => {
    const p = fixture('gitea', 'issue_comment.created');
    (p.repository as Record<string, unknown>).owner = { login: 42 };
    let caught: unknown;
    try {
      normalizeGitea('issue_comment', p);
    } catch (err) {
      caught = err;
    }
    expect(isAppError(caught, 'invalid_payload')).toBe(true);
    expect((caught as { details: { path: string } }).details.path).toBe('repository.owner.login');
  });

  it('push and other unfollowed events are ignored', () => {
    expect(normalizeGitea('push', {}).outcome).toBe('ignored');
  });
});
