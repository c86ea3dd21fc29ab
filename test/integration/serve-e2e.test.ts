// Acceptance of the composed bot itself (compose/bot.ts, what `npm start` runs): booted in-process
// from an env and a blitz.config.yml, against the contract-checked fake GitHub with real App auth
// (JWT → installation lookup by repo → installation token), a real bare origin and fake agents that
// commit and push. A signed `/blitz M1` goes over real HTTP to the bot's port; nothing is driven by
// hand: the bot's own cron and supervision ticks carry the run to the end.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type Bot, composeBot } from '../../src/compose/bot.ts';
import { loadBlitzConfig } from '../../src/config/blitz-config.ts';
import { loadEnv } from '../../src/config/env.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { dashboardMarker } from '../../src/orchestrator/dashboard.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { type FakeGithub, startFakeGithub } from '../support/fake-github/server.ts';
import { removeDir, tempDir, testEnv } from '../support/git.ts';
import { githubExample, signedGithubRequest } from '../support/signing.ts';
import { World } from '../support/world.ts';
import { createRealGitRepo, type RealGitRepo } from '../support/world-git.ts';

const fakeAgent = join(import.meta.dirname, '..', 'support', 'fake-agents', 'fake-agent.mjs');
const secret = 'serve-e2e-webhook-secret';
const statusToken = 'serve-e2e-status-token-0123456789';
const appId = 4242;
const installationId = 77;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const until = async (what: string, done: () => Promise<boolean> | boolean, timeoutMs = 150_000) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await done()) return;
    await sleep(250);
  }
  throw new Error(`${what}: not reached in ${timeoutMs} ms`);
};

interface Booted {
  bot: Bot;
  port: number;
  world: World;
  fake: FakeGithub;
  origin: RealGitRepo;
  dir: string;
  trigger: number;
}

const bootGithub = async (): Promise<Booted> => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const world = new World('blitz-bot[bot]');
  const origin = await createRealGitRepo({ files: { 'README.md': '# app\n' } });
  cleanups.push(() => origin.cleanup());
  const repo = world.addRepo('acme/app', { git: origin.git });
  world.grant(repo, 'blitz-bot[bot]', 'write');
  world.grant(repo, 'alice', 'write');
  world.addMilestone(repo, 'M1');
  world.addIssue(repo, { number: 1, title: 'The data model', body: 'Add `src/a.ts`.', milestone: 'M1' });
  world.addIssue(repo, {
    number: 2,
    title: 'The store',
    body: 'Add `src/b.ts`.',
    milestone: 'M1',
    blockedBy: [1],
  });
  const trigger = world.addIssue(repo, { title: 'Blitz control room', author: 'alice' }).number;
  const fake = await startFakeGithub(world, {
    tokens: {},
    app: { appId, publicKey, installationId },
    cloneUrl: () => origin.bareDir,
  });
  cleanups.push(async () => {
    await fake.close();
    fake.assertNoViolations();
  });

  const dir = tempDir('blitz-serve-e2e-');
  cleanups.push(() => removeDir(dir));
  const configPath = join(dir, 'blitz.config.yml');
  writeFileSync(
    configPath,
    stringify({
      runner: { workspace: join(dir, 'workspace'), maxSessions: 2, retries: 0, attemptTimeoutMinutes: 10 },
      roster: [
        {
          name: 'fake',
          tool: 'custom',
          command: [process.execPath, fakeAgent, '{prompt_file}'],
          resume: [process.execPath, fakeAgent, '--resume', '{prompt_file}'],
          roles: ['blitz'],
          tiers: ['execution', 'design', 'subtle'],
        },
      ],
      modelNotesPath: join(dir, 'models.md'),
    }),
  );
  const env = loadEnv({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: `sqlite:${join(dir, 'blitz.db')}`,
    APP_ID: String(appId),
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: secret,
    GHE_HOST: new URL(fake.url).host,
    GHE_PROTOCOL: 'http',
    BOT_LOGIN: 'blitz-bot[bot]',
    BLITZ_CONFIG: configPath,
    STATUS_TOKEN: statusToken,
  });
  const bot = await composeBot({
    env,
    // As serve does: the file named by BLITZ_CONFIG.
    config: loadBlitzConfig(env.BLITZ_CONFIG, {}),
    logger: silentLogger(),
    version: '0.0.0-e2e',
    baseEnv: testEnv(),
    notifyTargets: {},
    tickSeconds: 1,
    supervisionSeconds: 1,
    defaultMetrics: false,
  });
  const { port } = await bot.start();
  cleanups.push(() => bot.stop());
  return { bot, port, world, fake, origin, dir, trigger };
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
    await until('both milestone issues closed', () =>
      [1, 2].every((n) => b.world.issue(repo, n)?.state === 'closed'),
    );
    for (const n of [1, 2]) expect(b.world.count('close', 'acme/app', n), `#${n} closed once`).toBe(1);
    // #2 was blocked by #1: it was closed after it.
    const closeAt = (n: number) => b.world.log.findIndex((e) => e.action === 'close' && e.target === n);
    expect(closeAt(2)).toBeGreaterThan(closeAt(1));

    // The run was started from a stored command (no installation id): the bot asked which installation covers the repo.
    const ops = b.fake.requests.map((r) => r.operationId);
    expect(ops).toContain('apps/get-repo-installation');
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
  }, 200_000);
});
