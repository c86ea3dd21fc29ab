// Slow for a reason: a one-issue milestone blitzed to the end on each forge, on real git, with the
// review leg on. Issue 38: the review leg reads the bot's own PR's diff with git in the bot's clone,
// not from the forge, and the reviewer sees the very diff the forge would have served.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import { tempDir } from '../support/git.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.each(['github', 'gitea'] as const)('the review leg on %s', (forge) => {
  it("reads the PR's diff with git, never from the forge, and the reviewer gets the forge's text", async () => {
    const capture = join(tempDir('review-diff-'), 'seen.json');
    h = await startBlitzHarness({
      forge,
      review: true,
      reviewerArgs: ['--verdict', 'clean', '--capture', capture],
      issues: [{ number: 1, title: 'Add the first file', body: 'One file.' }],
    });
    const x = h;
    await x.comment('/blitz M1');
    await x.drive(async () => {
      const run = await x.liveRun();
      return run?.state === 'done' && (await x.bot.runs.ledger.listOpen()).length === 0;
    }, 240_000);
    const pr = [...x.repo.issues.values()].find((i) => i.pull?.base === 'blitz/m1' && i.pull.merged);
    expect(pr, 'the merged PR').toBeDefined();
    // The forge's diff of the PR as the reviewer saw it: its head against the integration branch it
    // merged into (the merge's first parent), as both fakes serve `base...head`.
    const merge = pr!.pull!.mergeCommitSha!;
    const base = (await x.origin.git.ok(['rev-parse', `${merge}^1`])).trim();
    const served = await x.origin.git.diff(base, pr!.pull!.headSha);
    expect(served).toContain('fake-1.txt');
    const seen = JSON.parse(readFileSync(capture, 'utf8')) as { prompt: string };
    expect(seen.prompt).toContain(`\`\`\`diff\n${served}\n\`\`\``);
    expect(seen.prompt).not.toContain('PARTIAL DIFF');
    // Tried: the review leg reading the diff from the forge (GitHub's `pulls/get` as a diff, Gitea's
    // `.diff`), one request per reviewed PR.
    const diffReads = (x.fakeGithub?.requests ?? x.fakeGitea?.requests ?? []).filter(
      (r) =>
        (r.operationId === 'pulls/get' && 'accept' in r && String(r.accept).includes('diff')) ||
        r.operationId === 'repoDownloadPullDiffOrPatch',
    );
    expect(diffReads).toEqual([]);
    // The leg's comment on a PR the pass opened is posted without listing its conversation first
    // (tried: one list per reviewed PR on Gitea, whose PR read carries no comment count).
    const requests: { operationId?: string }[] = x.fakeGithub?.requests ?? x.fakeGitea?.requests ?? [];
    const listed = requests.filter(
      (r) => r.operationId === (forge === 'github' ? 'issues/list-comments' : 'issueGetComments'),
    );
    expect(listed).toEqual([]);
  }, 240_000);
});
