// Slow for a reason: a fleet run through a conflict, a resumed worker, a review and a merge, on real git.
// Nothing merges that should not: after `/merge`, a conflicting PR's worker is resumed to merge the
// base in, but it commits the conflicted file with the markers still in it. The markers are found,
// the PR is not merged, the ticket stays open, and the scoreboard says why; the word is spent.
import { afterEach, describe, expect, it } from 'vitest';
import { reviewMarkerTag } from '../../src/review/index.ts';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';

let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('fleet conflict resolution that leaves markers', () => {
  it('does not merge a PR whose resolved conflict still holds markers', async () => {
    h = await startFleetHarness({
      forge: 'github',
      maxSessions: 2,
      issues: {
        app: [
          { number: 1, title: 'README title A' },
          { number: 2, title: 'README title B' },
        ],
        lib: [],
      },
      agentEnv: {
        FAKE_AGENT_MODE: 'conflict',
        FAKE_AGENT_RESUME_MODES: JSON.stringify({ 'acme/app#2': 'merge-base-careless' }),
      },
    });
    const x = h;
    await x.comment('/ticket-fleet #1 #2', 'alice');
    const prOf = async (n: number) =>
      (await x.runs.listRunIssues((await x.fleetRun())!.id)).find((r) => r.number === n)?.prNumber;
    await x.drive(async () => {
      const [a, b] = [await prOf(1), await prOf(2)];
      return (
        a !== undefined &&
        b !== undefined &&
        x.world.commentsOn(x.repos.app, b).some((c) => c.body.includes(reviewMarkerTag))
      );
    });
    const [a1, a2] = [(await prOf(1))!, (await prOf(2))!];
    await x.comment('/merge', 'alice', a1, x.repos.app);
    await x.drive(() => x.world.issue(x.repos.app, 1)?.state === 'closed');
    await x.comment('/merge', 'alice', a2, x.repos.app);
    const board = () =>
      x.world.commentsOn(x.repos.app, x.trigger).find((c) => c.body.includes('## Ticket fleet'))?.body ?? '';
    await x.drive(() => /merge stopped|conflict markers are left/.test(board()));
    await x.round();
    expect(x.repos.app.issues.get(a2)!.pull!.merged).toBe(false);
    expect(x.world.issue(x.repos.app, 2)?.state).toBe('open');
    expect(x.world.count('merge')).toBe(1);
    expect(board()).toMatch(/markers left in README\.md|conflict markers are left in README\.md/i);
    // The word was spent: the run does not try again by itself.
    const fleet = (await x.fleetRun())!.progress.fleet as {
      tickets: Record<string, { mergeRequestedBy?: string }>;
    };
    expect(fleet.tickets['acme/app#2']?.mergeRequestedBy).toBeUndefined();
  }, 120_000);
});
