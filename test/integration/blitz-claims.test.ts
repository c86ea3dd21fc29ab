// slow: each case runs a whole milestone on the in-process bot with real git and fake agents (both forges).
// Nothing claimed that did not run (issue 37): the milestone PR's body, the bot's check or status on it,
// the dashboard, the notifications and the replies say exactly what ran and on which commit, from the
// run's record of its gates; "Live at" names only an address that answered.
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectMilestoneFinished,
  startUnattendedWorld,
  type UnattendedWorld,
} from '../support/unattended-world.ts';
import { checksOf } from '../support/world-checks.ts';

let w: UnattendedWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const node = process.execPath;
const configPath = (forge: 'github' | 'gitea') =>
  forge === 'github' ? '.github/blitz.yml' : '.gitea/blitz.yml';

/** The milestone PR (head `blitz/m1`) and every word the bot wrote about it and about the run. */
const wordsOf = (x: UnattendedWorld) => {
  const pr = [...x.repo.issues.values()].find((i) => i.pull?.head === 'blitz/m1');
  if (!pr?.pull) throw new Error('no milestone PR');
  const checks = checksOf(x.world);
  const runs = checks.runsFor(x.repo, pr.pull.headSha).filter((r) => r.name === 'blitz');
  const statuses = checks.statusesFor(x.repo, pr.pull.headSha).filter((s) => s.context.startsWith('blitz'));
  return {
    pr,
    check: [
      ...runs.map((r) => `${r.conclusion}: ${r.title}\n${r.summary}`),
      ...statuses.map((s) => `${s.state}: ${s.description}`),
    ],
    dashboard: x.dashboard(),
    notices: x.notices.map((n) => `${n.sentence} ${n.url ?? ''}`),
    replies: x.replies(),
  };
};

describe.each(['github', 'gitea'] as const)('what a finished milestone claims on %s', (forge) => {
  it('with no build, smoke or preview configured, nothing anywhere says green or names a live address', async () => {
    w = await startUnattendedWorld({
      forge,
      issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }],
    });
    const x = w;
    await x.start();
    await expectMilestoneFinished(x, [1], [1], { alerts: 0 });
    const words = wordsOf(x);
    expect(words.pr.body).toContain('build not configured, smoke not configured');
    expect(words.check.length).toBeGreaterThan(0);
    // The bot's own mark on the PR is neutral (Gitea: warning), never success, when nothing ran.
    expect(words.check.join('\n')).toMatch(/^(neutral|warning): every issue closed; build not configured/m);
    expect(words.check.join('\n')).not.toMatch(/^success/m);
    const shipped = x.noticesOf('shipped');
    expect(shipped).toHaveLength(1);
    expect(shipped[0]!.sentence).toContain('build not configured, smoke not configured, no preview');
    // The milestone PR never stands in for a live address.
    expect(shipped[0]!.url ?? '').not.toContain('/pull');
    expect(words.replies.join('\n')).not.toContain('Live at');
    expect(words.dashboard).toContain('**Checks:** build not configured, smoke not configured');
    expect(words.dashboard).toContain('**Shipped: no preview**');
    expect(words.dashboard).not.toContain('Not ready yet');
    for (const text of [words.pr.body, ...words.check, words.dashboard, ...words.notices, ...words.replies])
      expect(text).not.toMatch(/green|✓|\bpassed\b/i);
  }, 180_000);

  it('a build that ran is named with its commit on the PR, its check, the notice and the dashboard', async () => {
    w = await startUnattendedWorld({
      forge,
      issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }],
      files: { [configPath(forge)]: `build: ${JSON.stringify([node, '-e', '0'])}\n` },
    });
    const x = w;
    await x.start();
    await expectMilestoneFinished(x, [1], [1], { alerts: 0 });
    const sha = (await x.run())?.progress.build?.sha;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const short = sha!.slice(0, 7);
    const words = wordsOf(x);
    expect(words.pr.body).toContain(`build ✓ at \`${short}\`, smoke not configured`);
    expect(words.check.join('\n')).toMatch(
      new RegExp(`^success: every issue closed; build ✓ at ${short}, smoke not configured`, 'm'),
    );
    expect(x.noticesOf('shipped')[0]?.sentence).toContain(
      `build ✓ at ${short}, smoke not configured, no preview`,
    );
    expect(words.dashboard).toContain(`**Checks:** build ✓ at \`${short}\`, smoke not configured`);
  }, 180_000);

  it.each([
    ['ship.requireChecks in blitz.yml', 'config'],
    ['/blitz M1 --require-checks', 'flag'],
  ] as const)(
    'with checks required (%s) and none configured, nothing ships until a build is configured and the run resumed',
    async (_, how) => {
      w = await startUnattendedWorld({
        forge,
        issues: [{ number: 1, title: 'First', body: 'Add `src/a.ts`.' }],
        files: how === 'config' ? { [configPath(forge)]: 'ship:\n  requireChecks: true\n' } : {},
      });
      const x = w;
      await (how === 'config' ? x.start() : x.command('/blitz M1 --require-checks'));
      await x.driveToState('blocked', 90_000);
      const [notice, ...more] = x.noticesOf('blocked');
      expect(more).toHaveLength(0);
      expect(notice?.sentence).toContain(
        'nothing verified this work (build not configured, smoke not configured)',
      );
      expect(notice?.sentence).toContain('add a build: or smoke: command to blitz.yml');
      expect(notice?.command).toBe('/blitz resume');
      expect(x.noticesOf('shipped')).toHaveLength(0);
      // Nothing was shipped: no milestone PR.
      expect([...x.repo.issues.values()].some((i) => i.pull?.head === 'blitz/m1')).toBe(false);
      // The person configures a build and resumes: it runs, and the milestone ships verified.
      const build = `build: ${JSON.stringify([node, '-e', '0'])}\n`;
      x.repo.files.set(
        configPath(forge),
        how === 'config' ? `${build}ship:\n  requireChecks: true\n` : build,
      );
      await x.command('/blitz resume');
      await x.driveToState('done', 90_000);
      const sha = (await x.run())?.progress.build?.sha;
      expect(sha).toMatch(/^[0-9a-f]{40}$/);
      expect(x.noticesOf('shipped')[0]?.sentence).toContain(`build ✓ at ${sha!.slice(0, 7)}`);
    },
    180_000,
  );
});
