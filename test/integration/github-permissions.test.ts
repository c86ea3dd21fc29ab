// slow: a milestone blitzed on the in-process bot with real git, fake agents and a fake CI, twice.
// Issue 37: a GitHub App installation without a permission the bot needs is a named state. The bot is
// an App installation here (a JWT, then installation tokens the fake GitHub mints with what the
// installation holds at that moment; a refusal is GitHub's 403 with `X-Accepted-GitHub-Permissions`, or
// FORBIDDEN nodes in a GraphQL rollup). Without `checks` the run stops BLOCKED with one notice naming
// `checks:read` and the installation's settings page; an owner granting it changes nothing for the
// token the bot holds, until GitHub's signed `installation.new_permissions_accepted` webhook: then the
// run goes on by itself and merges. Without `checks: write` alone the bot reports as a commit status,
// says so once and merges. A ticket fleet blocks and goes on the same way, and merges on a writer's word.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunNotice } from '../../src/ship/notice.ts';
import { closeCiWorld, type FakeCi, startFakeCi } from '../support/fake-ci.ts';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';
import { githubExample } from '../support/signing.ts';
import {
  expectMilestoneFinished,
  startUnattendedWorld,
  type UnattendedWorld,
} from '../support/unattended-world.ts';
import { checksOf } from '../support/world-checks.ts';

const installationId = 77;
const oneIssue = [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }];

let w: UnattendedWorld | undefined;
let fh: FleetHarness | undefined;
let ci: FakeCi | undefined;
afterEach(async () => {
  if (fh) await closeCiWorld(ci, fh);
  else await ci?.close();
  await w?.close();
  if (w) await checksOf(w.world).close();
  ci = undefined;
  w = undefined;
  fh = undefined;
});

/** GitHub's `installation.new_permissions_accepted` for the bot's installation, covering acme/app. */
const permissionsAccepted = (fakeUrl: string, repoId: number): Record<string, unknown> => {
  const p = githubExample('installation', 'new_permissions_accepted');
  const inst = p.installation as Record<string, unknown>;
  Object.assign(inst, {
    id: installationId,
    account: { ...(inst.account as object), login: 'acme' },
    html_url: `${fakeUrl}/settings/installations/${installationId}`,
  });
  const [repo] = p.repositories as Record<string, unknown>[];
  p.repositories = [{ ...repo, id: repoId, name: 'app', full_name: 'acme/app' }];
  p.sender = { ...(p.sender as object), login: 'acme', type: 'User' };
  return p;
};

/** The bot's `blitz` check runs and commit statuses on the merged PR's head. */
const ownReportsOnPr = (x: UnattendedWorld) => {
  const pr = [...x.repo.issues.values()].find((i) => i.pull);
  const sha = pr?.pull?.headSha ?? '';
  const checks = checksOf(x.world);
  return {
    merged: pr?.pull?.merged === true,
    runs: checks.runsFor(x.repo, sha).filter((r) => r.name === 'blitz'),
    statuses: checks.latestStatuses(x.repo, sha).filter((s) => s.context === 'blitz'),
  };
};

