// What a bot that was down missed is recovered when it starts again (intake/recover.ts): the composed
// bot on a real store (SQLite, and PostgreSQL when the server answers), restarted on the same store and
// data dir, against the contract-checked fakes. On Gitea a command commented on a live run's issue
// while the bot was down is read back from the API and taken through the webhook path (authorised,
// parsed, deduplicated by comment id); on GitHub the App's failed delivery is redelivered by GitHub,
// signed, to the bot's port. Each is acted on once, however often the bot restarts.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRunStore, openStore } from '../../src/store/open-store.ts';
import { startFakeGitea } from '../support/fake-gitea/server.ts';
import { appKeyPair } from '../support/fake-github/app-tokens.ts';
import { startFakeGithub } from '../support/fake-github/server.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { pgForFile } from '../support/pg.ts';
import { bootComposed, type Cleanups, freePort, seedWorld } from '../support/serve-harness.ts';
import { fixture, githubExample, signedGiteaRequest } from '../support/signing.ts';
import { until } from '../support/until.ts';
import type { World, WorldRepo } from '../support/world.ts';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const postgres = await pgForFile();
const hasPg = postgres.available;

const giteaSecret = 'recover-gitea-secret';
const stores = hasPg ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

/** A store and a data dir that outlive each bot process of the test. */
const durable = async (kind: 'sqlite' | 'postgres') => {
  const dataDir = tempDir('blitz-recover-');
  cleanups.push(() => removeDir(dataDir));
  const databaseUrl =
    kind === 'sqlite'
      ? `sqlite:${join(dataDir, 'blitz.db')}`
      : postgres.schemas().urlFor(await postgres.schemas().create());
  return { dataDir, databaseUrl, vars: { DATABASE_URL: databaseUrl, BLITZ_DATA_DIR: dataDir } };
};

/** Boots the composed bot (its port beside it); its stop waits for it (queue drained, stores closed). */
const boot = async (vars: Record<string, string>) => {
  // No cron tick during the test: a command is taken when its delivery is processed.
  const { bot, port } = await bootComposed(vars, cleanups, undefined, {}, { tickSeconds: 3600 });
  return Object.assign(bot, { port });
};

/** A comment written now (the World's own clock is fixed in January 2026; the bot's is real). */
const commentNow = (world: World, repo: WorldRepo, issue: number, body: string, author: string) => {
  const c = world.addComment(repo, issue, body, author);
  c.createdAt = new Date().toISOString();
  c.updatedAt = c.createdAt;
  return c;
};

/** The signed `issue_comment` webhook Gitea sends for comment `id`, posted to the bot. */
const postGiteaComment = (
  t: { repo: WorldRepo; trigger: number },
  port: number,
  id: number,
  body: string,
  login: string,
) => {
  const p = fixture('gitea', 'issue_comment.created');
  const r = p.repository as Record<string, unknown>;
  Object.assign(r, { name: t.repo.name, full_name: `${t.repo.owner}/${t.repo.name}` });
  r.owner = { ...(r.owner as object), login: t.repo.owner };
  (p.issue as Record<string, unknown>).number = t.trigger;
  const pc = p.comment as Record<string, unknown>;
  Object.assign(pc, { id, body, user: { ...(pc.user as object), login } });
  p.sender = { ...(p.sender as object), login };
  const req = signedGiteaRequest({ secret: giteaSecret, eventType: 'issue_comment', payload: p });
  return fetch(`http://127.0.0.1:${port}/api/gitea/webhooks`, {
    method: 'POST',
    body: req.body,
    headers: req.headers,
  });
};

