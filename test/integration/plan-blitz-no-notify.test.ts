// slow: plan-blitz runs on the in-process bot with real git and fake agents.
// Issue 37, a person is told with no configuration: with no notify target a plan-blitz run that needs
// its starter (a budget park, a stop a person has to look at) @mentions them once per
// cause, on the issue where they started it, with what continues. Before: the planner's stop and a
// parked member's comment named nobody, and notified no target either.
import { afterEach, describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../src/runs/budget-probe.ts';
import { type PlanHarness, startPlanHarness } from '../support/plan-harness.ts';

let h: PlanHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The bot's comments on the planning issue that @mention alice. */
const mentions = (x: PlanHarness): string[] =>
  x.world
    .commentsOn(x.repo, x.trigger)
    .filter((c) => c.author === x.botLogin && c.body.includes('@alice'))
    .map((c) => c.body);

describe.each(['github', 'gitea'] as const)('plan-blitz with no notify target on %s', (forge) => {
  it('a budget park @mentions the starter once with `/plan-blitz resume`, and the run goes on by itself', async () => {
    let now = Date.parse('2026-12-04T06:00:00.000Z');
    const resetAt = '2026-12-04T06:20:00.000Z';
    const budgetProbe = async (): Promise<ProbeResult> =>
      now < Date.parse(resetAt)
        ? { status: 'ok', recommendedMaxSessions: 0, preferMedium: false, park: true, resetAt }
        : { status: 'ok', recommendedMaxSessions: 2, preferMedium: false, park: false };
    h = await startPlanHarness({
      forge,
      clock: { now: () => new Date(now) },
      budgetProbe,
      issues: [{ number: 1, title: 'Add a verbose flag', body: 'A flag on the CLI.', labels: ['size/S'] }],
    });
    const x = h;
    await x.comment('/plan-blitz M1', 'alice');
    await x.drive(async () => (await x.latestRun())?.progress.park !== undefined);
    for (let i = 0; i < 3; i++) await x.round();
    const told = mentions(x);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^@alice \*\*M1: parked\*\*: /);
    expect(told[0]).toContain('resets at 2026-12-04 06:20 UTC, and the run resumes by itself');
    expect(told[0]).toContain('`/plan-blitz resume`');
    // The reset passes: the run goes on with nobody acting, and finishing its plan tells alice once more.
    now = Date.parse(resetAt) + 10 * 60_000;
    const run = await x.driveToStop();
    expect(run.state).toBe('done');
    expect(mentions(x)).toHaveLength(2);
    expect(mentions(x)[1]).toMatch(/^@alice \*\*plan-blitz: M1 finished\*\*: /);
  }, 120_000);

  it('a stop a person has to look at (a cycle) @mentions the starter once, saying what continues', async () => {
    h = await startPlanHarness({
      forge,
      issues: [
        { number: 1, title: 'Parser', body: 'Parse it.', labels: ['size/S'], blockedBy: [2] },
        { number: 2, title: 'Lexer', body: 'Lex it.', labels: ['size/S'], blockedBy: [1] },
      ],
    });
    const x = h;
    await x.comment('/plan-blitz M1', 'alice');
    const run = await x.driveToStop();
    expect(run.state).toBe('done');
    expect(run.progress.reason).toMatch(/^blocked: /);
    for (let i = 0; i < 2; i++) await x.round();
    const told = mentions(x);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^@alice \*\*plan-blitz: M1 stopped \(a person has to look\)\*\*: /);
    expect(told[0]).toContain('#1 ↔ #2');
    expect(told[0]).toContain('a new `/plan-blitz` plans what is left');
  }, 120_000);
});
