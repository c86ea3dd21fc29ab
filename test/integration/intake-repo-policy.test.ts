// The repository's .github/blitz.yml (or .gitea/blitz.yml) in authorisation: it may raise the
// permission the operator requires, never lower it; it may allow more bots; a broken file stops every
// command with the errors in words.
import { describe, expect, it } from 'vitest';
import { BOT_LOGIN, createHarness, GITEA_SECRET, GITHUB_SECRET } from '../support/intake-harness.ts';
import { fixture, githubExample, signedGiteaRequest, signedGithubRequest } from '../support/signing.ts';

const send = (h: ReturnType<typeof createHarness>, login: string, type = 'User') => {
  const p = githubExample('issue_comment', 'created');
  const comment = p.comment as Record<string, unknown>;
  comment.body = '/blitz M1';
  comment.user = { ...(comment.user as object), login, type };
  return h.post(
    '/api/github/webhooks',
    signedGithubRequest({ secret: GITHUB_SECRET, event: 'issue_comment', payload: p }),
  );
};

describe('repository config in authorisation', () => {
  it('permission: admin in the repo refuses a writer and lets an admin through', async () => {
    const h = createHarness({
      roles: { wendy: 'write', ada: 'admin' },
      repoFiles: { '.github/blitz.yml': 'permission: admin\n' },
    });
    await send(h, 'wendy');
    await send(h, 'ada');
    await h.queue.idle();
    expect((await h.store.listIntents()).map((i) => i.sender)).toEqual(['ada']);
    expect(h.github.calls.filter((c) => c.method === 'createComment')).toHaveLength(1);
    expect(h.github.calls).toContainEqual({
      method: 'getFile',
      repo: 'Codertocat/Hello-World',
      path: '.github/blitz.yml',
    });
  });

  it('permission: read in the repo does not lower the operator’s write: a reader is still refused', async () => {
    const h = createHarness({
      roles: { rita: 'read' },
      repoFiles: { '.github/blitz.yml': 'permission: read\n' },
    });
    await send(h, 'rita');
    await h.queue.idle();
    expect(await h.store.listIntents()).toEqual([]);
  });

  it('allowedBots in the repo adds a bot the operator did not list (it still needs write permission)', async () => {
    const h = createHarness({
      roles: { 'helper-bot[bot]': 'write', 'other-bot[bot]': 'write' },
      repoFiles: { '.github/blitz.yml': 'allowedBots: [helper-bot]\n' },
    });
    await send(h, 'helper-bot[bot]', 'Bot');
    await send(h, 'other-bot[bot]', 'Bot');
    await h.queue.idle();
    expect((await h.store.listIntents()).map((i) => i.sender)).toEqual(['helper-bot[bot]']);
  });

  it('a broken blitz.yml answers an authorised person with the errors and stores nothing', async () => {
    const h = createHarness({
      roles: { wendy: 'write' },
      repoFiles: { '.github/blitz.yml': 'permission: superuser\n' },
    });
    await send(h, 'wendy');
    await h.queue.idle();
    expect(await h.store.listIntents()).toEqual([]);
    const replies = h.github.calls.filter((c) => c.method === 'createComment');
    expect(replies).toHaveLength(1);
    expect((replies[0] as { body: string }).body).toMatch(/cannot use .*\.github\/blitz\.yml/);
    expect((replies[0] as { body: string }).body).toContain('permission');
  });

  it('the bot’s own comment reads no file and calls nothing', async () => {
    const h = createHarness({ repoFiles: { '.github/blitz.yml': 'permission: superuser\n' } });
    await send(h, BOT_LOGIN, 'Bot');
    await h.queue.idle();
    expect(h.github.calls).toEqual([]);
  });

  it('no file means the operator’s policy alone', async () => {
    const h = createHarness({ roles: { wendy: 'write' }, repoFiles: {} });
    await send(h, 'wendy');
    await h.queue.idle();
    expect(await h.store.listIntents()).toHaveLength(1);
  });

  it('Gitea reads .gitea/blitz.yml', async () => {
    const h = createHarness({
      roles: { alice: 'write' },
      repoFiles: { '.gitea/blitz.yml': 'permission: admin\n' },
    });
    await h.post(
      '/api/gitea/webhooks',
      signedGiteaRequest({
        secret: GITEA_SECRET,
        eventType: 'issue_comment',
        payload: fixture('gitea', 'issue_comment.created'),
      }),
    );
    await h.queue.idle();
    expect(await h.store.listIntents()).toEqual([]);
    expect(h.gitea.calls).toContainEqual({ method: 'getFile', repo: 'acme/shop', path: '.gitea/blitz.yml' });
  });
});