describe.each(stores)('recovery after a restart on Gitea (%s)', (kind) => {
  const setup = async () => {
    const { world, repo, trigger } = await seedWorld('blitz-bot', 'M1', cleanups);
    world.grant(repo, 'mallory', 'read');
    const fake = await startFakeGitea(world);
    cleanups.push(async () => {
      await fake.close();
      fake.assertNoViolations();
    });
    const store = await durable(kind);
    const vars = {
      ...store.vars,
      GITEA_URL: fake.url,
      GITEA_TOKEN: fake.token,
      GITEA_WEBHOOK_SECRET: giteaSecret,
      GITEA_BOT_LOGIN: 'blitz-bot',
    };
    // The bot ran once (the store is set up), then went down.
    await (await boot(vars)).stop();
    // A paused run on the milestone: live, and nothing in it moves by itself.
    const runs = await openRunStore(store.databaseUrl);
    await runs.createRun({
      id: 'run-recover',
      forge: 'gitea',
      repo: 'acme/app',
      kind: 'blitz',
      milestoneNumber: [...repo.milestones.values()][0]!.id,
      milestoneTitle: 'M1',
      slug: 'm1',
      triggerIssue: trigger,
      options: {},
      state: 'paused',
      integrationBranch: 'blitz/m1',
      progress: { pausedFrom: 'running' },
    });
    await runs.close();
    const byBot = (text: string) =>
      world.commentsOn(repo, trigger).filter((c) => c.author === 'blitz-bot' && c.body.includes(text));
    const runState = async () => {
      const r = await openRunStore(store.databaseUrl);
      try {
        return (await r.getRun('run-recover'))?.state;
      } finally {
        await r.close();
      }
    };
    const intents = async () => {
      const s = await openStore(store.databaseUrl);
      try {
        return await s.listIntents({ forge: 'gitea' });
      } finally {
        await s.close();
      }
    };
    return { world, repo, trigger, fake, vars, byBot, runState, intents };
  };

  it('answers a command commented while the bot was down once, and once only over two more restarts', async () => {
    const t = await setup();
    const status = commentNow(t.world, t.repo, t.trigger, '/blitz status', 'alice');
    const eyes = () => status.reactions.filter((r) => r.content === 'eyes');

    const second = await boot(t.vars);
    await until('the missed status command answered', () => t.byBot('is paused:').length > 0, {
      timeoutMs: 30_000,
    });
    await second.stop();
    expect(t.byBot('is paused:')).toHaveLength(1);
    expect(eyes()).toHaveLength(1);
    expect(t.fake.count('issueGetRepoComments')).toBeGreaterThan(0);

    for (let i = 0; i < 2; i++) {
      const again = await boot(t.vars);
      expect((await again.recover()).comments).toEqual([]);
      await again.stop();
    }
    expect(t.byBot('is paused:')).toHaveLength(1);
    expect(eyes()).toHaveLength(1);
    expect(await t.intents()).toHaveLength(1);
  }, 120_000);

  it('refuses a missed command from someone without write access, as it would live, once', async () => {
    const t = await setup();
    commentNow(t.world, t.repo, t.trigger, '/blitz cancel', 'mallory');

    const second = await boot(t.vars);
    await until('the refusal posted', () => t.byBot('@mallory Sorry, only people with').length > 0, {
      timeoutMs: 30_000,
    });
    // Live, with the bot up: the webhook's refusal; the comment is marked taken by its id.
    const live = commentNow(t.world, t.repo, t.trigger, '/blitz cancel', 'mallory');
    const res = await postGiteaComment(t, second.port, live.id, '/blitz cancel', 'mallory');
    expect(res.status).toBe(202);
    await until('the live refusal posted', () => t.byBot('@mallory Sorry, only people with').length > 1, {
      timeoutMs: 30_000,
    });
    await second.stop();
    const third = await boot(t.vars);
    expect((await third.recover()).comments).toEqual([]);
    await third.stop();
    expect(t.byBot('@mallory Sorry, only people with')).toHaveLength(2);
    expect(await t.intents()).toEqual([]);
    expect(await t.runState()).toBe('paused');
  }, 120_000);

  it('does nothing with a hostile comment body, nor with the bot’s own comment', async () => {
    const t = await setup();
    const hostile = [
      '> /blitz cancel',
      '```',
      '/blitz cancel',
      '```',
      '<!-- /blitz cancel -->',
      '`/blitz cancel`',
      '    /blitz cancel',
      `<!-- blitz-dashboard run-recover -->\u0000\u001b[2J ${'x'.repeat(70_000)}`,
      '/blitz cancel',
    ].join('\n');
    commentNow(t.world, t.repo, t.trigger, hostile, 'alice');
    commentNow(t.world, t.repo, t.trigger, '/blitz cancel', 'blitz-bot');
    const before = t.world.commentsOn(t.repo, t.trigger).length;

    const second = await boot(t.vars);
    expect((await second.recover()).comments).toEqual([]);
    await second.stop();
    expect(t.world.commentsOn(t.repo, t.trigger)).toHaveLength(before);
    expect(await t.intents()).toEqual([]);
    expect(await t.runState()).toBe('paused');
  }, 120_000);
});

