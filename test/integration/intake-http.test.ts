// The webhook routes end to end, in process (app.request): real signatures, real SQLite, the real
// processor with a recording forge. Each bad-input case says what was sent and proves nothing changed.
import { describe, expect, it } from 'vitest';
import { resumeUnprocessed } from '../../src/intake/receive.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/types.ts';
import { BOT_LOGIN, createHarness, GITEA_SECRET, GITHUB_SECRET } from '../support/intake-harness.ts';
import {
  fixture,
  githubExample,
  hmacHex,
  signedGiteaRequest,
  signedGithubRequest,
} from '../support/signing.ts';

const githubComment = (body: string, login = 'alice', opts: { type?: string; association?: string } = {}) => {
  const p = githubExample('issue_comment', 'created');
  const comment = p.comment as Record<string, unknown>;
  comment.body = body;
  comment.user = { ...(comment.user as object), login, type: opts.type ?? 'User' };
  comment.author_association = opts.association ?? 'COLLABORATOR';
  p.sender = { ...(p.sender as object), login, type: opts.type ?? 'User' };
  return p;
};

const sendGithubComment = (
  h: ReturnType<typeof createHarness>,
  body: string,
  login = 'alice',
  extra: { deliveryId?: string; type?: string; association?: string } = {},
) =>
  h.post(
    '/api/github/webhooks',
    signedGithubRequest({
      secret: GITHUB_SECRET,
      event: 'issue_comment',
      payload: githubComment(body, login, extra),
      ...(extra.deliveryId ? { deliveryId: extra.deliveryId } : {}),
    }),
  );

describe('GitHub permission matrix: only commenters with write or more become intents', () => {
  const roles = ['admin', 'maintain', 'write', 'triage', 'read', 'none'] as const;
  const associations = ['OWNER', 'MEMBER', 'COLLABORATOR', 'CONTRIBUTOR', 'NONE'] as const;
  const cases = roles.flatMap((role) => associations.map((association) => [role, association] as const));

  it.each(cases)('role %s with author_association %s', async (role, association) => {
    const h = createHarness({ roles: { alice: role } });
    const res = await sendGithubComment(h, '/blitz M1', 'alice', { association });
    expect(res.status).toBe(202);
    await h.queue.idle();
    const intents = await h.store.listIntents();
    const allowed = role === 'admin' || role === 'maintain' || role === 'write';
    // author_association is not trusted: only the permission the forge reports decides.
    expect(intents).toHaveLength(allowed ? 1 : 0);
    const writes = h.github.calls.filter((c) => c.method !== 'getPermission');
    if (allowed) {
      expect(intents[0]).toMatchObject({
        forge: 'github',
        repo: 'Codertocat/Hello-World',
        issueNumber: 1,
        sender: 'alice',
      });
      expect(intents[0]?.command).toEqual({ name: 'blitz', milestone: 'M1', dryRun: false });
      expect(writes).toEqual([
        { method: 'reactToComment', repo: 'Codertocat/Hello-World', commentId: 492700400, reaction: 'eyes' },
      ]);
    } else {
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatchObject({ method: 'createComment', issue: 'Codertocat/Hello-World#1' });
      expect(JSON.stringify(writes[0])).toMatch(/write access/);
    }
  });
});

