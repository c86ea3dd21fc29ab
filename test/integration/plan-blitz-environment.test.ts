// A plan-wave member whose planner ends on an environment failure (the model endpoint refused the
// connection) is not refused: it waits out a backoff on the bot's clock and its planner starts again,
// and after three such failures in a row it lands `parked`, with a comment naming `/plan-blitz #n`.
// Before: the first environment failure landed it refused for good.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardMarker } from '../../src/dashboard/render.ts';
import { planProgressOf } from '../../src/plan/plan-progress.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { type PlanHarness, startPlanHarness } from '../support/plan-harness.ts';

let h: PlanHarness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dir) removeDir(dir);
  dir = undefined;
});

const start = async () => {
  dir = tempDir('plan-env-');
  const modeFile = join(dir, 'mode');
  writeFileSync(modeFile, 'outage\n');
  let now = Date.parse('2026-12-04T06:00:00.000Z');
  const clock = { now: () => new Date(now) };
  h = await startPlanHarness({
    forge: 'github',
    clock,
    agentEnv: { FAKE_AGENT_MODE_FILE: modeFile },
    issues: [{ number: 1, title: 'Add a verbose flag', body: 'A flag on the CLI.', labels: ['size/S'] }],
  });
  await h.comment('/plan-blitz M1');
  const harness = h;
  const attempts = async () => {
    const run = await harness.latestRun();
    return run ? harness.runs.ledger.listByRun(run.id) : [];
  };
  const ended = async (n: number) =>
    (await attempts()).filter((a) => a.outcome === 'environment_failure').length >= n;
  return {
    modeFile,
    attempts,
    ended,
    advance: (ms: number) => {
      now += ms;
    },
  };
};

describe('plan-blitz: a planner that meets an environment failure', () => {
  it('waits out its backoff on the clock, then plans again and lands ready', async () => {
    const t = await start();
    await h!.drive(() => t.ended(1));
    // The backoff (60 s) is not over: more rounds start no planner.
    for (let i = 0; i < 3; i++) await h!.round();
    expect(await t.attempts()).toHaveLength(1);
    const waiting = (await h!.latestRun())!;
    expect(planProgressOf(waiting.progress).waves[0]!.outcomes).toEqual({});
    // The dashboard names the wait (its sentence Markdown-escaped).
    const dashboard = h!.world
      .commentsOn(h!.repo, h!.trigger)
      .find((c) => c.body.includes(dashboardMarker(waiting.id)));
    expect(dashboard?.body).toContain(
      'planning — waiting&#58; environment failure 1 of 3 in a row; starts again at',
    );
    writeFileSync(t.modeFile, 'plan\n');
    t.advance(61_000);
    const run = await h!.driveToStop();
    expect(planProgressOf(run.progress).waves[0]!.outcomes['acme/app#1']).toMatchObject({
      landing: 'ready',
      size: 'S',
    });
    expect((await t.attempts()).map((a) => a.outcome)).toEqual(['environment_failure', 'solved']);
  }, 120_000);

  it('after three in a row lands parked and says on the run which command plans it again', async () => {
    const t = await start();
    for (const n of [1, 2]) {
      await h!.drive(() => t.ended(n));
      t.advance(10 * 60_000);
    }
    await h!.drive(() => t.ended(3));
    const run = await h!.driveToStop();
    const outcome = planProgressOf(run.progress).waves[0]!.outcomes['acme/app#1'];
    expect(outcome).toMatchObject({ landing: 'parked', size: 'S' });
    expect(outcome?.note).toMatch(/^parked: its planner hit an environment failure 3 times in a row/);
    expect(await t.attempts()).toHaveLength(3);
    const told = h!.world
      .commentsOn(h!.repo, h!.trigger) // The sentence is Markdown-escaped (`#` as `&#35;`); the command is code.
      .filter((c) => c.body.includes('&#35;1 is parked&#58; its planner hit an environment failure 3 times'));
    expect(told).toHaveLength(1);
    // No notify target: the comment @mentions whoever started the run (issue 37).
    expect(told[0]!.body).toMatch(/^@alice \*\*plan-blitz: M1\*\*: /);
    expect(told[0]!.body).toContain('To continue: `/plan-blitz #1`');
  }, 120_000);
});
