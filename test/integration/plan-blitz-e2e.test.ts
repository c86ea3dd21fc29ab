// Slow for a reason: a 9-issue plan-blitz in three waves with planner and reviewer, on real git.
// Acceptance: `/plan-blitz M1 --waves 3` over a 9-issue milestone on the contract-checked fake forge,
// a real bare origin, a fake planner/worker that really commits and pushes, and a fake plan reviewer
// whose verdict each issue's text picks. Sizes XS/S/M/L and one unsized issue, a hold, a cycle of two
// and a blocker chain 3 → 4 → 5 (4's review says BLOCKED, 5's says PIVOT). Then a targeted
// `/plan-blitz #4 #999` names #999 as unmatched.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardMarker } from '../../src/dashboard/render.ts';
import type { Forge } from '../../src/forges/types.ts';
import { planProgressOf } from '../../src/plan/plan-progress.ts';
import type { RunnerEvent } from '../../src/runner/types.ts';
import { type PlanHarness, startPlanHarness } from '../support/plan-harness.ts';
import type { SeedIssue } from '../support/world.ts';

const milestone: SeedIssue[] = [
  { number: 1, title: 'Fix the README typo', body: 'One word.', labels: ['size/XS'] },
  { number: 2, title: 'Add a verbose flag', body: 'A flag on the CLI.', labels: ['size/S'] },
  { number: 3, title: 'Store layer for sessions', body: 'Sessions in SQLite.', labels: ['size/M'] },
  {
    number: 4,
    title: 'Session API on the store',
    body: 'HTTP routes.\nfake-review: BLOCKED',
    labels: ['size/L'],
    blockedBy: [3],
  },
  {
    number: 5,
    title: 'Session UI on the API',
    body: 'A page.\nfake-review: PIVOT',
    labels: ['size/M'],
    blockedBy: [4],
  },
  { number: 6, title: 'Pick a logging library', body: 'Compare two.\nfake-size: S' },
  { number: 7, title: 'Rewrite the billing engine', body: 'Big.', labels: ['size/L', 'hold'] },
  { number: 8, title: 'Cycle A', body: 'Needs B.', labels: ['size/M'], blockedBy: [9] },
  { number: 9, title: 'Cycle B', body: 'Needs A.', labels: ['size/M'], blockedBy: [8] },
];
const blockers = new Map(milestone.map((i) => [i.number!, (i.blockedBy ?? []) as number[]]));

