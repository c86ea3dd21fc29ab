// Gitea `[blitz]` milestone markers, looked for on each tick of the composed bot: the contract-checked
// fake Gitea (GET /user/repos paged, milestones), the real Gitea adapter and real SQLite stores.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hasBlitzMarker, markerDeliveryId, scanBlitzMarkers } from '../../src/compose/gitea-markers.ts';
import { createGiteaForge } from '../../src/forges/gitea/index.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { type FakeGitea, startFakeGitea } from '../support/fake-gitea/server.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { World } from '../support/world.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const setup = async () => {
  const world = new World('blitz-bot');
  // Three repositories and a page size of 2: the listing has to follow Gitea's paging.
  const app = world.addRepo('acme/app');
  const lib = world.addRepo('acme/lib');
  const docs = world.addRepo('acme/docs');
  // Private and not shared with the bot: never listed, never scanned.
  const secret = world.addRepo('other/secret', { private: true });
  secret.permissions.delete('blitz-bot');
  for (const r of [app, lib, docs]) world.grant(r, 'blitz-bot', 'admin');
  world.addMilestone(app, 'M1 [blitz]');
  world.addIssue(app, { title: 'work', milestone: 'M1 [blitz]' });
  world.addMilestone(app, 'M2');
  world.addIssue(app, { title: 'later', milestone: 'M2' });
  world.addMilestone(lib, 'Cleanup', { description: 'Tidy up. [BLITZ]' });
  world.addIssue(lib, { title: 'tidy', milestone: 'Cleanup' });
  // Marked but with no open issue: nothing to run.
  world.addMilestone(docs, 'Done [blitz]');
  world.addMilestone(secret, 'Hidden [blitz]');
  world.addIssue(secret, { title: 'hidden', milestone: 'Hidden [blitz]' });
  const fake: FakeGitea = await startFakeGitea(world, { maxPageSize: 2, defaultPageSize: 2 });
  cleanups.push(async () => {
    await fake.close();
    fake.assertNoViolations();
  });
  const forge = createGiteaForge({ url: fake.url, token: fake.token, botLogin: 'blitz-bot', pageSize: 2 });
  const dir = tempDir('blitz-markers-');
  const store = openSqliteStore(join(dir, 'blitz.db'));
  const runs = openSqliteRunStore(join(dir, 'blitz.db'));
  cleanups.push(async () => {
    await store.close();
    await runs.close();
    removeDir(dir);
  });
  const deps = { forge, store, runs, botLogin: 'blitz-bot', logger: silentLogger() };
  return { world, fake, forge, store, runs, deps };
};

describe('Gitea [blitz] milestone markers', () => {
  it('recognises the marker in title or description, in any case, and nothing else', () => {
    expect(hasBlitzMarker({ title: 'M1 [blitz]', description: '' })).toBe(true);
    expect(hasBlitzMarker({ title: 'M1', description: 'go [Blitz] go' })).toBe(true);
    expect(hasBlitzMarker({ title: 'blitz M1', description: '(blitz)' })).toBe(false);
  });

  it('lists the reachable repositories page by page through GET /user/repos', async () => {
    const { forge, fake } = await setup();
    const repos = await forge.listRepositories!();
    expect(repos.map((r) => `${r.owner}/${r.name}`).sort()).toEqual(['acme/app', 'acme/docs', 'acme/lib']);
    expect(fake.count('userCurrentListRepos')).toBe(2);
  });

  it('queues one /blitz intent per marked milestone with open issues, sent by the bot, and only once', async () => {
    const { store, deps } = await setup();
    expect(await scanBlitzMarkers(deps)).toBe(2);
    const intents = await store.listIntents({ forge: 'gitea' });
    expect(
      intents
        .map((i) => ({ repo: i.repo, command: i.command, sender: i.sender }))
        .sort((a, b) => a.repo.localeCompare(b.repo)),
    ).toEqual([
      {
        repo: 'acme/app',
        command: { name: 'blitz', milestone: expect.any(String), dryRun: false },
        sender: 'blitz-bot',
      },
      {
        repo: 'acme/lib',
        command: { name: 'blitz', milestone: expect.any(String), dryRun: false },
        sender: 'blitz-bot',
      },
    ]);
    // The next ticks find the same markers and queue nothing more.
    expect(await scanBlitzMarkers(deps)).toBe(0);
    expect(await store.listIntents({ forge: 'gitea' })).toHaveLength(2);
  });

  it('leaves a marked milestone alone while a run of it is live', async () => {
    const { store, runs, deps, forge } = await setup();
    const m1 = (await forge.listOpenMilestones({ owner: 'acme', name: 'app' })).find(
      (m) => m.title === 'M1 [blitz]',
    )!;
    await runs.createRun({
      id: 'run-live',
      forge: 'gitea',
      repo: 'acme/app',
      kind: 'blitz',
      milestoneNumber: m1.number,
      milestoneTitle: m1.title,
      slug: 'm1',
      options: { maxSessions: 1, dryRun: false, sender: 'alice' },
      state: 'running',
      integrationBranch: 'blitz/m1',
    });
    expect(await scanBlitzMarkers(deps)).toBe(1);
    const queued = await runs.listQueuedIntents();
    expect(queued.map((i) => i.repo)).toEqual(['acme/lib']);
    // The live run covered M1: its marker counts as taken, so the run ending starts nothing new.
    await runs.updateRun('run-live', { state: 'done' });
    expect(await scanBlitzMarkers(deps)).toBe(0);
    expect((await runs.listQueuedIntents()).map((i) => i.repo)).toEqual(['acme/lib']);
    const ids = (await store.listIntents({ forge: 'gitea' })).map((i) => i.deliveryId);
    expect(ids).toHaveLength(2);
    expect(ids).toContain(markerDeliveryId('acme/app', m1.number));
    expect(await scanBlitzMarkers(deps)).toBe(0);
  });
});
