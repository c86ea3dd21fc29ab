// A ticket fleet paces itself on the forge's rate limit as a blitz does (`run-pace.ts`): with the fake
// GitHub's core budget spent it starts no worker and the scoreboard says why, with the reset time; once
// the window has reset it dispatches by itself, no person needed and never a silent stall.
import { afterEach, describe, expect, it } from 'vitest';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';

let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('fleet pace on GitHub', () => {
  it('holds new workers while the core budget is nearly spent, says why on the scoreboard, and resumes after the reset', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    // A hundred core requests an hour, 85 of them spent by another client of the same token: starting
    // the fleet (permission, reaction, tickets, repository, config, scoreboard …) brings it below 10 %
    // before the pilot, while the scoreboard can still say so (past the limit GitHub refuses).
    h = await startFleetHarness({
      forge: 'github',
      issues: { app: [{ number: 1, title: 'Docs: add a changelog', body: 'Start CHANGELOG.md.' }], lib: [] },
      rateLimit: { core: 100, now },
    });
    const x = h;
    for (let i = 0; i < 85; i++) {
      const res = await fetch(`${x.fakeGithub!.apiUrl}/repos/acme/app`, {
        headers: { authorization: 'token test-token' },
      });
      expect(res.status).toBe(200);
    }
    const board = () =>
      x.world
        .commentsOn(x.repos.app, x.trigger)
        .map((c) => c.body)
        .find((b) => b.includes('## Ticket fleet')) ?? '';
    await x.comment('/ticket-fleet #1', 'alice');
    await x.drive(async () => board().includes('Slowed down'), 30_000);
    for (let i = 0; i < 3; i++) await x.round();

    const run = (await x.fleetRun())!;
    expect(await x.runs.ledger.listByRun(run.id)).toEqual([]);
    expect(board()).toMatch(
      /\*\*Slowed down:\*\* core rate limit nearly spent &#40;\d\/100&#41;&#58; no new sessions until it resets in (59|60) min\./,
    );

    // An hour later the window has reset: the next reconcile starts the pilot without anyone asking.
    offset += 61 * 60_000;
    await x.drive(async () => (await x.runs.ledger.listByRun(run.id)).length > 0, 30_000);
    expect((await x.fleetRun())!.state).toBe('running');
  }, 90_000);
});