describe('commands after the response', () => {
  it('one delivery replayed three times yields one intent and one acknowledgement', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await sendGithubComment(h, '/blitz M1', 'alice', { deliveryId: 'same-delivery' })).status,
      );
      await h.queue.idle();
    }
    expect(statuses).toEqual([202, 200, 200]);
    expect(await h.store.listIntents()).toHaveLength(1);
    expect(h.github.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(1);
    const rows = await h.store.listDeliveries({ deliveryId: 'same-delivery' });
    expect(rows.map((r) => r.outcome)).toEqual(['accepted', 'duplicate', 'duplicate']);
    expect(rows[0]?.processedAt).toBeTypeOf('string');
  });

  it('one comment delivered again under new delivery ids yields one intent and one acknowledgement', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const statuses: number[] = [];
    for (const deliveryId of ['first', 'replayed-1', 'replayed-2']) {
      statuses.push((await sendGithubComment(h, '/blitz M1\n/blitz status', 'alice', { deliveryId })).status);
      await h.queue.idle();
    }
    // Each delivery id is new to the intake; the comment (its id and lines) is not.
    expect(statuses).toEqual([202, 202, 202]);
    const intents = await h.store.listIntents();
    expect(intents.map((i) => (i.command as { name: string }).name)).toEqual(['blitz', 'blitz-control']);
    expect(h.github.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(1);
  });

  it('answers before calling the forge: the work is still queued when the response arrives', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const res = await sendGithubComment(h, '/blitz M1');
    expect(res.status).toBe(202);
    expect(h.github.calls).toEqual([]);
    expect(h.queue.size).toBe(1);
    await h.queue.idle();
    expect(h.github.calls.map((c) => c.method)).toEqual(['getPermission', 'reactToComment']);
  });

  it('several commands in one comment become intents in order, acknowledged once', async () => {
    const h = createHarness({ roles: { alice: 'admin' } });
    await sendGithubComment(h, '/blitz M1\n/blitz status\n/plan-blitz M2 --waves 2');
    await h.queue.idle();
    const names = (await h.store.listIntents()).map((i) => (i.command as { name: string }).name);
    expect(names).toEqual(['blitz', 'blitz-control', 'plan-blitz']);
    expect(h.github.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(1);
  });

  it('an unauthorised person with three commands gets one refusal and no intent', async () => {
    const h = createHarness({ roles: { mallory: 'read' } });
    await sendGithubComment(h, '/blitz M1\n/merge\n/review', 'mallory');
    await h.queue.idle();
    expect(await h.store.listIntents()).toEqual([]);
    expect(h.github.calls.filter((c) => c.method === 'createComment')).toHaveLength(1);
  });

  it('a malformed command from an authorised person gets a reply quoting it with the usage, and no intent', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    await sendGithubComment(h, '/blitz --max lots');
    await h.queue.idle();
    expect(await h.store.listIntents()).toEqual([]);
    const replies = h.github.calls.filter((c) => c.method === 'createComment');
    expect(replies).toHaveLength(1);
    const body = (replies[0] as { body: string }).body;
    expect(body).toContain('/blitz --max lots');
    expect(body).toMatch(/Usage/);
    expect(h.github.calls.some((c) => c.method === 'reactToComment')).toBe(false);
  });

  it('two malformed commands beside a valid one: one reply for both, the valid one queued and acknowledged', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    await sendGithubComment(h, '/blitz --max lots\n/review\n/plan-blitz --waves zero');
    await h.queue.idle();
    expect((await h.store.listIntents()).map((i) => (i.command as { name: string }).name)).toEqual([
      'review',
    ]);
    const replies = h.github.calls.filter((c) => c.method === 'createComment') as { body: string }[];
    expect(replies).toHaveLength(1);
    expect(replies[0]?.body).toContain('/blitz --max lots');
    expect(replies[0]?.body).toContain('/plan-blitz --waves zero');
    expect(h.github.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(1);
  });

  it('comments by the bot itself and by other bots are ignored without asking the forge', async () => {
    const h = createHarness({ roles: {} });
    await sendGithubComment(h, '/blitz M1', BOT_LOGIN, { type: 'Bot' });
    await sendGithubComment(h, '/blitz M1', 'renovate[bot]', { type: 'Bot' });
    await h.queue.idle();
    expect(h.github.calls).toEqual([]);
    expect(await h.store.listIntents()).toEqual([]);
  });

  it('an allow-listed bot with write permission is taken', async () => {
    const h = createHarness({ roles: { 'helper-bot[bot]': 'write' }, allowedBots: ['helper-bot'] });
    await sendGithubComment(h, '/review', 'helper-bot[bot]', { type: 'Bot' });
    await h.queue.idle();
    expect(await h.store.listIntents()).toHaveLength(1);
  });

  it('an allow-listed bot without write permission is refused like a person', async () => {
    const h = createHarness({ roles: { 'helper-bot[bot]': 'read' }, allowedBots: ['helper-bot'] });
    await sendGithubComment(h, '/review', 'helper-bot[bot]', { type: 'Bot' });
    await h.queue.idle();
    expect(await h.store.listIntents()).toHaveLength(0);
  });

  it('the GitHub installation id reaches the forge resolver', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const p = githubComment('/blitz');
    p.installation = { id: 4242, node_id: 'x' };
    await h.post(
      '/api/github/webhooks',
      signedGithubRequest({ secret: GITHUB_SECRET, event: 'issue_comment', payload: p }),
    );
    await h.queue.idle();
    // With its repository, so a run of that repository takes the installation without a lookup.
    expect(h.resolved).toEqual([
      { forge: 'github', installationId: 4242, repo: { owner: 'Codertocat', name: 'Hello-World' } },
    ]);
  });

  it('label blitz added by a writer on an issue of a milestone stores a start intent for that milestone', async () => {
    const h = createHarness({ roles: { Codertocat: 'write' } });
    const p = githubExample('issues', 'labeled');
    (p.label as Record<string, unknown>).name = 'blitz';
    (p.issue as Record<string, unknown>).milestone = { number: 4, title: 'M1', description: null };
    await h.post(
      '/api/github/webhooks',
      signedGithubRequest({ secret: GITHUB_SECRET, event: 'issues', payload: p }),
    );
    await h.queue.idle();
    const [intent] = await h.store.listIntents();
    expect(intent?.command).toEqual({ name: 'blitz', milestone: '4', dryRun: false });
  });
});