let h: PlanHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.each(['github', 'gitea'] as const)('plan-blitz end to end on %s', (forge) => {
  it('plans a milestone in three waves: gates, lanes, verdicts, hold, cycle; a targeted run names what it could not match', async () => {
    const started: number[] = [];
    const gateViolations: string[] = [];
    const pending: Promise<void>[] = [];
    const onRunnerEvent = (e: RunnerEvent) => {
      if (e.type !== 'attempt.started' || !h) return;
      const x = h;
      pending.push(
        x.runs.ledger.get(e.attemptId).then((a) => {
          if (!a) return;
          const n = a.issue.number;
          started.push(n);
          // The planning gate: every blocker closed or carrying an approved plan, at the moment of dispatch.
          for (const b of blockers.get(n) ?? []) {
            const blocker = x.world.issue(x.repo, b)!;
            if (blocker.state !== 'closed' && !blocker.labels.includes('plan/approved'))
              gateViolations.push(
                `#${n} was planned while #${b} had ${blocker.labels.join(',') || 'no labels'}`,
              );
          }
        }),
      );
    };
    h = await startPlanHarness({
      forge,
      issues: milestone,
      labels: [{ name: 'hold', description: 'waiting on finance sign-off' }],
      onRunnerEvent,
    });
    const { world, repo } = h;
    await h.comment('/plan-blitz M1 --waves 3');
    const run = await h.driveToStop();
    await Promise.all(pending);
    const labels = (n: number) => world.issue(repo, n)!.labels;
    const planComment = (n: number) =>
      world.commentsOn(repo, n).find((c) => c.body.includes('<!-- blitz-plan -->'));

    expect(gateViolations).toEqual([]);
    // XS: shipped in the wave — its PR merged into main, the issue closed once, the work on main.
    expect(world.issue(repo, 1)!.state).toBe('closed');
    expect(world.count('close', 'acme/app', 1)).toBe(1);
    const pr = [...repo.issues.values()].find((i) => i.pull && i.title.startsWith('#1:'));
    expect(pr?.pull?.base).toBe('main');
    expect(pr?.pull?.merged).toBe(true);
    expect(await h.origin.git.ok(['ls-tree', '-r', '--name-only', 'main'])).toContain('fake-1.txt');
    // Plan branches were only the way the plans came back: none is left on the origin.
    expect(await h.origin.git.ok(['branch', '--list', 'plan-m1/*'])).toBe('');
    // S: a short spec comment and execution-ready, no review; the unsized #6 was sized S first.
    // Should a lane end otherwise, the failure names how each wave's members landed and why the run stopped.
    const landings = JSON.stringify({
      reason: run.progress.reason,
      waves: planProgressOf(run.progress).waves.map((w) => ({ members: w.members, outcomes: w.outcomes })),
    });
    for (const n of [2, 6]) {
      expect(labels(n), `#${n}: ${landings}`).toEqual(expect.arrayContaining(['plan/ready', 'plan/draft']));
      expect(labels(n)).not.toContain('plan/approved');
      expect(planComment(n)?.body).toContain('execution-ready');
    }
    expect(labels(6)).toContain('size/S');
    // M/L: plans written and reviewed; #4's BLOCKED findings applied by the planner and approved.
    for (const n of [3, 4]) {
      expect(labels(n), `#${n}`).toContain('plan/approved');
      expect(labels(n)).not.toContain('plan/draft');
      expect(planComment(n)?.body).toContain('Plan **approved**');
    }
    expect(planComment(4)?.body).toContain('BLOCKED findings below were applied');
    expect(planComment(4)?.body).toContain('Review findings applied.');
    expect(planComment(4)?.body).toContain('**BLOCKED** by the reviewers:\n\n- [medium]');
    // PIVOT: a replan issue in the milestone, linked as #5's blocker; #5 is not approved.
    const replan = [...repo.issues.values()].find((i) => i.title === 'Replan #5: Session UI on the API');
    expect(replan).toBeDefined();
    expect(replan!.milestoneId).toBe(world.issue(repo, 5)!.milestoneId);
    expect(world.issue(repo, 5)!.blockedBy).toContainEqual({
      owner: 'acme',
      repo: 'app',
      number: replan!.number,
    });
    expect(labels(5)).not.toContain('plan/approved');
    expect(planComment(5)?.body).toContain('PIVOT');
    // The hold and the cycle: never planned, reported.
    for (const n of [7, 8, 9]) expect(started, `#${n}`).not.toContain(n);
    const room = world.commentsOn(repo, h.trigger);
    expect(room.some((c) => c.body.includes('cycle') && c.body.includes('#8') && c.body.includes('#9'))).toBe(
      true,
    );
    const dashboards = room.filter((c) => c.body.includes(dashboardMarker(run.id)));
    expect(dashboards).toHaveLength(1);
    const dash = dashboards[0]!.body;
    expect(dash).toContain('waiting on finance sign-off');
    expect(dash).toContain('#1 Fix the README typo (XS): **closed**');
    // The stop reports the remaining work (the replan issue), never chains into it.
    expect(dash).toContain(`&#35;${replan!.number} can be planned by another`);
    expect(dash).toMatch(/\| 1 \| 1 \| 2 \| 1 \| 1 \| 0 \| 0 \|/);
    expect(dash).toMatch(/\| 2 \| 1 \| 0 \| 0 \| 1 \| 0 \| 0 \|/);
    expect(dash).toMatch(/\| 3 \| 0 \| 0 \| 0 \| 1 \| 0 \| 1 \|/);
    // Three waves ran; the third opened nothing, and the cycle is named in why the run stopped.
    // A plan run is never resumed: it ends done, and the reason says what blocked it.
    expect(run.state).toBe('done');
    expect(run.progress.reason).toMatch(/^blocked: wave 3 approved, readied and closed nothing/);
    expect(run.progress.reason).toContain('#8 ↔ #9');
    expect(room.some((c) => c.body.includes('stopped (a person has to look)'))).toBe(true);
    // Each issue got exactly the workers its lane needs: #4 a planner and a fixer, the rest one.
    const perIssue: Record<number, number> = {};
    for (const a of await h.runs.ledger.listByRun(run.id))
      perIssue[a.issue.number] = (perIssue[a.issue.number] ?? 0) + 1;
    expect(perIssue).toEqual({ 1: 1, 2: 1, 3: 1, 4: 2, 5: 1, 6: 1 });
    // Each lane's worker was asked for its deliverable: S a short spec, M a plan, unsized a size first.
    const promptOf = async (n: number) =>
      readFileSync(
        (await h!.runs.ledger.listByRun(run.id)).find((a) => a.issue.number === n)!.promptPath,
        'utf8',
      );
    expect(await promptOf(2)).toContain('write a short spec');
    expect(await promptOf(3)).toContain('Write a full plan');
    expect(await promptOf(6)).toContain('This issue has no size yet');
    expect(await promptOf(1)).not.toContain('PLANNING TASK');

    // Targeted: #4 is matched (and already approved: nothing to plan); #999 is named as unmatched.
    await h.comment('/plan-blitz #4 #999');
    const targeted = await h.driveToStop();
    expect(targeted.id).not.toBe(run.id);
    const reply = world.commentsOn(repo, h.trigger).find((c) => c.body.includes('not matched'));
    expect(reply?.body).toContain('#999: no such issue');
    expect(reply?.body).not.toContain('#4:');
    expect(targeted.state).toBe('done');
  }, 180_000);

  it('an XS issue whose blocker has only an approved plan is marked execution-ready, not shipped', async () => {
    h = await startPlanHarness({
      forge,
      issues: [
        { number: 1, title: 'Store', body: 'A store.', labels: ['size/M', 'plan/approved'] },
        { number: 2, title: 'Rename a field', body: 'One line.', labels: ['size/XS'], blockedBy: [1] },
      ],
    });
    await h.comment('/plan-blitz M1');
    const run = await h.driveToStop();
    expect(await h.runs.ledger.listByRun(run.id)).toEqual([]);
    expect(h.world.issue(h.repo, 2)!.state).toBe('open');
    expect(h.world.issue(h.repo, 2)!.labels).toContain('plan/ready');
    expect(h.world.issue(h.repo, 1)!.labels).not.toContain('plan/ready');
  }, 60_000);

  it('of two XS issues rewriting the same line, the second conflicts: its session cannot resolve it, so after the tries it lands refused and stays open', async () => {
    h = await startPlanHarness({
      forge,
      // Both workers rewrite README.md's first line on the same base: the second merge conflicts. A
      // resumed session does not resolve it (it commits in the middle of the merge, which git refuses).
      agentEnv: { FAKE_AGENT_MODES: JSON.stringify({ 'acme/app#1': 'conflict', 'acme/app#2': 'conflict' }) },
      issues: [
        { number: 1, title: 'Retitle the README', body: 'One line.', labels: ['size/XS'] },
        { number: 2, title: 'Retitle it again', body: 'One line.', labels: ['size/XS'] },
      ],
    });
    await h.comment('/plan-blitz M1');
    const run = await h.driveToStop();
    const wave = planProgressOf(run.progress).waves[0]!;
    const landed = [1, 2].map((n) => ({ n, o: wave.outcomes[`acme/app#${n}`] }));
    expect(landed.map((l) => l.o?.landing).sort()).toEqual(['closed', 'refused']);
    const refused = landed.find((l) => l.o?.landing === 'refused')!;
    expect(refused.o).toMatchObject({
      size: 'XS',
      note: expect.stringMatching(/not resolved, and its worker did not resolve it in 2 tries$/),
    });
    expect(h.world.issue(h.repo, refused.n)!.state).toBe('open');
    const row = (await h.runs.listRunIssues(run.id)).find((r) => r.number === refused.n)!;
    expect(row.conflictResumes).toBe(2);
    // The refusal was an answer on the member until it landed; a landed member keeps none.
    expect(wave.answers).toEqual({});
  }, 60_000);

  it('of two XS issues rewriting the same line, the second conflicts and goes back to its session, which merges the default branch in: both ship', async () => {
    h = await startPlanHarness({
      forge,
      agentEnv: {
        FAKE_AGENT_MODES: JSON.stringify({ 'acme/app#1': 'conflict', 'acme/app#2': 'conflict' }),
        FAKE_AGENT_RESUME_MODE: 'merge-base',
      },
      issues: [
        { number: 1, title: 'Retitle the README', body: 'One line.', labels: ['size/XS'] },
        { number: 2, title: 'Retitle it again', body: 'One line.', labels: ['size/XS'] },
      ],
    });
    await h.comment('/plan-blitz M1');
    const run = await h.driveToStop();
    const wave = planProgressOf(run.progress).waves[0]!;
    expect([1, 2].map((n) => wave.outcomes[`acme/app#${n}`]?.landing)).toEqual(['closed', 'closed']);
    for (const n of [1, 2]) expect(h.world.issue(h.repo, n)!.state).toBe('closed');
    const rows = await h.runs.listRunIssues(run.id);
    expect(rows.map((r) => r.conflictResumes ?? 0).sort()).toEqual([0, 1]);
    // One session per issue: the conflict went back to the worker that wrote the work.
    const attempts = await h.runs.ledger.listByRun(run.id);
    for (const n of [1, 2]) expect(attempts.filter((a) => a.issue.number === n)).toHaveLength(1);
  }, 60_000);

  it('a bot that stops between an XS merge and recording it lands the member shipped, with its size and merge commit', async () => {
    let merges = 0;
    // The merge goes through on the forge, which closes the 'Resolves #1' issue and says so (its
    // webhook reaches the bot's reads); then the step dies before its answer is recorded, as a bot
    // stopped at that moment would.
    const stopAfterMerge = (f: Forge): Forge =>
      new Proxy(f, {
        get: (target, prop, receiver) =>
          prop !== 'mergePullRequest'
            ? Reflect.get(target, prop, receiver)
            : async (...args: Parameters<Forge['mergePullRequest']>) => {
                const merged = await target.mergePullRequest(...args);
                if (++merges > 1) return merged;
                const x = h!;
                x.world.setIssueState(x.repo, x.world.issue(x.repo, 1)!, 'closed', x.botLogin);
                target.observeEvent?.({
                  kind: 'issue-closed',
                  repo: { owner: 'acme', name: 'app' },
                  issueNumber: 1,
                });
                throw new Error('the bot stopped between the merge and its record');
              },
      });
    h = await startPlanHarness({
      forge,
      wrapForge: stopAfterMerge,
      issues: [{ number: 1, title: 'Fix the README typo', body: 'One word.', labels: ['size/XS'] }],
    });
    await h.comment('/plan-blitz M1');
    const run = await h.driveToStop();
    const pr = [...h.repo.issues.values()].find((i) => i.pull && i.title.startsWith('#1:'));
    expect(pr?.pull?.merged).toBe(true);
    expect(merges).toBe(1);
    const wave = planProgressOf(run.progress).waves[0]!;
    // Landed as the merge's, not as an issue a person closed (no size, no merge commit).
    expect(wave.outcomes['acme/app#1']).toMatchObject({
      landing: 'closed',
      size: 'XS',
      mergeSha: pr!.pull!.mergeCommitSha,
    });
    expect(wave.outcomes['acme/app#1']?.note).not.toBe('closed on the tracker during the wave');
    expect(pr!.pull!.mergeCommitSha).toBeTruthy();
    expect(wave.answers).toEqual({});
  }, 60_000);

  it('a bot killed mid-wave (planners left running) and started again over the same files lands the same plans once', async () => {
    h = await startPlanHarness({
      forge,
      agentEnv: { FAKE_AGENT_PLAN_DELAY_MS: '1500' },
      issues: [
        { number: 1, title: 'Store', body: 'A store.', labels: ['size/M'] },
        { number: 2, title: 'Flag', body: 'A flag.', labels: ['size/S'] },
        { number: 3, title: 'Typo', body: 'One word.', labels: ['size/XS'] },
        {
          number: 4,
          title: 'API',
          body: 'Routes.\nfake-review: BLOCKED',
          labels: ['size/L'],
          blockedBy: [1],
        },
      ],
    });
    await h.comment('/plan-blitz M1 --waves 2');
    await h.round();
    expect((await h.runs.ledger.listOpen()).length).toBeGreaterThan(0);
    h.restart();
    const run = await h.driveToStop();
    const { world, repo } = h;
    expect(world.issue(repo, 1)!.labels).toContain('plan/approved');
    expect(world.issue(repo, 4)!.labels).toContain('plan/approved');
    expect(world.issue(repo, 2)!.labels).toContain('plan/ready');
    expect(world.issue(repo, 3)!.state).toBe('closed');
    expect(world.count('close', 'acme/app', 3)).toBe(1);
    const perIssue: Record<number, number> = {};
    for (const a of await h.runs.ledger.listByRun(run.id))
      perIssue[a.issue.number] = (perIssue[a.issue.number] ?? 0) + 1;
    expect(perIssue).toEqual({ 1: 1, 2: 1, 3: 1, 4: 2 });
    for (const n of [1, 2, 4])
      expect(
        world.commentsOn(repo, n).filter((c) => c.body.includes('<!-- blitz-plan -->')),
        `#${n}`,
      ).toHaveLength(1);
    expect(run.progress.reason).toBe('waves exhausted; still to plan: nothing');
  }, 120_000);
});
