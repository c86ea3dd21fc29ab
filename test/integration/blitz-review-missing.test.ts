// Slow for a reason: a one-issue milestone blitzed to the end on each forge, on real git, with the
// review leg on and the forge refusing its comment. Issue 36: a blitz review leg that fails is asked
// again a bounded number of times; then the PR's review verdict says why it has none in the bot's
// words, a person is told once, and the run goes on to done. Before: the first failure was taken for
// "no reviewer available" and nobody was told.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { maxReviewLegFailures } from '../../src/plan/review-leg-failures.ts';
import { tempDir } from '../support/git.ts';
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

/** The review leg's comment on the worker's PR: #1 is the issue, #2 the control room, #3 the PR. */
const reviewComment = /^POST (\/api\/v[13])?\/repos\/acme\/app\/issues\/3\/comments$/;

describe.each(['github', 'gitea'] as const)('a blitz whose review leg keeps failing on %s', (forge) => {
  it('asks a bounded number of times, names the missing review, tells a person once and finishes', async () => {
    w = await startUnattendedWorld({
      forge,
      review: true,
      issues: [{ number: 1, title: 'Add the first file', body: 'One file.' }],
    });
    const x = w;
    x.forgeFails(422, 1000, reviewComment);
    await x.start();
    await expectMilestoneFinished(x, [1], [1], { alerts: 1, timeoutMs: 180_000 });
    const pr = [...x.repo.issues.values()].find((i) => i.pull);
    expect(pr?.number).toBe(3);
    expect(pr?.pull?.merged).toBe(true);
    const missing = `the review leg failed (the bot's log has the error), ${maxReviewLegFailures} times`;
    const run = (await x.run())!;
    expect(run.progress.prFeedback?.['acme/app#1']?.reviewVerdict).toBe(`no review: ${missing}`);
    expect(run.progress.reviewUnavailable).toBe(true);
    // Exactly the bound of review comments was tried, and none landed on the PR.
    const requests: { method: string; path: string }[] = x.h.fakeGithub?.requests ?? x.h.fakeGitea!.requests;
    expect(requests.filter((r) => reviewComment.test(`${r.method} ${r.path}`))).toHaveLength(
      maxReviewLegFailures,
    );
    expect(x.world.commentsOn(x.repo, 3)).toEqual([]);
    // Told once: to the notify target, and on the control-room issue, in the bot's words.
    const sentence = `#1's PR #3 has no review: ${missing}; the run goes on and merges it without one`;
    expect(x.noticesOf('warning').map((n) => n.sentence)).toEqual([sentence]);
    expect(x.noticesOf('warning')[0]?.issue).toBe(1);
    expect(x.replies().filter((r) => r.includes('has no review'))).toEqual([`**blitz: M1**: ${sentence}`]);
  }, 240_000);
});

describe('a blitz whose every reviewer fails on github', () => {
  it('asks the bounded number of times, then names why in its words and finishes', async () => {
    // The integration review still answers (a clean verdict): only the PR's review leg fails.
    const modeFile = join(tempDir('review-missing-'), 'integration-mode');
    writeFileSync(modeFile, 'clean\n');
    w = await startUnattendedWorld({
      forge: 'github',
      review: true,
      reviewerArgs: ['--integration-mode-file', modeFile, '--exit', '3'],
      issues: [{ number: 1, title: 'Add the first file', body: 'One file.' }],
    });
    const x = w;
    await x.start();
    await expectMilestoneFinished(x, [1], [1], { alerts: 1, timeoutMs: 180_000 });
    const missing = `every reviewer failed (fake-reviewer exited with code 3), ${maxReviewLegFailures} times`;
    const run = (await x.run())!;
    expect(run.progress.prFeedback?.['acme/app#1']?.reviewVerdict).toBe(`no review: ${missing}`);
    expect(x.noticesOf('warning').map((n) => n.sentence)).toEqual([
      `#1's PR #3 has no review: ${missing}; the run goes on and merges it without one`,
    ]);
    // The reviewer's own output is not quoted.
    expect(x.replies().join('\n')).not.toContain('fake-reviewer:');
  }, 240_000);
});

describe('a blitz whose only reviewer is not installed on this host (github)', () => {
  it('skips the PR review once as "no reviewer available" and warns nobody of it', async () => {
    // No reviewer can start at all: asking again cannot help. The PR merges; the integration review,
    // with no reviewer either, then waits on a person (`review_unclear`), as it did before.
    w = await startUnattendedWorld({
      forge: 'github',
      review: true,
      reviewerProgram: [join(tempDir('no-reviewer-'), 'absent-reviewer-cli')],
      issues: [{ number: 1, title: 'Add the first file', body: 'One file.' }],
    });
    const x = w;
    await x.start();
    await x.driveToState('review_unclear', 180_000);
    expect(x.closes(1)).toBe(1);
    const run = (await x.run())!;
    expect(run.progress.prFeedback?.['acme/app#1']?.reviewVerdict).toBe('skipped (no reviewer available)');
    expect(run.progress.prFeedback?.['acme/app#1']?.reviewLegFailures).toBeUndefined();
    expect(run.progress.reviewUnavailable).toBe(true);
    expect(x.noticesOf('warning')).toEqual([]);
    // The leg ran once: its one "no review" comment on the PR was written once, never edited again.
    const onPr = x.world.commentsOn(x.repo, 3);
    expect(onPr).toHaveLength(1);
    const writes = x.h.fakeGithub!.requests.filter(
      (r: { method: string; path: string }) =>
        r.method !== 'GET' &&
        (r.path.endsWith('/issues/3/comments') || r.path.endsWith(`/issues/comments/${onPr[0]!.id}`)),
    );
    expect(writes).toHaveLength(1);
  }, 240_000);
});
