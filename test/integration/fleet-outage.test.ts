// slow: a ticket fleet on the in-process bot with real git and fake agents (both forges).
// A fleet during a model outage (issue 37): the ticket's worker meets the outage once, the fleet parks
// (one notice-worthy state, no relaunch of the ticket on every pass), and once the wait is over the
// interrupted session is the probe: the endpoint back, it goes on where it stopped, and the ticket
// reaches its PR, all with exactly one attempt. With no notify target, the starter is @mentioned once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunNotice } from '../../src/ship/notice.ts';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';
import { tempDir } from '../support/git.ts';
import { movableClock } from '../support/unattended-world.ts';

let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.each(['github', 'gitea'] as const)('a fleet during an outage on %s', (forge) => {
  it('parks, relaunches nothing while parked, and resumes by itself once the endpoint is back', async () => {
    const modeFile = join(tempDir('fleet-mode-'), 'mode');
    writeFileSync(modeFile, 'outage\n');
    const clock = movableClock();
    h = await startFleetHarness({
      forge,
      issues: { app: [], lib: [{ number: 1, title: 'Client: retry on 503' }] },
      agentEnv: { FAKE_AGENT_MODE_FILE: modeFile },
      runner: { environmentBackoff: { initialSeconds: 60, maxSeconds: 600 } },
      clock,
    });
    const x = h;
    await x.comment('/ticket-fleet acme/lib#1', 'alice');
    await x.drive(async () => (await x.fleetRun())?.progress.park !== undefined);
    const parked = (await x.fleetRun())!;
    expect(parked.state).toBe('paused');
    expect(parked.progress.park).toMatchObject({ reason: 'model endpoint unreachable', failures: 1 });
    // Parked means parked: passes before the wait is over start no worker.
    for (let i = 0; i < 4; i++) await x.round();
    const attempts = () => x.runs.ledger.listByRun(parked.id);
    expect((await attempts()).map((a) => a.outcome)).toEqual(['environment_failure']);
    expect((await x.fleetRun())!.state).toBe('paused');
    // No notify target configured: alice is told once, on the issue where she started the fleet, with
    // the fleet's own command that continues.
    const told = x.world.commentsOn(x.repos.app, x.trigger).filter((c) => c.body.includes('@alice'));
    expect(told).toHaveLength(1);
    expect(told[0]!.body).toContain('parked');
    expect(told[0]!.body).toContain('`/ticket-fleet resume`');
    // The endpoint is back; the wait passes: the interrupted session goes on and the ticket gets its PR.
    writeFileSync(modeFile, '');
    clock.advance(61_000);
    await x.drive(async () => (await x.runs.listRunIssues(parked.id))[0]?.prNumber !== undefined);
    const after = (await x.fleetRun())!;
    expect(after.state).toBe('running');
    expect(after.progress.park).toBeUndefined();
    // One attempt in all: resumed in its own session, never launched afresh.
    expect((await attempts()).map((a) => a.outcome)).toEqual(['solved']);
  }, 180_000);
});

describe('a parked fleet and the person who started it', () => {
  it("is told with the fleet's own resume command, and goes on at once when they type it", async () => {
    const modeFile = join(tempDir('fleet-mode-'), 'mode');
    writeFileSync(modeFile, 'outage\n');
    const clock = movableClock();
    const notices: RunNotice[] = [];
    h = await startFleetHarness({
      forge: 'github',
      issues: { app: [], lib: [{ number: 1, title: 'Client: retry on 503' }] },
      agentEnv: { FAKE_AGENT_MODE_FILE: modeFile },
      runner: { environmentBackoff: { initialSeconds: 600, maxSeconds: 600 } },
      clock,
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
    });
    const x = h;
    await x.comment('/ticket-fleet acme/lib#1', 'alice');
    await x.drive(async () => (await x.fleetRun())?.progress.park !== undefined && notices.length > 0);
    const parked = (await x.fleetRun())!;
    // The parked notice names the fleet's own command: `/blitz resume` does not reach a fleet.
    expect(notices.map((n) => [n.event, n.command])).toEqual([['parked', '/ticket-fleet resume']]);
    // The phone told her: the trigger issue gets no @mention besides.
    expect(x.world.commentsOn(x.repos.app, x.trigger).filter((c) => c.body.includes('@alice'))).toEqual([]);
    // The endpoint is back; alice does not wait out the ten minutes: her word resumes the fleet now.
    writeFileSync(modeFile, '');
    await x.comment('/ticket-fleet resume', 'alice');
    await x.drive(async () => (await x.runs.listRunIssues(parked.id))[0]?.prNumber !== undefined);
    const replies = x.world
      .commentsOn(x.repos.app, x.trigger)
      .filter((c) => c.author !== 'alice')
      .map((c) => c.body);
    expect(replies.some((b) => b.startsWith('Resumed the ticket fleet'))).toBe(true);
    const after = (await x.fleetRun())!;
    expect(after.state).toBe('running');
    expect(after.progress.park).toBeUndefined();
    expect((await x.runs.ledger.listByRun(parked.id)).map((a) => a.outcome)).toEqual(['solved']);
  }, 180_000);
});