describe('a delivery answered just before a restart', () => {
  it('is processed when the bot starts again, once', async () => {
    const store = openSqliteStore(':memory:');
    const before = createHarness({ roles: { alice: 'write' }, store });
    // The old process stops taking work right after answering: the delivery is recorded, not processed.
    await before.queue.drain();
    expect((await sendGithubComment(before, '/blitz M1', 'alice', { deliveryId: 'cut-short' })).status).toBe(
      202,
    );
    expect(before.github.calls).toEqual([]);
    expect(await store.listIntents()).toEqual([]);

    const after = createHarness({ roles: { alice: 'write' }, store });
    expect(await resumeUnprocessed(after.intake)).toBe(1);
    await after.queue.idle();
    expect(await store.listIntents()).toHaveLength(1);
    expect(after.github.calls.map((c) => c.method)).toEqual(['getPermission', 'reactToComment']);
    expect(await resumeUnprocessed(after.intake)).toBe(0);
    // And a redelivery of the same id after the restart is still a duplicate.
    expect((await sendGithubComment(after, '/blitz M1', 'alice', { deliveryId: 'cut-short' })).status).toBe(
      200,
    );
  });
});

describe('the "processed" mark', () => {
  it('never written (the process died first): after a restart the delivery is processed again, storing and acknowledging nothing twice', async () => {
    const store = openSqliteStore(':memory:');
    const dies: Store = {
      ...store,
      markDeliveryProcessed: async () => {
        throw new Error('the process died before the mark was written');
      },
    };
    const before = createHarness({ roles: { alice: 'write' }, store: dies });
    const sent = await sendGithubComment(before, '/blitz M1', 'alice', { deliveryId: 'unmarked' });
    expect(sent.status).toBe(202);
    await before.queue.idle();
    expect(await store.listIntents()).toHaveLength(1);
    expect(before.github.calls.map((c) => c.method)).toEqual(['getPermission', 'reactToComment']);
    expect((await store.listDeliveries({ deliveryId: 'unmarked' }))[0]?.processedAt).toBeUndefined();
    expect(before.lines.some((l) => String(l.msg).startsWith('processed mark not written'))).toBe(true);

    const after = createHarness({ roles: { alice: 'write' }, store });
    expect(await resumeUnprocessed(after.intake)).toBe(1);
    await after.queue.idle();
    expect(await store.listIntents()).toHaveLength(1);
    // The permission is asked again; the command, already stored, is not acknowledged again.
    expect(after.github.calls.map((c) => c.method)).toEqual(['getPermission']);
    expect((await store.listDeliveries({ deliveryId: 'unmarked' }))[0]?.processedAt).toBeTypeOf('string');
    expect(await resumeUnprocessed(after.intake)).toBe(0);
  });

  it('is not waited for by the next delivery of the same repository, but idle() waits for it', async () => {
    const store = openSqliteStore(':memory:');
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let secondMarked: () => void = () => {};
    const second = new Promise<void>((r) => (secondMarked = r));
    const gated: Store = {
      ...store,
      markDeliveryProcessed: async (forge, id) => {
        if (id === 'first') await held;
        if (id === 'second') secondMarked();
        return store.markDeliveryProcessed(forge, id);
      },
    };
    const h = createHarness({ roles: { alice: 'write' }, store: gated });
    const comment = (id: number) => {
      const p = githubComment('/blitz M1');
      (p.comment as Record<string, unknown>).id = id;
      return p;
    };
    for (const [deliveryId, id] of [
      ['first', 1001],
      ['second', 1002],
    ] as const) {
      const res = await h.post(
        '/api/github/webhooks',
        signedGithubRequest({
          secret: GITHUB_SECRET,
          event: 'issue_comment',
          payload: comment(id),
          deliveryId,
        }),
      );
      expect(res.status).toBe(202);
    }
    let idle = false;
    const idled = h.queue.idle().then(() => {
      idle = true;
    });
    // Same repository, same lane: the second delivery was processed while the first mark was held.
    await second;
    expect((await store.listIntents()).map((i) => i.deliveryId)).toEqual(['comment:1001', 'comment:1002']);
    expect(idle).toBe(false);
    expect((await store.listDeliveries({ deliveryId: 'first' }))[0]?.processedAt).toBeUndefined();
    release();
    await idled;
    for (const id of ['first', 'second'])
      expect((await store.listDeliveries({ deliveryId: id }))[0]?.processedAt).toBeTypeOf('string');
  });
});

