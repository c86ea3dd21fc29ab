// Issue 37: a plan-blitz run the budget probe parks uses the run park that fleet and blitz use: it is
// paused with the reset time the probe named on its dashboard and in its notice, starts no planner
// while parked, and once the reset time has passed (the bot's clock moved, the probe answers ok) goes
// on by itself and finishes. Before: its stop comment named no reset time nor that it goes on by itself.
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardMarker } from '../../src/dashboard/render.ts';
import { planProgressOf } from '../../src/plan/plan-progress.ts';
import type { ProbeResult } from '../../src/runs/budget-probe.ts';
import type { RunNotice } from '../../src/ship/notice.ts';
import { type PlanHarness, startPlanHarness } from '../support/plan-harness.ts';

let h: PlanHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('plan-blitz: the budget probe says park with a reset time', () => {
  it('pauses showing the reset time, starts no planner, and resumes by itself after the reset', async () => {
    let now = Date.parse('2026-12-04T06:00:00.000Z');
    const clock = { now: () => new Date(now) };
    const resetAt = '2026-12-04T06:20:00.000Z';
    const asked: string[] = [];
    // The provider's limit lifts at `resetAt`: the probe says park until then, ok after.
    const budgetProbe = async (): Promise<ProbeResult> => {
      const park = now < Date.parse(resetAt);
      asked.push(park ? 'park' : 'ok');
      return park
        ? { status: 'ok', recommendedMaxSessions: 0, preferMedium: false, park: true, resetAt }
        : { status: 'ok', recommendedMaxSessions: 2, preferMedium: false, park: false };
    };
    const notices: RunNotice[] = [];
    h = await startPlanHarness({
      forge: 'github',
      clock,
      budgetProbe,
      notifiers: [
        {
          target: 'phone',
          events: new Set(['parked']),
          notify: async (n) => {
            notices.push(n);
            return { ok: true, target: 'phone', attempts: 1 };
          },
        },
      ],
      issues: [{ number: 1, title: 'Add a verbose flag', body: 'A flag on the CLI.', labels: ['size/S'] }],
    });
    const x = h;
    await x.comment('/plan-blitz M1');
    const attempts = async () => {
      const run = await x.latestRun();
      return run ? x.runs.ledger.listByRun(run.id) : [];
    };
    await x.drive(async () => (await x.latestRun())?.progress.park?.resetAt !== undefined);
    const parked = (await x.latestRun())!;
    expect(parked.state).toBe('paused');
    expect(parked.progress.park).toMatchObject({ kind: 'budget', resetAt });
    // More passes while the limit holds start no planner (no relaunch loop).
    for (let i = 0; i < 3; i++) await x.round();
    expect(await attempts()).toEqual([]);
    expect((await x.latestRun())!.state).toBe('paused');
    // The person is told when it goes on: the dashboard and the park's notice name the reset time.
    const comments = x.world.commentsOn(x.repo, x.trigger);
    const dashboard = comments.find((c) => c.body.includes(dashboardMarker(parked.id)));
    // (The dashboard's sentence is Markdown-escaped: `:` as `&#58;`.)
    expect(dashboard?.body).toContain(
      'the budget probe says park; the tool says it resets at 2026-12-04 06&#58;20 UTC, and the run resumes by itself',
    );
    // The stop's comment on the planning room, and the park's notice to the run's notify target.
    const stops = comments.filter((c) => c.body.startsWith('**plan-blitz: M1 paused**'));
    expect(stops.map((c) => c.body)).toEqual([
      '**plan-blitz: M1 paused**: the budget probe says park until 2026-12-04 06:20 UTC; the run goes on by itself once the probe allows work',
    ]);
    expect(notices.map((n) => [n.event, n.resetAt])).toEqual([['parked', resetAt]]);
    expect(notices[0]!.sentence).toContain('resets at 2026-12-04 06:20 UTC, and the run resumes by itself');

    // The reset time passes (and the probe's cache with it): the run goes on with no person acting.
    now = Date.parse(resetAt) + 10 * 60_000;
    const run = await x.driveToStop();
    expect(run.state).toBe('done');
    expect(planProgressOf(run.progress).waves[0]!.outcomes['acme/app#1']).toMatchObject({
      landing: 'ready',
      size: 'S',
    });
    expect((await attempts()).map((a) => a.outcome)).toEqual(['solved']);
    expect(asked).toContain('ok');
  }, 120_000);
});