describe.each(stores)('recovery after a restart on GitHub (%s)', (kind) => {
  const secret = 'recover-github-secret';
  const appId = 4343;
  const installationId = 88;

  it('has GitHub redeliver a delivery that failed while the bot was down, acted on once', async () => {
    const { publicKey, privateKey } = appKeyPair();
    const { world, repo, trigger } = await seedWorld('blitz-bot[bot]', 'M1', cleanups);
    const fake = await startFakeGithub(world, {
      tokens: {},
      app: { appId, publicKey, installationId },
      webhookSecret: secret,
    });
    cleanups.push(async () => {
      await fake.close();
      fake.assertNoViolations();
    });
    const port = await freePort();
    fake.hook.url = `http://127.0.0.1:${port}/api/github/webhooks`;
    const store = await durable(kind);
    const vars = {
      ...store.vars,
      PORT: String(port),
      APP_ID: String(appId),
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: secret,
      GHE_HOST: new URL(fake.url).host,
      GHE_PROTOCOL: 'http',
      BOT_LOGIN: 'blitz-bot[bot]',
    };
    const comment = (body: string) => {
      const c = world.addComment(repo, trigger, body, 'alice');
      const p = githubExample('issue_comment', 'created');
      const r = p.repository as Record<string, unknown>;
      Object.assign(r, {
        name: 'app',
        full_name: 'acme/app',
        owner: { ...(r.owner as object), login: 'acme' },
      });
      (p.issue as Record<string, unknown>).number = trigger;
      const pc = p.comment as Record<string, unknown>;
      Object.assign(pc, { id: c.id, body, user: { ...(pc.user as object), login: 'alice', type: 'User' } });
      p.sender = { ...(p.sender as object), login: 'alice', type: 'User' };
      p.installation = { id: installationId, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uODg=' };
      return p;
    };
    const noRun = () =>
      world
        .commentsOn(repo, trigger)
        .filter((c) => c.author === 'blitz-bot[bot]' && c.body === 'No blitz is running on this repository.');
    const attemptsOf = (guid: string) => fake.hook.attempts.filter((a) => a.guid === guid);

    // Up: a delivery taken live is never redelivered.
    const first = await boot(vars);
    const live = await fake.hook.deliver('issue_comment', comment('/blitz help'));
    expect(live.status).toBe('OK');
    await first.stop();

    // Down: GitHub cannot connect, and records the attempt as failed.
    const missed = await fake.hook.deliver('issue_comment', comment('/blitz status'));
    expect(missed).toMatchObject({ status: 'failed to connect', redelivery: false });

    const second = await boot(vars);
    await until('the missed status command answered', () => noRun().length > 0, { timeoutMs: 30_000 });
    await fake.hook.settled();
    expect(attemptsOf(missed.guid)).toMatchObject([
      { redelivery: false, status: 'failed to connect' },
      { redelivery: true, status: 'OK', status_code: 202 },
    ]);
    await second.stop();

    for (let i = 0; i < 2; i++) {
      const again = await boot(vars);
      expect((await again.recover()).redelivered).toEqual([]);
      await fake.hook.settled();
      await again.stop();
    }
    expect(noRun()).toHaveLength(1);
    expect(attemptsOf(missed.guid)).toHaveLength(2);
    expect(attemptsOf(live.guid)).toHaveLength(1);
    const ops = fake.requests.map((r) => r.operationId);
    expect(ops.filter((o) => o === 'apps/redeliver-webhook-delivery')).toHaveLength(1);
    expect(ops).toContain('apps/list-webhook-deliveries');
  }, 120_000);
});