describe('a GitHub App installation without a permission the bot needs', () => {
  it('without checks the run stops BLOCKED with one notice naming checks:read and the settings page; new_permissions_accepted lets it go on and merge', async () => {
    w = await startUnattendedWorld({
      forge: 'github',
      issues: oneIssue,
      githubApp: { installationId, permissions: { checks: 'none' } },
      // CI must report before anything merges: the bot has to read its check run.
      files: { 'test.sh': 'echo ok\n', '.github/blitz.yml': 'ci:\n  wait: always\n  settleSeconds: 0\n' },
    });
    const x = w;
    const fake = x.h.fakeGithub!;
    ci = await startFakeCi({
      world: x.world,
      repo: x.repo,
      bareDir: x.h.origin.bareDir,
      forge: 'github',
      allBranches: true,
    });
    await x.start();
    await x.driveToState('blocked', 40_000);
    const page = `${fake.url}/settings/installations/${installationId}`;
    const [blocked] = x.noticesOf('blocked');
    expect(blocked?.sentence).toContain('`checks:read`');
    expect(blocked?.sentence).toContain(page);
    expect(blocked?.sentence).toMatch(/goes on by itself/);
    // GitHub refused it as GitHub does: a 403 to the REST read of the head's check runs.
    expect(fake.requests.some((r) => r.operationId === 'checks/list-for-ref' && r.status === 403)).toBe(true);
    // The owner grants it on GitHub: the token the bot holds still lacks it, so the run stays blocked
    // (and says nothing more) until GitHub's webhook says the permissions were accepted.
    fake.setPermission('checks', 'write');
    for (let i = 0; i < 2; i++) {
      x.clock.advance(60_000);
      await x.round();
    }
    expect((await x.run())!.state).toBe('blocked');
    expect(ownReportsOnPr(x).merged).toBe(false);
    await x.h.githubWebhook('installation', permissionsAccepted(fake.url, x.repo.id));
    await expectMilestoneFinished(x, [1]);
    expect(x.noticesOf('blocked')).toHaveLength(1);
    // Its own check run was refused too: reported as a commit status meanwhile, said once.
    const warnings = x.noticesOf('warning').filter((n) => n.sentence.includes('`checks:write`'));
    expect(warnings).toHaveLength(1);
    expect((await x.run())!.progress.hardBlocker).toBeUndefined();
  }, 120_000);

  it('without checks:write the bot reports as a commit status, says so once, and the run merges', async () => {
    w = await startUnattendedWorld({
      forge: 'github',
      issues: oneIssue,
      githubApp: { installationId, permissions: { checks: 'read' } },
    });
    const x = w;
    await x.start();
    await expectMilestoneFinished(x, [1]);
    const warnings = x.noticesOf('warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.sentence).toContain('`checks:write`');
    expect(warnings[0]?.sentence).toMatch(/commit status/);
    expect(x.noticesOf('blocked')).toHaveLength(0);
    const own = ownReportsOnPr(x);
    expect(own.merged).toBe(true);
    expect(own.runs).toEqual([]);
    expect(own.statuses.map((s) => s.state)).toEqual(['success']);
  }, 120_000);

  it('a ticket fleet without checks stops BLOCKED the same way; new_permissions_accepted lets it go on and merge', async () => {
    const notices: RunNotice[] = [];
    fh = await startFleetHarness({
      forge: 'github',
      issues: { app: [{ number: 1, title: 'First', body: 'Add `fake-1.txt`.' }], lib: [] },
      githubApp: { installationId, permissions: { checks: 'none' } },
      files: { app: { 'test.sh': 'echo ok\n' } },
      repoConfig: { app: 'ci:\n  wait: always\n  settleSeconds: 0\n' },
      notifiers: [
        {
          target: 'phone',
          events: new Set(['blocked', 'warning']),
          notify: async (n) => {
            notices.push(n);
            return { ok: true, target: 'phone', attempts: 1 };
          },
        },
      ],
    });
    const x = fh;
    const fake = x.fakeGithub!;
    ci = await startFakeCi({
      world: x.world,
      repo: x.repos.app,
      bareDir: x.origins.app.bareDir,
      forge: 'github',
      allBranches: true,
    });
    const blockedNotices = () => notices.filter((n) => n.event === 'blocked');
    const pr = () => [...x.repos.app.issues.values()].find((i) => i.pull && i.title.startsWith('#1:'));
    await x.comment('/ticket-fleet #1', 'alice');
    await x.drive(async () => (await x.fleetRun())?.state === 'blocked', 60_000);
    const page = `${fake.url}/settings/installations/${installationId}`;
    const [blocked] = blockedNotices();
    expect(blocked?.sentence).toContain('`checks:read`');
    expect(blocked?.sentence).toContain(page);
    expect(blocked?.sentence).toMatch(/goes on by itself/);
    expect(blocked?.command).toBe('/ticket-fleet resume');
    expect(fake.requests.some((r) => r.operationId === 'checks/list-for-ref' && r.status === 403)).toBe(true);
    // A fleet has no milestone: no blocker issue is filed.
    expect([...x.repos.app.issues.values()].filter((i) => i.title.includes('BLOCKED'))).toEqual([]);
    // Granted on GitHub, but the bot's token still lacks it: blocked, and nothing more is said.
    fake.setPermission('checks', 'write');
    for (let i = 0; i < 2; i++) await x.round();
    expect((await x.fleetRun())!.state).toBe('blocked');
    await x.githubWebhook('installation', permissionsAccepted(fake.url, x.repos.app.id));
    await x.drive(async () => (await x.fleetRun())?.state === 'running');
    // A writer's word merges the ticket's PR once its CI is read green.
    await x.comment('/merge', 'alice', pr()!.number, x.repos.app);
    await x.drive(() => pr()?.pull?.merged === true, 60_000);
    expect(blockedNotices()).toHaveLength(1);
    const run = (await x.fleetRun())!;
    expect(run.progress.hardBlocker).toBeUndefined();
  }, 180_000);
});
