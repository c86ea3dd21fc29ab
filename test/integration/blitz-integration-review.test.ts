// Slow for a reason: a blitz on each forge with an integration review after every one-issue wave, on real git.
// The integration review on the real bot over the fake forges: after a wave or 3 merged issues the accumulated
// diff of `blitz/m1` is reviewed (here after each one-issue wave); a finding becomes one milestone issue (however often it is repeated),
// wired as a blocker of the open issue the reviewer names, and readiness waits for a clean review.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunnerEvent } from '../../src/runner/types.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import type { SeedIssue } from '../support/world.ts';

const chain: SeedIssue[] = [
  { number: 1, title: 'Model', body: 'Add `src/a.ts`.' },
  { number: 2, title: 'Store', body: 'Add `src/b.ts`.', blockedBy: [1] },
  { number: 3, title: 'API', body: 'Add `src/c.ts`.', blockedBy: [2] },
  { number: 4, title: 'UI', body: 'Add `src/d.ts`.', blockedBy: [3] },
];
const finding = '- [medium] src/b.ts:1 — the store calls it userId, the model calls it user_id (blocks #3)';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.each(['github', 'gitea'] as const)('integration review on %s', (forge) => {
  it('files a finding once as a milestone issue blocking the issue it names, and holds readiness while not clean', async () => {
    const spawned: number[] = [];
    let x: BlitzHarness | undefined;
    const onRunnerEvent = (e: RunnerEvent) => {
      if (e.type !== 'attempt.started' || !x) return;
      void x.bot.runs.ledger.get(e.attemptId).then((a) => a && spawned.push(a.issue.number));
    };
    h = await startBlitzHarness({
      forge,
      issues: chain,
      review: true,
      reviewerArgs: ['--verdict', 'minor', '--findings', finding],
      onRunnerEvent,
    });
    x = h;
    const y = h;
    await y.comment('/blitz M1', 'alice');
    const filed = () =>
      [...y.repo.issues.values()].filter((i) => !i.pull && i.title.startsWith('Integration review:'));
    await y.drive(async () => {
      const f = filed();
      return (
        f.length > 0 &&
        f.every((i) => i.state === 'closed') &&
        y.world.issue(y.repo, 4)?.state === 'closed' &&
        (await y.bot.runs.ledger.listOpen()).length === 0
      );
    });
    for (let i = 0; i < 3; i++) await y.round();
    // One issue for the finding, in the milestone, whatever the later reviews repeated.
    const f = filed();
    expect(f).toHaveLength(1);
    expect(f[0]!.milestoneId).toBe(y.world.milestoneByTitle(y.repo, 'M1')!.id);
    expect(f[0]!.body).toContain('userId');
    // Reviewed after the first wave (#1 merged); the finding blocks #3 in the tracker, and #3 waited for it.
    expect(y.world.issue(y.repo, 3)!.blockedBy.map((b) => b.number)).toContain(f[0]!.number);
    expect(spawned.indexOf(f[0]!.number)).toBeGreaterThan(spawned.indexOf(1));
    expect(spawned.indexOf(3)).toBeGreaterThan(spawned.indexOf(f[0]!.number));
    // The latest review is still not clean: no ship, and the dashboard says why.
    const run = (await y.liveRun())!;
    expect(run.progress.integrationReview?.verdict).toBe('minor');
    // Kept for the planner, which dispatches the findings before unrelated new issues.
    expect(run.progress.reviewFindings).toEqual([f[0]!.number]);
    expect([...y.repo.issues.values()].some((i) => i.pull?.head === 'blitz/m1')).toBe(false);
    const dashboard = y.world.commentsOn(y.repo, y.trigger).find((c) => c.body.includes('blitz-dashboard'))!;
    expect(dashboard.body).toMatch(/integration review(:|&#58;) minor/);
  }, 180_000);
});