describe('Gitea', () => {
  it('a writer’s command is stored and acknowledged with an eyes reaction, no comment', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const res = await h.post(
      '/api/gitea/webhooks',
      signedGiteaRequest({
        secret: GITEA_SECRET,
        eventType: 'issue_comment',
        payload: fixture('gitea', 'issue_comment.created'),
      }),
    );
    expect(res.status).toBe(202);
    await h.queue.idle();
    expect(await h.store.listIntents({ forge: 'gitea' })).toHaveLength(1);
    expect(h.gitea.calls.filter((c) => c.method === 'createComment')).toEqual([]);
    expect(h.gitea.calls.filter((c) => c.method === 'reactToComment')).toEqual([
      { method: 'reactToComment', repo: 'acme/shop', commentId: expect.any(Number), reaction: 'eyes' },
    ]);
  });

  it('a reader gets one refusal and no intent', async () => {
    const h = createHarness({ roles: { alice: 'read' } });
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
    expect(h.gitea.calls.filter((c) => c.method === 'createComment')).toHaveLength(1);
  });

  it('accepts a form-encoded delivery (payload= field), verifying the signature over the JSON', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = signedGiteaRequest({
      secret: GITEA_SECRET,
      eventType: 'issue_comment',
      payload: fixture('gitea', 'issue_comment.created'),
      form: true,
    });
    expect((await h.post('/api/gitea/webhooks', req)).status).toBe(202);
    await h.queue.idle();
    expect(await h.store.listIntents()).toHaveLength(1);
  });
});

