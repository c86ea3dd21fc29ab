// `/plan-blitz` commands through the real intake on the fake GitHub: what starts, what is refused and
// what is answered, each with nothing changed that should not be.
import { afterEach, describe, expect, it } from 'vitest';
import { type PlanHarness, startPlanHarness } from '../support/plan-harness.ts';

let h: PlanHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const issues = [
  { number: 1, title: 'Store', body: 'A store.', labels: ['size/M'] },
  { number: 2, title: 'API', body: 'Routes.', labels: ['size/L'], blockedBy: [1] },
  { number: 3, title: 'Held one', body: 'Later.', labels: ['size/S', 'hold'] },
];

describe('/plan-blitz commands', () => {
  it('refuses a targeted run when no target matches, names each one, and starts nothing', async () => {
    h = await startPlanHarness({ forge: 'github', issues });
    const pr = h.world.addIssue(h.repo, { title: 'a PR', author: 'alice' });
    pr.pull = { head: 'x', base: 'main', headSha: 'abc', merged: false };
    await h.comment(`/plan-blitz #999 #${pr.number} other/repo#1`);
    await h.round();
    expect(await h.runs.listRuns()).toEqual([]);
    const reply = h.world.commentsOn(h.repo, h.trigger).at(-1)!.body;
    expect(reply).toContain('no target could be matched, so nothing was started');
    expect(reply).toContain('#999: no such issue');
    expect(reply).toContain(`#${pr.number}: a pull request, not an issue`);
    expect(reply).toContain('other/repo#1: not an issue of this repository');
  });

  it('refuses an unknown milestone and starts nothing', async () => {
    h = await startPlanHarness({ forge: 'github', issues });
    await h.comment('/plan-blitz Nowhere');
    await h.round();
    expect(await h.runs.listRuns()).toEqual([]);
    expect(h.world.commentsOn(h.repo, h.trigger).at(-1)!.body).toMatch(/^plan-blitz: /);
  });

  it('a dry run posts the first wave with lanes, the holds and what waits, and runs nothing', async () => {
    h = await startPlanHarness({
      forge: 'github',
      issues,
      labels: [{ name: 'hold', description: 'not this quarter' }],
    });
    await h.comment('/plan-blitz M1 --dry-run');
    const run = await h.driveToStop(30_000);
    expect(run.state).toBe('done');
    expect(await h.runs.ledger.listByRun(run.id)).toEqual([]);
    const plan = h.world
      .commentsOn(h.repo, h.trigger)
      .find((c) => c.body.includes('plan-blitz dry run'))!.body;
    expect(plan).toContain('- #1: lane M');
    expect(plan).not.toContain('- #2: lane');
    expect(plan).toContain('#3: not this quarter');
    expect(plan).toContain('acme/app#2 is not ready because it is blocked by open acme/app#1');
    expect(h.world.issue(h.repo, 1)!.labels).toEqual(['size/M']);
  });

  it("/plan-blitz resume is the plan run's own resume: a paused plan run goes on, and none running is said", async () => {
    h = await startPlanHarness({ forge: 'github', issues });
    const replies = () => h!.world.commentsOn(h!.repo, h!.trigger).map((c) => c.body);
    await h.comment('/plan-blitz resume');
    await h.round();
    expect(replies().at(-1)).toBe('No plan-blitz is running on this repository.');
    // The pause queued behind the start, taken in the same drain: a quick plan run has no round in
    // which to finish first.
    await h.comment('/plan-blitz M1');
    await h.comment('/blitz pause');
    await h.round();
    const run = (await h.latestRun())!;
    expect((await h.runs.getRun(run.id))!.state).toBe('paused');
    await h.comment('/plan-blitz resume');
    await h.round();
    expect(replies().some((b) => b.startsWith('Resumed the plan-blitz of **M1**'))).toBe(true);
    // Going on (a quick plan run may even have finished in that round), never paused any more.
    expect((await h.runs.getRun(run.id))!.state).not.toBe('paused');
    await h.driveToStop();
  });

  it('a second /plan-blitz on a milestone with a live run is answered, not started twice', async () => {
    h = await startPlanHarness({ forge: 'github', issues });
    await h.comment('/plan-blitz M1');
    await h.comment('/plan-blitz M1');
    await h.round();
    expect(await h.runs.listRuns()).toHaveLength(1);
    expect(h.world.commentsOn(h.repo, h.trigger).some((c) => c.body.includes('already live'))).toBe(true);
    await h.driveToStop();
  });

  it('an issue blocked by an issue nobody can read is not planned, reported once and named when the run stops', async () => {
    h = await startPlanHarness({
      forge: 'github',
      issues: [
        { number: 1, title: 'Needs the ghost', body: 'x', labels: ['size/M'], blockedBy: ['acme/app#99'] },
      ],
    });
    await h.comment('/plan-blitz M1');
    const run = await h.driveToStop();
    expect(await h.runs.ledger.listByRun(run.id)).toEqual([]);
    const room = h.world.commentsOn(h.repo, h.trigger);
    // GitHub names a blocker the app cannot read without saying which: the fake forge does the same.
    const reports = room.filter(
      (c) => c.body.startsWith('plan-blitz: #1 is blocked by') && c.body.includes('fail closed'),
    );
    expect(reports).toHaveLength(1);
    expect(run.progress.reason).toMatch(
      /^blocked: the next wave is empty; #1 not planned: blocker .+ cannot be read$/,
    );
  });
});
