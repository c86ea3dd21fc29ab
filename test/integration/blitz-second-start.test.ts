// Slow for a reason: two blitz runs of one milestone on each forge, on real git.
// A second `/blitz M1` after a finished run: one new run, and a reply that says whether it continues on
// the integration branch the earlier run left (it holds work `main` has not) or starts it fresh (moved
// to `main`'s head through the forge's API). A start that fails after the run was taken ends that run
// with a message and the command that tries again, and no later tick starts a second run from it.
import { afterEach, describe, expect, it } from 'vitest';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const botSaid = (x: BlitzHarness, text: string) =>
  x.world.commentsOn(x.repo, x.trigger).filter((c) => c.author === x.world.botLogin && c.body.includes(text));

const runs = (x: BlitzHarness) => x.bot.runs.listRuns();

/** The milestone's first run, driven until it finished (no worker left). */
const firstRunFinished = async (x: BlitzHarness) => {
  await x.comment('/blitz M1');
  await x.drive(async () => {
    const all = await runs(x);
    return all.length === 1 && all[0]!.state === 'done' && (await x.bot.runs.ledger.listOpen()).length === 0;
  });
};

/** A second `/blitz M1` for a new issue of the milestone, and a few more ticks after it. */
const secondBlitz = async (x: BlitzHarness) => {
  x.world.addIssue(x.repo, { number: 9, title: 'Later work', body: 'Add `src/z.ts`.', milestone: 'M1' });
  await x.comment('/blitz M1');
  for (let i = 0; i < 3; i++) await x.round();
};

describe.each(['github', 'gitea'] as const)('a second /blitz on %s', (forge) => {
  it('continues on the integration branch when it holds unmerged work, and says so', async () => {
    h = await startBlitzHarness({ forge, issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }] });
    await firstRunFinished(h);
    const before = await h.origin.git.resolve('blitz/m1');
    expect(await h.origin.git.commitsAhead('main', 'blitz/m1')).not.toEqual([]);
    await secondBlitz(h);
    expect(await runs(h)).toHaveLength(2);
    expect(botSaid(h, 'already running')).toEqual([]);
    const reply = botSaid(h, 'Continuing on `blitz/m1`');
    expect(reply).toHaveLength(1);
    expect(reply[0]!.body).toMatch(/holds \d+ commit\(s\) that `main` has not/);
    // The earlier run's work is where it was: the new run builds on it.
    expect(await h.origin.git.isAncestor(before!, 'blitz/m1')).toBe(true);
    expect(h.world.count('move_branch')).toBe(0);
  }, 120_000);

  it('starts fresh from the default branch when the branch holds nothing main has not', async () => {
    h = await startBlitzHarness({ forge, issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }] });
    await firstRunFinished(h);
    // The milestone PR was merged: main has everything; main moves on after it.
    await h.origin.git.merge('main', 'blitz/m1', 'merge', 'Merge the milestone');
    const oldTip = await h.origin.git.resolve('blitz/m1');
    const git = h.origin.git;
    const next = await git.ok(['commit-tree', 'main^{tree}', '-p', 'main', '-m', 'main moves on']);
    await git.ok(['update-ref', 'refs/heads/main', next]);
    const mainHead = await h.origin.git.resolve('main');
    await secondBlitz(h);
    expect(await runs(h)).toHaveLength(2);
    expect(botSaid(h, 'Starting fresh')).toHaveLength(1);
    expect(botSaid(h, 'Continuing')).toEqual([]);
    // Moved to main's head (not left at the old tip), and the new run works on from there.
    expect(await h.origin.git.isAncestor(mainHead!, 'blitz/m1')).toBe(true);
    expect(oldTip).not.toBe(mainHead);
  }, 120_000);

  it('a start that fails after the run was taken ends it, tells the person, and is not retried', async () => {
    h = await startBlitzHarness({ forge, issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }] });
    if (h.fakeGithub) h.fakeGithub.failNext(20, { status: 403, match: /^POST .*\/git\/refs$/ });
    else h.fakeGitea!.failNext({ status: 403, operationId: 'repoCreateBranch', times: 20 });
    await h.comment('/blitz M1');
    for (let i = 0; i < 4; i++) await h.round();
    const all = await runs(h);
    expect(all).toHaveLength(1);
    expect(all[0]!.state).toBe('cancelled');
    expect(all[0]!.progress.reason).toMatch(/could not start/);
    const told = botSaid(h, 'could not start');
    expect(told).toHaveLength(1);
    expect(told[0]!.body).toContain('`/blitz M1` tries again');
    expect(botSaid(h, 'already running')).toEqual([]);
    const creates = h.fakeGithub
      ? h.fakeGithub.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/git/refs')).length
      : h.fakeGitea!.count('repoCreateBranch');
    expect(creates).toBe(1);
    // Once the fault is gone, the command it names starts one run.
    h.fakeGithub?.clearFailures();
    h.fakeGitea?.clearFailures();
    await h.comment('/blitz M1');
    await h.round();
    expect((await runs(h)).filter((r) => r.state !== 'cancelled')).toHaveLength(1);
  }, 120_000);
});
