// Trust boundaries, tried as an attacker would (issue 14), one test per attack, against the composed bot
// (compose/bot.ts, what `npm start` runs) on the contract-checked fake Gitea with a real bare origin and
// fake agents: each asserts nothing ran, merged or leaked. Gitea's bot here has no GITEA_BOT_LOGIN: it
// learns its login from its token. The bot-filed issue runs on the fake GitHub, whose GraphQL names an
// App author as GitHub does (`blitz-bot`, a Bot). Poison deliveries go through the real intake with an
// injected clock.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardMarker } from '../../src/dashboard/render.ts';
import { createDeliveryQueue } from '../../src/intake/delivery-queue.ts';
import { enqueueDelivery, resumeUnprocessed } from '../../src/intake/receive.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { runsPage } from '../../src/status/runs-page.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import { type FakeGitea, startFakeGitea } from '../support/fake-gitea/server.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { startPlanHarness } from '../support/plan-harness.ts';
import { bootComposed, type Cleanups, seedWorld, statusToken } from '../support/serve-harness.ts';
import { fixture, signedGiteaRequest } from '../support/signing.ts';
import { until } from '../support/until.ts';
import type { World, WorldRepo } from '../support/world.ts';

const giteaSecret = 'adversarial-gitea-webhook-secret';
const cleanups: Cleanups = [];

interface Booted {
  world: World;
  repo: WorldRepo;
  fake: FakeGitea;
  base: string;
  dir: string;
  trigger: number;
  runId: string;
}
let b: Booted;

/** A signed Gitea issue_comment from `login` on `issue` (default the control-room issue). */
const comment = async (
  body: string,
  login: string,
  opts: { deliveryId?: string; commentId?: number; issue?: number } = {},
) => {
  const number = opts.issue ?? b.trigger;
  const id = opts.commentId ?? b.world.addComment(b.repo, number, body, login).id;
  const p = fixture('gitea', 'issue_comment.created');
  const r = p.repository as Record<string, unknown>;
  Object.assign(r, { name: 'app', full_name: 'acme/app', owner: { ...(r.owner as object), login: 'acme' } });
  (p.issue as Record<string, unknown>).number = number;
  const pc = p.comment as Record<string, unknown>;
  Object.assign(pc, { id, body, user: { ...(pc.user as object), login } });
  p.sender = { ...(p.sender as object), login };
  const req = signedGiteaRequest({
    secret: giteaSecret,
    eventType: 'issue_comment',
    payload: p,
    deliveryId: opts.deliveryId ?? randomUUID(),
  });
  const res = await fetch(`${b.base}/api/gitea/webhooks`, {
    method: 'POST',
    body: req.body,
    headers: req.headers,
  });
  expect(res.status).toBeLessThan(300);
  return id;
};

const intents = async () => {
  const store = openSqliteStore(join(b.dir, 'blitz.db'));
  try {
    return await store.listIntents();
  } finally {
    await store.close();
  }
};

const page = async (path: string) => {
  const res = await fetch(`${b.base}${path}`, { headers: { authorization: `Bearer ${statusToken}` } });
  expect(res.status, path).toBe(200);
  return res.text();
};

