// Slow for a reason: the whole composed bot runs two milestones to the end over HTTP and real git.
// Acceptance of the composed bot itself (compose/bot.ts, what `npm start` runs): booted in-process
// from an env and a blitz.config.yml, against the contract-checked fake GitHub with real App auth
// (JWT → installation lookup by repo → installation token), a real bare origin and fake agents that
// commit and push. A signed `/blitz M1` goes over real HTTP to the bot's port; nothing is driven by
// hand: the bot's own cron and supervision ticks carry the run to the end. On Gitea, which sends no
// milestone webhook, a `[blitz]` marker in the milestone title starts the run on the bot's own tick.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bot } from '../../src/compose/bot.ts';
import { dashboardMarker } from '../../src/dashboard/render.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { memoryLogger } from '../support/blitz-harness.ts';
import { startFakeGitea } from '../support/fake-gitea/server.ts';
import { appKeyPair } from '../support/fake-github/app-tokens.ts';
import { type FakeGithub, startFakeGithub } from '../support/fake-github/server.ts';
import { bootComposed, type Cleanups, seedWorld, statusToken } from '../support/serve-harness.ts';
import { githubExample, signedGithubRequest } from '../support/signing.ts';
import { until } from '../support/until.ts';
import type { World } from '../support/world.ts';

const secret = 'serve-e2e-webhook-secret';
const appId = 4242;
const installationId = 77;

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Booted {
  bot: Bot;
  port: number;
  world: World;
  fake: FakeGithub;
  dir: string;
  trigger: number;
  logs: string[];
  privateKey: string;
}

const bootGithub = async (): Promise<Booted> => {
  const { publicKey, privateKey } = appKeyPair();
  const { world, origin, trigger } = await seedWorld('blitz-bot[bot]', 'M1', cleanups);
  const fake = await startFakeGithub(world, {
    tokens: {},
    app: { appId, publicKey, installationId },
    cloneUrl: () => origin.bareDir,
  });
  cleanups.push(async () => {
    await fake.close();
    fake.assertNoViolations();
  });
  const logs = memoryLogger();
  const { bot, port, dir } = await bootComposed(
    {
      APP_ID: String(appId),
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: secret,
      GHE_HOST: new URL(fake.url).host,
      GHE_PROTOCOL: 'http',
      BOT_LOGIN: 'blitz-bot[bot]',
    },
    cleanups,
    logs.logger,
  );
  return { bot, port, world, fake, dir, trigger, logs: logs.lines, privateKey };
};

