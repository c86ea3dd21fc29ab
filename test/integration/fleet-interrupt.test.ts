// Slow for a reason: a fleet run from kill to resume, PR, review leg and merge, on real git.
// A fleet worker killed mid-flight (its whole process group, as a host restart would) is resumed in
// its worktree, never relaunched: one attempt, what survived recorded, and the ticket still reaches
// its PR and review leg. The bug it reports outside its ticket becomes a follow-up issue, linked back.
import { afterEach, describe, expect, it } from 'vitest';
import { reviewMarkerTag } from '../../src/review/index.ts';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';
import { gitIn } from '../support/git.ts';

let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('fleet interruptions and follow-ups', () => {
  it('resumes a killed worker in its worktree and files its out-of-scope bug as a follow-up', async () => {
    h = await startFleetHarness({
      forge: 'github',
      issues: { app: [], lib: [{ number: 1, title: 'Client: retry on 503' }] },
      agentEnv: {
        FAKE_AGENT_MODE: 'commit-then-stall',
        FAKE_AGENT_RESUME_MODE: 'push',
        FAKE_AGENT_BUG: 'The client ignores proxy settings',
      },
    });
    const x = h;
    await x.comment('/ticket-fleet acme/lib#1', 'alice');
    await x.drive(async () => (await x.runs.ledger.listOpen()).some((a) => a.pid !== undefined));
    const [running] = await x.runs.ledger.listOpen();
    // Once the worker has committed (its subject names the file), kill its process group without
    // letting it record an exit.
    await x.drive(async () =>
      (await gitIn(running!.worktree, 'log', '-1', '--format=%s')).startsWith('fake agent:'),
    );
    process.kill(-running!.pid!, 'SIGKILL');
    const pr = async () => (await x.runs.listRunIssues((await x.fleetRun())!.id))[0]?.prNumber;
    await x.drive(async () => {
      const n = await pr();
      return (
        n !== undefined &&
        x.world.commentsOn(x.repos.lib, n).some((c) => c.body.includes(reviewMarkerTag)) &&
        x.world.commentsOn(x.repos.app, x.trigger).some((c) => c.body.includes('filed acme/lib#'))
      );
    });
    const attempts = await x.runs.ledger.listByRun((await x.fleetRun())!.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.survived).toEqual({ unpushedCommits: 1, dirtyFiles: 0 });
    const followUp = [...x.repos.lib.issues.values()].find((i) => i.title.startsWith('Follow-up from'));
    expect(followUp?.body).toContain('acme/lib#1');
    expect(followUp?.body).toContain(`acme/app#${x.trigger}`);
    expect(followUp?.body).toContain('The client ignores proxy settings');
    // Filed once, however many passes ran.
    expect([...x.repos.lib.issues.values()].filter((i) => i.title.startsWith('Follow-up from'))).toHaveLength(
      1,
    );
    // A person merges the PR on the forge by hand: that is their word too; the ticket closes once.
    const n = (await pr())!;
    const { sha } = await x.forge.mergePullRequest(
      { repo: { owner: 'acme', name: 'lib' }, number: n },
      { method: 'merge' },
    );
    await x.drive(() => x.world.issue(x.repos.lib, 1)?.state === 'closed');
    await x.round();
    expect(x.world.count('close', 'acme/lib', 1)).toBe(1);
    expect(x.world.commentsOn(x.repos.lib, 1).at(-1)!.body).toContain(sha);
    expect((await x.fleetRun())!.state).toBe('done');
  }, 120_000);
});