describe('bad input is refused and changes nothing', () => {
  const nothingChanged = async (h: ReturnType<typeof createHarness>) => {
    await h.queue.idle();
    expect(await h.store.listIntents()).toEqual([]);
    expect(h.github.calls).toEqual([]);
    expect(h.gitea.calls).toEqual([]);
  };
  const comment = () =>
    signedGithubRequest({ secret: GITHUB_SECRET, event: 'issue_comment', payload: githubComment('/blitz') });

  it('GitHub: no X-Hub-Signature-256 header → 401', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = comment();
    delete req.headers['x-hub-signature-256'];
    expect((await h.post('/api/github/webhooks', req)).status).toBe(401);
    expect(await h.store.listDeliveries()).toEqual([]);
    await nothingChanged(h);
  });

  it('GitHub: signed with another secret → 401', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = signedGithubRequest({
      secret: 'wrong',
      event: 'issue_comment',
      payload: githubComment('/blitz'),
    });
    expect((await h.post('/api/github/webhooks', req)).status).toBe(401);
    expect(await h.store.listDeliveries()).toEqual([]);
    await nothingChanged(h);
  });

  it('GitHub: body changed after signing → 401', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = comment();
    req.body = req.body.replace('/blitz', '/merge');
    expect((await h.post('/api/github/webhooks', req)).status).toBe(401);
    await nothingChanged(h);
  });

  it('Gitea: no signature, and a signature of the wrong length → 401', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = signedGiteaRequest({
      secret: GITEA_SECRET,
      eventType: 'issue_comment',
      payload: fixture('gitea', 'issue_comment.created'),
    });
    const unsigned = { ...req, headers: { ...req.headers } };
    delete unsigned.headers['x-gitea-signature'];
    expect((await h.post('/api/gitea/webhooks', unsigned)).status).toBe(401);
    const short = { ...req, headers: { ...req.headers, 'x-gitea-signature': 'abc123' } };
    expect((await h.post('/api/gitea/webhooks', short)).status).toBe(401);
    const other = { ...req, headers: { ...req.headers, 'x-gitea-signature': hmacHex('wrong', req.body) } };
    expect((await h.post('/api/gitea/webhooks', other)).status).toBe(401);
    await nothingChanged(h);
  });

  it('text/plain content type → 415 naming the accepted types', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = comment();
    req.headers['content-type'] = 'text/plain';
    const res = await h.post('/api/github/webhooks', req);
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ message: expect.stringContaining('application/json') });
    await nothingChanged(h);
  });

  it('a correctly signed body that is not JSON → 400', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const body = '{"action": "created", oops';
    const res = await h.post('/api/github/webhooks', {
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': 'not-json',
        'x-hub-signature-256': `sha256=${hmacHex(GITHUB_SECRET, body)}`,
      },
    });
    expect(res.status).toBe(400);
    await nothingChanged(h);
  });

  it('a declared body over 1 MiB → 413, before reading it', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = comment();
    const big = `${req.body.slice(0, -1)}, "padding": "${'x'.repeat(1024 * 1024)}"}`;
    const res = await h.post('/api/github/webhooks', { body: big, headers: { ...req.headers } });
    expect(res.status).toBe(413);
    await nothingChanged(h);
  });

  it('a streamed body without length that passes 1 MiB → 413, reading stops at the limit', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.length;
        // 100 MB on offer; the reader must give up long before.
        if (pulled > 100 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await h.post('/api/github/webhooks', { body: stream, headers: { ...comment().headers } });
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(4 * 1024 * 1024);
    await nothingChanged(h);
  });

  it('an event the bot does not follow → 202, recorded as ignored, nothing done', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = signedGithubRequest({
      secret: GITHUB_SECRET,
      event: 'star',
      payload: githubExample('star', 'created'),
    });
    const res = await h.post('/api/github/webhooks', req);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ outcome: 'ignored', events: 0 });
    const [row] = await h.store.listDeliveries();
    expect(row).toMatchObject({ event: 'star', outcome: 'ignored', reason: 'event star is not followed' });
    await nothingChanged(h);
  });

  it('a signed payload that fails the schema → 400, the bad field’s path in the log, a rejected row, no intent', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const p = githubComment('/blitz');
    (p.issue as Record<string, unknown>).number = 'one';
    const res = await h.post(
      '/api/github/webhooks',
      signedGithubRequest({
        secret: GITHUB_SECRET,
        event: 'issue_comment',
        payload: p,
        deliveryId: 'bad-shape',
      }),
    );
    expect(res.status).toBe(400);
    expect(
      h.lines.some((l) => l.path === 'issue.number' && l.msg === 'webhook payload failed its schema'),
    ).toBe(true);
    expect((await h.store.listDeliveries()).map((d) => d.outcome)).toEqual(['rejected']);
    await nothingChanged(h);
  });

  it('a missing X-GitHub-Delivery header → 400', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = comment();
    delete req.headers['x-github-delivery'];
    expect((await h.post('/api/github/webhooks', req)).status).toBe(400);
    await nothingChanged(h);
  });

  it('GitHub form-encoded deliveries are accepted: the signature covers the form body', async () => {
    const h = createHarness({ roles: { alice: 'write' } });
    const req = signedGithubRequest({
      secret: GITHUB_SECRET,
      event: 'issue_comment',
      payload: githubComment('/blitz'),
      form: true,
    });
    expect((await h.post('/api/github/webhooks', req)).status).toBe(202);
    await h.queue.idle();
    expect(await h.store.listIntents()).toHaveLength(1);
  });
});

describe('health and metrics', () => {
  it('/healthz reports the version and that the store answers; 503 once it does not', async () => {
    const h = createHarness();
    const ok = await h.app.request('/healthz');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ok', version: '0.0.0-test', store: true });
    await h.store.close();
    const down = await h.app.request('/healthz');
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'degraded', store: false });
  });

  it('/metrics counts deliveries by forge/event/outcome and commands by name/outcome', async () => {
    const h = createHarness({ roles: { alice: 'write', mallory: 'read' } });
    await sendGithubComment(h, '/blitz M1', 'alice', { deliveryId: 'm1' });
    await sendGithubComment(h, '/blitz M1', 'alice', { deliveryId: 'm1' });
    await sendGithubComment(h, '/merge', 'mallory');
    await h.queue.idle();
    const text = await (await h.app.request('/metrics')).text();
    expect(text).toContain(
      'blitz_webhook_deliveries_total{forge="github",event="issue_comment",outcome="accepted"} 2',
    );
    expect(text).toContain(
      'blitz_webhook_deliveries_total{forge="github",event="issue_comment",outcome="duplicate"} 1',
    );
    expect(text).toContain('blitz_commands_total{name="blitz",outcome="queued"} 1');
    expect(text).toContain('blitz_commands_total{name="merge",outcome="refused"} 1');
    expect(text).toMatch(
      /blitz_http_request_duration_seconds_count\{method="POST",route="\/api\/github\/webhooks",status="202"\} 2/,
    );
  });
});