describe('attacks on the composed bot (Gitea, no GITEA_BOT_LOGIN)', () => {
  beforeAll(async () => {
    const { world, origin, repo, trigger } = await seedWorld('blitz-bot', 'M1', cleanups);
    world.grant(repo, 'helper-bot', 'read');
    const fake = await startFakeGitea(world, { cloneUrl: () => origin.bareDir });
    cleanups.push(async () => {
      await fake.close();
      fake.assertNoViolations();
    });
    // The worker prints the bot's secrets in its report (as a prompt-injected worker would).
    const { port, dir } = await bootComposed(
      {
        GITEA_URL: fake.url,
        GITEA_TOKEN: fake.token,
        GITEA_WEBHOOK_SECRET: giteaSecret,
        BLITZ_ALLOWED_BOTS: 'helper-bot',
      },
      cleanups,
      undefined,
      {
        FAKE_AGENT_BUG: `found GITEA_TOKEN=${fake.token} and Authorization: token ${fake.token} and ${statusToken} and ${giteaSecret}`,
      },
    );
    b = { world, repo, fake, base: `http://127.0.0.1:${port}`, dir, trigger, runId: '' };
    await comment('/blitz M1', 'alice');
    await until(
      'both milestone issues closed',
      () => [1, 2].every((n) => world.issue(repo, n)?.state === 'closed'),
      { timeoutMs: 150_000 },
    );
    const runs = openSqliteRunStore(join(dir, 'blitz.db'));
    b.runId = (await runs.listRuns())[0]!.id;
    await runs.close();
  }, 240_000);
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('a secret printed by a worker is on no status page, in no report.html and in no comment or issue', async () => {
    const secrets = [b.fake.token, statusToken, giteaSecret];
    const texts: [string, string][] = [];
    for (const path of [
      '/',
      `/runs/${b.runId}`,
      `/runs/${b.runId}/attempts/1`,
      `/runs/${b.runId}/attempts/2`,
      `/runs/${b.runId}/report.html`,
    ])
      texts.push([path, await page(path)]);
    for (const issue of b.repo.issues.values()) {
      texts.push([`#${issue.number} body`, `${issue.title}\n${issue.body}`]);
      for (const c of b.world.commentsOn(b.repo, issue.number))
        texts.push([`comment on #${issue.number}`, c.body]);
    }
    // The worker did print them: its report was relayed (the out-of-scope bug became an issue).
    expect(texts.some(([, t]) => t.includes('found GITEA_TOKEN=[redacted]'))).toBe(true);
    for (const [where, text] of texts) for (const s of secrets) expect(text, where).not.toContain(s);
  });

  it('learns its own login without GITEA_BOT_LOGIN: one dashboard, edited, never re-posted', async () => {
    const dashboards = b.world
      .commentsOn(b.repo, b.trigger)
      .filter((c) => c.body.includes(dashboardMarker(b.runId)));
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]!.author).toBe('blitz-bot');
    // Learnt once, at start (GET /user), and kept.
    expect(b.fake.count('userGetCurrent')).toBe(1);
    expect(b.fake.count('issueEditComment')).toBeGreaterThan(0);
  });

  it('does not obey a /merge (or any command) in a comment of its own', async () => {
    const before = (await intents()).length;
    await comment('Review done. Everything looks fine.\n/merge\n/blitz cancel', 'blitz-bot');
    await until('the delivery processed', async () => (await page('/')).length > 0, { timeoutMs: 150_000 });
    expect((await intents()).length).toBe(before);
  });

  it('a comment replayed under a new delivery id runs nothing', async () => {
    const id = await comment('/blitz status', 'alice');
    await until(
      'the first delivery stored its intent',
      async () => (await intents()).some((i) => i.deliveryId === `comment:${id}`),
      { timeoutMs: 150_000 },
    );
    // What a replay could add: another intent. An intent's status moves on when the first one is
    // drained (queued → done), which is not the replay's doing, so it is left out of the comparison.
    const recorded = async () =>
      (await intents()).map(({ id, deliveryId, seq, command, sender }) => ({
        id,
        deliveryId,
        seq,
        command,
        sender,
      }));
    const before = await recorded();
    await comment('/blitz status', 'alice', { commentId: id });
    await comment('/blitz status', 'alice', { commentId: id });
    // Give the intake the time to process both (they are queued after the response), then compare.
    await until(
      'replays processed',
      async () => {
        const store = openSqliteStore(join(b.dir, 'blitz.db'));
        try {
          return (await store.listDeliveries({ forge: 'gitea' })).every(
            (d) => d.outcome !== 'accepted' || d.processedAt,
          );
        } finally {
          await store.close();
        }
      },
      { timeoutMs: 150_000 },
    );
    expect(await recorded()).toEqual(before);
  });

  it('an allow-listed bot with read permission is refused like a person', async () => {
    const before = (await intents()).length;
    await comment('/blitz M1', 'helper-bot');
    await until(
      'the refusal was posted',
      () =>
        b.world
          .commentsOn(b.repo, b.trigger)
          .some((c) => c.author === 'blitz-bot' && c.body.includes('@helper-bot')),
      { timeoutMs: 150_000 },
    );
    expect((await intents()).length).toBe(before);
  });

  it('bidi overrides and NUL in a quoted command are stripped from the reply', async () => {
    await comment('/blitz --max \u202Eevil\u0000 M1', 'alice');
    let reply: string | undefined;
    await until(
      'the usage reply was posted',
      () => {
        reply = b.world
          .commentsOn(b.repo, b.trigger)
          .find((c) => c.author === 'blitz-bot' && c.body.includes('I could not run this command'))?.body;
        return reply !== undefined;
      },
      { timeoutMs: 150_000 },
    );
    expect(reply).toContain('evil');
    expect(reply).not.toContain('\u202E');
    expect(reply).not.toContain('\u0000');
  });
});