const blitzComment = (b: Booted, body: string) => {
  const repo = b.world.repo('acme', 'app')!;
  const c = b.world.addComment(repo, b.trigger, body, 'alice');
  const p = githubExample('issue_comment', 'created');
  const r = p.repository as Record<string, unknown>;
  Object.assign(r, { name: 'app', full_name: 'acme/app', owner: { ...(r.owner as object), login: 'acme' } });
  (p.issue as Record<string, unknown>).number = b.trigger;
  const pc = p.comment as Record<string, unknown>;
  Object.assign(pc, { id: c.id, body, user: { ...(pc.user as object), login: 'alice', type: 'User' } });
  p.sender = { ...(p.sender as object), login: 'alice', type: 'User' };
  p.installation = { id: installationId, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc=' };
  return signedGithubRequest({ secret, event: 'issue_comment', payload: p });
};

describe('the composed bot (serve) on GitHub', () => {
  it('takes a signed /blitz M1 over HTTP and closes the milestone by itself; dashboard once, metrics and status pages', async () => {
    const b = await bootGithub();
    const base = `http://127.0.0.1:${b.port}`;
    const published: string[] = [];
    b.bot.runEvents.subscribe((runId) => published.push(runId));
    const req = blitzComment(b, '/blitz M1');
    const res = await fetch(`${base}/api/github/webhooks`, {
      method: 'POST',
      body: req.body,
      headers: req.headers,
    });
    expect(res.status).toBeLessThan(300);

    const repo = b.world.repo('acme', 'app')!;
    await until(
      'both milestone issues closed',
      () => [1, 2].every((n) => b.world.issue(repo, n)?.state === 'closed'),
      { timeoutMs: 150_000 },
    );
    for (const n of [1, 2]) expect(b.world.count('close', 'acme/app', n), `#${n} closed once`).toBe(1);
    // #2 was blocked by #1: it was closed after it.
    const closeAt = (n: number) => b.world.log.findIndex((e) => e.action === 'close' && e.target === n);
    expect(closeAt(2)).toBeGreaterThan(closeAt(1));

    // The signed command named its installation: the run it started took that one, without asking
    // which installation covers the repository, and minted its token.
    const ops = b.fake.requests.map((r) => r.operationId);
    expect(ops).not.toContain('apps/get-repo-installation');
    expect(ops).toContain('apps/create-installation-access-token');

    const runs = openSqliteRunStore(join(b.dir, 'blitz.db'));
    cleanups.push(() => runs.close());
    const run = (await runs.listRuns())[0]!;
    expect(run.repo).toBe('acme/app');
    const dashboards = b.world
      .commentsOn(repo, b.trigger)
      .filter((c) => c.body.includes(dashboardMarker(run.id)));
    expect(dashboards).toHaveLength(1);

    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/blitz_webhook_deliveries_total\{[^}]*\} [1-9]/);
    expect(metrics).toMatch(/blitz_runs\{[^}]*\} [1-9]/);
    expect(metrics).toMatch(/blitz_forge_requests_total\{[^}]*forge="github"[^}]*outcome="ok"[^}]*\} [1-9]/);

    const refused = await fetch(`${base}/`);
    expect(refused.status).toBe(401);
    const page = await fetch(`${base}/`, { headers: { authorization: `Bearer ${statusToken}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(run.id);
    // The status pages were told of the run's changes, with the orchestrator's dashboard view.
    expect(published).toContain(run.id);
    expect(
      b.bot.runEvents
        .latestDashboard(run.id)
        ?.issues.map((i) => i.number)
        .sort(),
    ).toEqual([1, 2]);
    const runPage = await fetch(`${base}/runs/${run.id}`, {
      headers: { authorization: `Bearer ${statusToken}` },
    });
    expect(runPage.status).toBe(200);
    expect(await runPage.text()).toContain('The data model');

    // Lines a reconcile pass writes carry the run and its repository; no secret reaches the log.
    const lines = b.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const dispatched = lines.filter((l) => l.msg === 'issue dispatched');
    expect(dispatched).toHaveLength(2);
    for (const l of dispatched) expect(l).toMatchObject({ runId: run.id, repo: 'acme/app' });
    const text = b.logs.join('');
    expect(text).not.toMatch(/ghs_[0-9a-f]{24}/);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(b.privateKey.split('\n')[1]!);
  }, 200_000);
});

describe('the composed bot (serve) on Gitea', () => {
  it('finds a [blitz] milestone on its own tick and closes it, once, with no command sent', async () => {
    const { world, origin, repo } = await seedWorld('blitz-bot', 'M1 [blitz]', cleanups);
    const fake = await startFakeGitea(world, { cloneUrl: () => origin.bareDir });
    cleanups.push(async () => {
      await fake.close();
      fake.assertNoViolations();
    });
    const { port, dir } = await bootComposed(
      {
        GITEA_URL: fake.url,
        GITEA_TOKEN: fake.token,
        GITEA_WEBHOOK_SECRET: 'serve-e2e-gitea-secret',
        GITEA_BOT_LOGIN: 'blitz-bot',
      },
      cleanups,
    );
    await until(
      'both milestone issues closed',
      () => [1, 2].every((n) => world.issue(repo, n)?.state === 'closed'),
      { timeoutMs: 150_000 },
    );
    for (const n of [1, 2]) expect(world.count('close', 'acme/app', n), `#${n} closed once`).toBe(1);
    expect(fake.count('userCurrentListRepos')).toBeGreaterThan(0);
    const runs = openSqliteRunStore(join(dir, 'blitz.db'));
    cleanups.push(() => runs.close());
    // Later ticks still see the marker (the milestone stays open), but it started exactly one run:
    // waited for by the marker scans themselves (each tick lists the repositories first).
    const scans = fake.count('userCurrentListRepos');
    await until('three more ticks', () => fake.count('userCurrentListRepos') >= scans + 3, {
      timeoutMs: 150_000,
    });
    const all = await runs.listRuns();
    expect(all.map((r) => ({ forge: r.forge, repo: r.repo, milestone: r.milestoneTitle }))).toEqual([
      { forge: 'gitea', repo: 'acme/app', milestone: 'M1 [blitz]' },
    ]);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  }, 200_000);
});
