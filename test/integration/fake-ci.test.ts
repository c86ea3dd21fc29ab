// The fake CI over real git: a push to a PR head runs the repository's test script on that commit and
// reports it as a GitHub Actions check run (read back through the GitHub forge, with annotation and
// log tail) or a Gitea commit status (read back through the Gitea forge); a fix push goes green.
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeCi, startFakeCi } from '../support/fake-ci.ts';
import { startGiteaHarness } from '../support/fake-gitea/setup.ts';
import { githubHarness } from '../support/fake-github/harness.ts';
import { commitAndPush, gitIn, removeDir, tempDir } from '../support/git.ts';
import { World } from '../support/world.ts';
import { checksOf } from '../support/world-checks.ts';
import { createRealGitRepo, type RealGitRepo } from '../support/world-git.ts';

const testScript =
  'v=$(cat value.txt)\nif [ "$v" != ok ]; then echo "value.txt:1: expected ok, got $v"; exit 1; fi\necho all good\n';
const app = { owner: 'acme', name: 'app' };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const setup = async (world: World) => {
  const origin: RealGitRepo = await createRealGitRepo({
    files: { 'test.sh': testScript, 'value.txt': 'ok\n' },
  });
  cleanups.push(() => origin.cleanup());
  const repo = world.addRepo('acme/app', { git: origin.git });
  const work = tempDir('blitz-ci-work-');
  cleanups.push(() => removeDir(work));
  await gitIn(work, 'clone', '--quiet', origin.bareDir, '.');
  await gitIn(work, 'checkout', '--quiet', '-b', 'feature');
  await commitAndPush(work, { 'value.txt': 'ok\n', 'a.txt': 'a\n' }, 'start', 'feature');
  await world.openPull(repo, { head: 'feature', base: 'main', title: 'x', body: '', author: world.botLogin });
  return { origin, repo, work };
};

describe('fake CI', () => {
  it('GitHub: a red push becomes a failed Actions check run with its annotation and log; the fix goes green', async () => {
    const h = await githubHarness();
    cleanups.push(() => h.close());
    cleanups.push(() => checksOf(h.world).close());
    // The harness's memory repo is replaced by a real one under the same name.
    h.world.repos.delete('acme/app');
    const { origin, repo, work } = await setup(h.world);
    const ci: FakeCi = await startFakeCi({ world: h.world, repo, bareDir: origin.bareDir, forge: 'github' });
    cleanups.push(() => ci.close());

    const red = await commitAndPush(work, { 'value.txt': 'bad\n' }, 'break it', 'feature');
    expect(await ci.whenDone(red)).toMatchObject({ passed: false });
    const checks = await h.forge.listChecks!(app, red);
    expect(checks).toEqual([
      expect.objectContaining({
        name: 'test',
        conclusion: 'failure',
        annotations: [
          expect.objectContaining({ path: 'value.txt', startLine: 1, message: 'expected ok, got bad' }),
        ],
      }),
    ]);
    expect(await h.forge.jobLogTail!(app, checks[0]!.actionsJobId!, 1000)).toContain('expected ok, got bad');

    const green = await commitAndPush(work, { 'value.txt': 'ok\n' }, 'fix it', 'feature');
    expect(await ci.whenDone(green)).toMatchObject({ passed: true });
    expect(await h.forge.listChecks!(app, green)).toEqual([
      expect.objectContaining({ name: 'test', status: 'completed', conclusion: 'success' }),
    ]);
  });

  it('Gitea: the result is a commit status; a push to a branch without a PR runs nothing', async () => {
    const world = new World('blitz-bot');
    const { origin, repo, work } = await setup(world);
    const h = await startGiteaHarness({ world });
    cleanups.push(async () => {
      await h.fake.close();
      h.fake.assertNoViolations();
    });
    const ci = await startFakeCi({ world, repo, bareDir: origin.bareDir, forge: 'gitea' });
    cleanups.push(() => ci.close());

    const red = await commitAndPush(work, { 'value.txt': 'bad\n' }, 'break it', 'feature');
    await ci.whenDone(red);
    expect(await h.forge.listChecks!(app, red)).toEqual([
      expect.objectContaining({ name: 'ci/test', conclusion: 'failure', reporter: 'fake-ci' }),
    ]);

    const other = await commitAndPush(work, { 'b.txt': 'b\n' }, 'elsewhere', 'no-pr');
    // The hook has handed the push over before `git push` returns, and a run records its pending
    // status at once: none on that commit means none started.
    expect(checksOf(world).statusesFor(repo, other)).toEqual([]);
    await ci.runBranch('feature');
    expect(ci.results.map((r) => r.branch)).toEqual(['feature', 'feature']);
    expect(ci.results.some((r) => r.sha === other)).toBe(false);
  });
});