describe('attacks on trust (GitHub)', () => {
  let h: BlitzHarness | undefined;
  afterAll(async () => h?.close());

  it('an issue the bot filed itself (GraphQL names it `blitz-bot`, a Bot) is trusted and worked', async () => {
    h = await startBlitzHarness({
      forge: 'github',
      issues: [
        { number: 1, title: 'Bug a worker reported', body: 'Fix `src/a.ts`.', author: 'blitz-bot[bot]' },
      ],
    });
    const x = h;
    await x.comment('/blitz M1', 'alice');
    await x.drive(async () => x.world.issue(x.repo, 1)?.state === 'closed');
    const runId = (await x.liveRun().then((r) => r?.id)) ?? (await x.bot.runs.listRuns())[0]!.id;
    expect((await x.bot.runs.ledger.listByRun(runId)).map((a) => a.issue.number)).toEqual([1]);
  }, 120_000);
});

describe('attacks on plan-blitz', () => {
  it('a read-only author’s issue with a blitz/approved label from before the run is held, never planned', async () => {
    const h = await startPlanHarness({
      forge: 'github',
      issues: [
        {
          number: 1,
          title: 'Outside idea',
          body: 'fake-size: XS\nAdd `src/b.ts`.',
          author: 'rita',
          labels: ['blitz/approved'],
        },
      ],
    });
    try {
      await h.comment('/plan-blitz M1');
      const run = await h.driveToStop(60_000);
      // No sizing planner, no worker: the label was there before the run, not added by a writer during it.
      expect(await h.runs.ledger.listByRun(run.id)).toEqual([]);
      expect(h.world.issue(h.repo, 1)!.labels).toEqual(['blitz/approved']);
    } finally {
      await h.close();
    }
  }, 120_000);
});

describe('poison deliveries', () => {
  it('a delivery whose processing keeps failing is retried with backoff, then marked failed, and the queue moves on', async () => {
    const dir = tempDir('blitz-poison-');
    const store = openSqliteStore(join(dir, 'blitz.db'));
    let now = new Date('2026-12-01T08:00:00Z');
    const clock = { now: () => now };
    const metrics = createMetrics();
    const queue = createDeliveryQueue({ logger: silentLogger() });
    const processed: string[] = [];
    const deps = {
      store,
      queue,
      metrics,
      logger: silentLogger(),
      clock,
      retry: { maxAttempts: 3, baseSeconds: 10, maxSeconds: 60 },
      // A repository the bot cannot read: the permission lookup answers 500 every time.
      process: async (w: { deliveryId: string }) => {
        if (w.deliveryId === 'poison') throw new Error('GET /collaborators/x/permission answered 500');
        processed.push(w.deliveryId);
      },
    };
    for (const id of ['poison', 'good-1']) {
      await store.recordDelivery({
        forge: 'gitea',
        deliveryId: id,
        event: 'issue_comment',
        outcome: 'accepted',
        events: [],
      });
      enqueueDelivery(deps, { forge: 'gitea', deliveryId: id, events: [] });
    }
    await queue.idle();
    // The good delivery behind it was processed: the poison one held nothing up.
    expect(processed).toEqual(['good-1']);
    const tries = async () => (await store.listDeliveries({ deliveryId: 'poison' }))[0]!;
    expect((await tries()).attempts).toBe(1);

    // Before its backoff ran out it is not tried again.
    now = new Date(now.getTime() + 5_000);
    expect(await resumeUnprocessed(deps)).toBe(0);
    // After it, it is (and fails again); the wait doubles.
    now = new Date(now.getTime() + 6_000);
    expect(await resumeUnprocessed(deps)).toBe(1);
    await queue.idle();
    expect((await tries()).attempts).toBe(2);
    now = new Date(now.getTime() + 15_000);
    expect(await resumeUnprocessed(deps)).toBe(0);
    now = new Date(now.getTime() + 6_000);
    expect(await resumeUnprocessed(deps)).toBe(1);
    await queue.idle();

    // Third failure: given up on, never replayed, shown on the status page and in /metrics.
    const failed = await tries();
    expect(failed).toMatchObject({ attempts: 3, failedAt: now.toISOString() });
    expect(failed.error).toContain('500');
    now = new Date(now.getTime() + 3600_000);
    expect(await resumeUnprocessed(deps)).toBe(0);
    expect((await store.listFailedDeliveries()).map((d) => d.deliveryId)).toEqual(['poison']);
    expect(String(runsPage([], await store.listFailedDeliveries()))).toContain('poison');
    const text = await metrics.registry.metrics();
    expect(text).toContain('blitz_webhook_delivery_failures_total{forge="gitea",outcome="retry"} 2');
    expect(text).toContain('blitz_webhook_delivery_failures_total{forge="gitea",outcome="failed"} 1');
    await store.close();
    removeDir(dir);
  });
});
