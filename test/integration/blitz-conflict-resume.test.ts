// Slow for a reason: a one-issue milestone blitzed to the end on each forge, on real git.
// Issue 37: a merge into the integration branch refused for a conflict goes back to the session that
// wrote the work. A person commits to the integration branch while the worker's PR waits on CI (a move
// no merge of the run made, so no tell of a changed base can come first); both rewrote README.md's first
// line. The merge is refused, the session is resumed with the conflicting file and told to merge the
// integration branch in (the fake worker really runs `git merge` and keeps both sides), the markers are
// checked, and the PR merges. Nothing is redone from scratch.
import { afterEach, describe, expect, it } from 'vitest';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import { closeCiWorld, type FakeCi, startFakeCi } from '../support/fake-ci.ts';
import { commitAndPush, gitIn, tempDir } from '../support/git.ts';

let h: BlitzHarness | undefined;
let ci: FakeCi | undefined;
afterEach(async () => {
  await closeCiWorld(ci, h);
  h = undefined;
  ci = undefined;
});

describe.each(['github', 'gitea'] as const)('blitz conflict resume on %s', (forge) => {
  it('a merge refused for a conflict is resolved by the session that wrote it, with no redo', async () => {
    h = await startBlitzHarness({
      forge,
      agentEnv: { FAKE_AGENT_MODE: 'conflict', FAKE_AGENT_RESUME_MODE: 'merge-base' },
      issues: [{ number: 1, title: 'Retitle the README', body: 'One line.' }],
      // CI must report before anything merges.
      files: {
        'test.sh': 'echo ok\n',
        [forge === 'github' ? '.github/blitz.yml' : '.gitea/blitz.yml']:
          'ci:\n  wait: always\n  settleSeconds: 0\n',
      },
    });
    const x = h;
    // The first CI run of the worker's head waits until a person has rewritten the same line on the
    // integration branch.
    let personPushed = false;
    const person = async () => {
      const work = tempDir('conflict-person-');
      await gitIn(work, 'clone', '--quiet', '--branch', 'blitz/m1', x.origin.bareDir, '.');
      await commitAndPush(
        work,
        { 'README.md': '# retitled by a person\n' },
        'A person retitles it',
        'blitz/m1',
      );
    };
    ci = await startFakeCi({
      world: x.world,
      repo: x.repo,
      bareDir: x.origin.bareDir,
      forge,
      allBranches: true,
      gate: async (branch) => {
        if (!branch.startsWith('m1/') || personPushed) return;
        personPushed = true;
        await person();
      },
    });
    await x.comment('/blitz M1');
    await x.drive(async () => {
      const run = await x.liveRun();
      return run?.state === 'done' && (await x.bot.runs.ledger.listOpen()).length === 0;
    }, 200_000);
    expect(personPushed).toBe(true);
    const run = (await x.liveRun())!;
    expect(x.world.issue(x.repo, 1)?.state).toBe('closed');
    const [row] = await x.bot.runs.listRunIssues(run.id);
    // The refused merge went back once to its own session, which resolved it: no bounce, no redo.
    expect(row!.conflictResumes).toBe(1);
    expect(row!.bouncedAfter).toBeUndefined();
    const attempts = await x.bot.runs.ledger.listByRun(run.id);
    expect(attempts.map((a) => a.outcome)).toEqual(['solved']);
    expect(attempts[0]!.conflictFiles).toEqual(['README.md']);
    // Both rewrites are on the integration branch, and no conflict marker is.
    const readme = await x.origin.git.ok(['show', 'blitz/m1:README.md']);
    expect(readme).toContain('# retitled by a person');
    expect(readme).toContain('# rewritten for #1');
    expect(readme).not.toMatch(/^(<{7}|={7}|>{7})/m);
    // The integration branch holds the person's commit: the session merged it in, never rebased.
    const log = await x.origin.git.ok(['log', '--format=%s', 'blitz/m1']);
    expect(log).toContain('A person retitles it');
    expect(x.world.commentsOn(x.repo, 1).some((c) => c.body.includes('bounced back'))).toBe(false);
  }, 240_000);
});
