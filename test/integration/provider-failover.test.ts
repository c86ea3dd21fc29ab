// slow: a whole milestone on the in-process bot with real git and fake agents (both forges).
// Provider failover (issue 37): two roster entries of one tier, the cheaper one's endpoint down. The
// outage is charged to that entry's endpoint, not to the run: its issue goes sideways to the peer, the
// endpoint stays parked (no second attempt on it while it waits), and the milestone finishes without
// the run ever parking or anyone being told.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { endpointOf } from '../../src/plan/entry-park.ts';
import { tempDir } from '../support/git.ts';
import { fakeEntry } from '../support/runner-harness.ts';
import {
  expectMilestoneFinished,
  startUnattendedWorld,
  type UnattendedWorld,
} from '../support/unattended-world.ts';

let w: UnattendedWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe.each(['github', 'gitea'] as const)('provider failover on %s', (forge) => {
  it('two entries of one tier, one whose endpoint is down: the issue goes to the peer and the milestone finishes without parking', async () => {
    // The peer reads its own mode file (empty: it pushes); the cheaper entry reads the world's.
    const peerMode = join(tempDir('peer-mode-'), 'mode');
    writeFileSync(peerMode, '');
    const peer = {
      ...fakeEntry({ FAKE_AGENT_MODE_FILE: peerMode }, 'peer'),
      roles: ['blitz', 'fleet'],
      tiers: ['execution', 'design', 'subtle'],
      costRank: 5,
    };
    // A wait of an hour: the down entry is not probed again within the test.
    w = await startUnattendedWorld({
      forge,
      moreRoster: [peer],
      runner: { environmentBackoff: { initialSeconds: 3600, maxSeconds: 7200 } },
    });
    const x = w;
    x.agent('outage');
    await x.start();
    let everParked = false;
    await x.drive(async () => {
      const run = await x.run();
      if (run?.progress.park !== undefined || run?.state === 'paused') everParked = true;
      return run?.state === 'done';
    }, 90_000);
    await expectMilestoneFinished(x, [1, 2], [1, 2], { alerts: 0 });
    expect(everParked).toBe(false);
    expect(x.noticesOf('parked')).toHaveLength(0);
    const run = (await x.run())!;
    const attempts = await x.h.bot.runs.ledger.listByRun(run.id);
    // One attempt met the outage; every other ran on the peer; the down entry was never tried again.
    expect(attempts.map((a) => [a.issue.number, a.rosterEntry, a.outcome])).toEqual([
      [1, 'fake', 'environment_failure'],
      [1, 'peer', 'solved'],
      [2, 'peer', 'solved'],
    ]);
    const down = attempts[0]!.job.entry;
    expect(run.progress.entryParks?.[endpointOf(down)]).toMatchObject({
      reason: 'model endpoint unreachable',
      cause: 'endpoint_unreachable',
      entries: ['fake'],
      failures: 1,
    });
    // The dashboard shows each entry's state.
    expect(x.dashboard()).toContain('#### Roster entries');
    // Words a person reads are escaped for markdown (`:` as `&#58;`).
    expect(x.dashboard()).toMatch(
      /- fake: parked&#58; model endpoint unreachable; its work goes to the other entries/,
    );
    expect(x.dashboard()).toContain('- peer: healthy');
  }, 180_000);
});
