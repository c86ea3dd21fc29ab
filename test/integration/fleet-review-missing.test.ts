// slow: a ticket fleet on the in-process bot with real git and fake agents (both forges).
// Follow-up to issue 37, a person is told: a fleet PR whose review leg produced no review still ends in
// the fleet's one /merge notice, which names the PR and why it has no review (in the bot's words, never
// the reviewer's output). Before: a leg that failed outright was asked again on every pass, the notice
// never came, and the PR waited silently.
import { afterEach, describe, expect, it } from 'vitest';
import { maxReviewLegFailures } from '../../src/plan/review-leg-failures.ts';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';

let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const toldOf = (x: FleetHarness) => () =>
  x.world
    .commentsOn(x.repos.app, x.trigger)
    .filter((c) => c.author !== 'alice' && c.body.includes('@alice'))
    .map((c) => c.body);

const prsOf = (x: FleetHarness) =>
  [...x.repos.lib.issues.values()].filter((i) => i.pull).map((i) => i.number);

describe.each(['github', 'gitea'] as const)('a fleet whose reviewer fails on %s', (forge) => {
  it('tells the starter once that the PR waits on /merge with no review, and why', async () => {
    h = await startFleetHarness({
      forge,
      issues: { app: [], lib: [{ number: 1, title: 'Client: retry on 503' }] },
      reviewerArgs: ['--exit', '3'],
    });
    const x = h;
    await x.comment('/ticket-fleet acme/lib#1', 'alice');
    const told = toldOf(x);
    await x.drive(async () => told().length > 0);
    for (let i = 0; i < 3; i++) await x.round();
    expect(told()).toHaveLength(1);
    const prs = prsOf(x);
    expect(prs).toHaveLength(1);
    expect(told()[0]).toMatch(/^@alice \*\*ticket fleet needs review\*\*/);
    expect(told()[0]).toContain(
      `its PR waits on a person's review and /merge: acme/lib#${prs[0]}; acme/lib#${prs[0]} has no review: every reviewer failed (fake-reviewer exited with code 3)`,
    );
    expect(told()[0]).toContain('Review each PR, then say `/merge` on it.');
    // The reviewer's stderr line is not quoted.
    expect(told()[0]).not.toContain('fake-reviewer:');
    const run = (await x.fleetRun())!;
    expect((await x.runs.ledger.listByRun(run.id)).map((a) => a.outcome)).toEqual(['solved']);
  }, 180_000);
});

describe('a fleet whose review leg fails outright on github', () => {
  it('asks a bounded number of times, then tells the starter once, naming the missing review', async () => {
    h = await startFleetHarness({
      forge: 'github',
      issues: { app: [], lib: [{ number: 1, title: 'Client: retry on 503' }] },
    });
    const x = h;
    // Every review comment the bot posts on the lib repository is refused: the leg posts nothing.
    x.fakeGithub!.failNext(1000, {
      status: 422,
      message: 'Validation Failed',
      match: /^POST (\/api\/v3)?\/repos\/acme\/lib\/issues\/\d+\/comments$/,
    });
    await x.comment('/ticket-fleet acme/lib#1', 'alice');
    const told = toldOf(x);
    await x.drive(async () => told().length > 0);
    for (let i = 0; i < 3; i++) await x.round();
    expect(told()).toHaveLength(1);
    const prs = prsOf(x);
    expect(prs).toHaveLength(1);
    expect(told()[0]).toMatch(/^@alice \*\*ticket fleet needs review\*\*/);
    expect(told()[0]).toContain(
      `its PR waits on a person's review and /merge: acme/lib#${prs[0]}; acme/lib#${prs[0]} has no review: the review leg failed (the bot's log has the error), ${maxReviewLegFailures} times`,
    );
    expect(told()[0]).not.toContain('Validation Failed');
    // Exactly the bounded number of review comments was tried, and none landed on the PR.
    const tries = x.fakeGithub!.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith(`/repos/acme/lib/issues/${prs[0]}/comments`),
    );
    expect(tries).toHaveLength(maxReviewLegFailures);
    expect(x.world.commentsOn(x.repos.lib, prs[0]!)).toHaveLength(0);
  }, 180_000);
});
