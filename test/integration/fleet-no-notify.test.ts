// slow: a ticket fleet on the in-process bot with real git and fake agents (both forges).
// Issue 37, a person is told with no configuration: a fleet ticket whose worker failed is held, and with
// no notify target the person who started the fleet is @mentioned once, on the fleet's issue. Before: the
// fleet performed no issue notice at all, so only its scoreboard changed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';
import { tempDir } from '../support/git.ts';

let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.each(['github', 'gitea'] as const)('a fleet with no notify target on %s', (forge) => {
  it('a ticket held after its worker failed @mentions the starter once, on the fleet issue', async () => {
    const modeFile = join(tempDir('fleet-mode-'), 'mode');
    writeFileSync(modeFile, 'fail\n');
    h = await startFleetHarness({
      forge,
      issues: { app: [], lib: [{ number: 1, title: 'Client: retry on 503' }] },
      agentEnv: { FAKE_AGENT_MODE_FILE: modeFile },
    });
    const x = h;
    await x.comment('/ticket-fleet acme/lib#1', 'alice');
    const told = () =>
      x.world
        .commentsOn(x.repos.app, x.trigger)
        .filter((c) => c.author !== 'alice' && c.body.includes('@alice'))
        .map((c) => c.body);
    await x.drive(async () => told().length > 0);
    for (let i = 0; i < 3; i++) await x.round();
    expect(told()).toHaveLength(1);
    expect(told()[0]).toMatch(/^@alice \*\*ticket fleet: acme\/lib#1\*\*: &#35;1 failed after 1 attempt/);
    expect(told()[0]).toContain('it is held until a person looks');
    const run = (await x.fleetRun())!;
    expect((await x.runs.ledger.listByRun(run.id)).map((a) => a.outcome)).toEqual(['unsolved']);
  }, 180_000);

  it('tickets whose PRs all wait on /merge @mention the starter once, naming /merge', async () => {
    h = await startFleetHarness({
      forge,
      issues: {
        app: [],
        lib: [
          { number: 1, title: 'Client: retry on 503' },
          { number: 2, title: 'Client: log the request id' },
        ],
      },
    });
    const x = h;
    await x.comment('/ticket-fleet acme/lib#1 acme/lib#2', 'alice');
    const told = () =>
      x.world
        .commentsOn(x.repos.app, x.trigger)
        .filter((c) => c.author !== 'alice' && c.body.includes('@alice'))
        .map((c) => c.body);
    await x.drive(async () => told().length > 0);
    // More passes with the PRs still waiting: the same notice is not posted again.
    for (let i = 0; i < 3; i++) await x.round();
    expect(told()).toHaveLength(1);
    const prs = [...x.repos.lib.issues.values()]
      .filter((i) => i.pull)
      .map((i) => i.number)
      .sort((a, b) => a - b);
    expect(prs).toHaveLength(2);
    expect(told()[0]).toContain(
      `its 2 PRs wait on a person's review and /merge: acme/lib#${prs[0]}, acme/lib#${prs[1]}`,
    );
    expect(told()[0]).toMatch(/^@alice \*\*ticket fleet needs review\*\*/);
    expect(told()[0]).toContain('Review each PR, then say `/merge` on it.');
    const run = (await x.fleetRun())!;
    expect((await x.runs.ledger.listByRun(run.id)).map((a) => a.outcome)).toEqual(['solved', 'solved']);
  }, 180_000);
});
