// Bad input to the fleet commands, through the real intake on the fake GitHub and Gitea: each is
// answered in words on the issue, and nothing starts, runs or merges that should not.
import { afterEach, describe, expect, it } from 'vitest';
import { reviewMarkerTag } from '../../src/review/index.ts';
import { type FleetHarness, startFleetHarness } from '../support/fleet-harness.ts';

let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const start = async (forge: 'github' | 'gitea') => {
  h = await startFleetHarness({
    forge,
    issues: {
      app: [
        { number: 1, title: 'Closed already', state: 'closed' },
        { number: 2, title: 'Locked thread' },
        { number: 3, title: 'Needs prod', body: 'Needs production access to fix.' },
      ],
      lib: [],
    },
  });
  h.world.issue(h.repos.app, 2)!.locked = true;
  // A person's own PR (not opened by the bot) on a branch of the real origin.
  const main = (await h.repos.app.git.resolve('main'))!;
  await h.repos.app.git.createBranch('person/tweak', main);
  const pr = await h.world.openPull(h.repos.app, {
    head: 'person/tweak',
    base: 'main',
    title: 'A person’s tweak',
    body: 'by hand',
    author: 'alice',
  });
  return { x: h, pr: pr.number };
};

const botSays = (x: FleetHarness, n: number) =>
  x.world
    .commentsOn(x.repos.app, n)
    .filter((c) => c.author === x.world.botLogin)
    .map((c) => c.body);

describe.each(['github', 'gitea'] as const)('fleet commands with bad input on %s', (forge) => {
  it('answers each bad /ticket-fleet in words and starts nothing', async () => {
    const { x, pr } = await start(forge);
    await x.comment('/ticket-fleet', 'alice');
    await x.round();
    expect(botSays(x, x.trigger).at(-1)).toMatch(/Nothing was started|ticket-fleet <ticket>/);
    const refs = Array.from({ length: 200 }, (_, i) => `#${i + 1}`).join(' ');
    await x.comment(`/ticket-fleet ${refs}`, 'alice');
    await x.round();
    expect(botSays(x, x.trigger).at(-1)).toMatch(/50/);
    await x.comment(`/ticket-fleet #1 #2 #3 #${pr} nobody/nowhere#1 label:none`, 'alice');
    await x.round();
    const reply = botSays(x, x.trigger).at(-1)!;
    expect(reply).toContain('Nothing was started: no ticket survived triage.');
    expect(reply).toContain('#1: skipped, it is closed');
    expect(reply).toContain('#2: skipped, it is locked');
    expect(reply).toContain('#3: skipped, it needs production access');
    expect(reply).toContain(`#${pr}: skipped, it is a pull request, not an issue`);
    expect(reply).toContain('nobody/nowhere#1: skipped, the bot cannot reach it');
    expect(reply).toContain('label:none: skipped, no open issue has that label');
    expect(await x.runs.listRuns()).toEqual([]);
    expect(x.world.count('open_pull')).toBe(1);
  }, 60_000);

  it('refuses /merge on a PR the bot did not open and from a read-only person; /review works on a person’s PR', async () => {
    const { x, pr } = await start(forge);
    await x.comment('/merge', 'alice', pr, x.repos.app);
    await x.round();
    expect(botSays(x, pr).at(-1)).toContain('Nothing was merged');
    await x.comment(`/ticket-fleet merge #${pr}`, 'alice');
    await x.round();
    expect(botSays(x, x.trigger).at(-1)).toContain('Nothing was merged');
    await x.comment('/merge', 'rita', pr, x.repos.app);
    await x.round();
    expect(botSays(x, pr).at(-1)).toContain('@rita');
    expect(x.world.count('merge')).toBe(0);
    // /review on a person's PR: the stand-in author; the empty diff is said to be empty, not reviewed.
    await x.comment('/review', 'alice', pr, x.repos.app);
    await x.round();
    const review = x.world.commentsOn(x.repos.app, pr).filter((c) => c.body.includes(reviewMarkerTag));
    expect(review).toHaveLength(1);
    expect(review[0]!.body).toContain('nothing to review');
    // /review on an issue is answered, and posts no review.
    await x.comment('/review', 'alice', 3, x.repos.app);
    await x.round();
    expect(botSays(x, 3).at(-1)).toContain('works on a pull request');
  }, 60_000);
});
