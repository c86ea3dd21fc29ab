// Issue 21: a PR whose CI stays red after `ci.maxFixAttempts` fix resumes is held, with exactly one
// notification and one comment naming `/blitz retry #n`; nothing merges meanwhile. `/blitz retry #1`
// gives its worker another round: the session is resumed with the failure again, the fix goes green,
// and only then is the PR merged. A fake CI runs the repository's test script on every pushed head.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Notifier, RunNotice } from '../../src/ship/notice.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import { brokenFileTestScript, closeCiWorld, type FakeCi, startFakeCi } from '../support/fake-ci.ts';
import { tempDir } from '../support/git.ts';

let h: BlitzHarness | undefined;
let ci: FakeCi | undefined;
afterEach(async () => {
  await closeCiWorld(ci, h);
  h = undefined;
  ci = undefined;
});

describe.each(['github', 'gitea'] as const)('a PR held on red CI on %s', (forge) => {
  it('is held after maxFixAttempts with one notification, and /blitz retry resumes it to a green merge', async () => {
    const dir = tempDir('blitz-hold-');
    const trace = join(dir, 'trace.jsonl');
    const modeFile = join(dir, 'mode');
    writeFileSync(modeFile, 'broken\n');
    const sent: RunNotice[] = [];
    const chat: Notifier = {
      target: 'chat',
      events: new Set(['needs_person', 'started', 'shipped', 'failed', 'blocked', 'parked']),
      async notify(n) {
        sent.push(n);
        return { ok: true, target: 'chat', attempts: 1 };
      },
    };
    const configPath = forge === 'github' ? '.github/blitz.yml' : '.gitea/blitz.yml';
    h = await startBlitzHarness({
      forge,
      issues: [{ number: 1, title: 'Red twice: the store', body: 'Add `fake-1.txt`.' }],
      notifiers: [chat],
      files: { 'test.sh': brokenFileTestScript, [configPath]: 'ci:\n  wait: always\n  maxFixAttempts: 1\n' },
      agentEnv: { FAKE_AGENT_MODE_FILE: modeFile, FAKE_AGENT_TRACE: trace },
    });
    const x = h;
    ci = await startFakeCi({
      world: x.world,
      repo: x.repo,
      bareDir: x.origin.bareDir,
      forge,
      allBranches: true,
    });
    const resumes = () =>
      readFileSync(trace, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { args: string[]; prompt?: string })
        .filter((t) => t.args.includes('--resume'));
    const held = async () => (await x.liveRun())?.progress.prFeedback?.['acme/app#1']?.held;
    const needsPerson = () => sent.filter((n) => n.event === 'needs_person');

    await x.comment('/blitz M1', 'alice');
    await x.drive(async () => (await held()) !== undefined);
    // More passes change nothing: one notice, one comment, no merge, no further resume.
    for (let i = 0; i < 3; i++) await x.round();
    expect(await held()).toContain('CI stayed red after 1 fix attempt(s)');
    expect(needsPerson()).toHaveLength(1);
    expect(needsPerson()[0]!.sentence).toContain('`/blitz retry #1`');
    const pr = [...x.repo.issues.values()].find((i) => i.pull?.base === 'blitz/m1')!;
    const holdComments = x.world
      .commentsOn(x.repo, pr.number)
      .filter((c) => c.author === x.world.botLogin && c.body.includes('is held'));
    expect(holdComments).toHaveLength(1);
    expect(pr.pull?.merged).toBe(false);
    expect(resumes()).toHaveLength(1);
    expect(resumes()[0]!.prompt).toContain('fake-1.txt:1: still broken');

    // A person looks, and gives the worker another round; this time its fix works.
    writeFileSync(modeFile, 'revise\n');
    await x.comment('/blitz retry #1', 'alice');
    await x.drive(() => x.world.issue(x.repo, 1)?.state === 'closed', 120_000);

    expect(resumes()).toHaveLength(2);
    expect(resumes()[1]!.prompt).toContain("the repository's CI failed on its head");
    expect(resumes()[1]!.prompt).toContain('fake-1.txt:1: still broken');
    expect(needsPerson()).toHaveLength(1);
    const merged = [...x.repo.issues.values()].find((i) => i.number === pr.number)!;
    expect(merged.pull?.merged).toBe(true);
    expect(ci.results.find((r) => r.sha === merged.pull!.headSha)?.passed).toBe(true);
    // Nothing merged red: no state of the integration branch ever held the broken file.
    const firstParents = (await x.origin.git.ok(['log', '--first-parent', '--format=%H', 'blitz/m1']))
      .trim()
      .split('\n');
    for (const sha of firstParents) {
      const file = await x.origin.git.exec(['show', `${sha}:fake-1.txt`]);
      expect(file.exitCode !== 0 || !file.stdout.includes('broken'), sha).toBe(true);
    }
  }, 240_000);
});
