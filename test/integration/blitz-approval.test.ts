// `blitz/approved` only counts when someone with write permission adds it (seen in a signed label
// webhook with its sender): a label added by a read-only user, or one already there when the run
// started, leaves an untrusted issue held; a writer's label lets it run.
import { afterEach, describe, expect, it } from 'vitest';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import { addApproval } from '../support/blitz-labels.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.each(['github', 'gitea'] as const)('blitz/approved on %s', (forge) => {
  it('counts only when a writer adds it: a label from before the run or from a read-only user keeps the issue held', async () => {
    h = await startBlitzHarness({
      forge,
      issues: [
        { number: 1, title: 'Trusted work', body: 'Add `src/a.ts`.', author: 'alice' },
        // Written by a read-only user; the label was already on it before the run started.
        {
          number: 2,
          title: 'Outside idea',
          body: 'Add `src/b.ts`.',
          author: 'rita',
          labels: ['blitz/approved'],
        },
      ],
    });
    const x = h;
    await x.comment('/blitz M1', 'alice');
    await x.drive(async () => x.world.issue(x.repo, 1)?.state === 'closed');
    for (let i = 0; i < 2; i++) await x.round();
    const runId = (await x.liveRun())!.id;
    const worked = async () => (await x.bot.runs.ledger.listByRun(runId)).map((a) => a.issue.number);
    expect(await worked()).toEqual([1]);

    // The read-only author labels it herself: still held, nothing recorded.
    await addApproval(x, 2, 'rita');
    for (let i = 0; i < 3; i++) await x.round();
    expect(await worked()).toEqual([1]);
    expect((await x.liveRun())!.progress.approvals).toBeUndefined();
    const dashboard = x.world.commentsOn(x.repo, x.trigger).find((c) => c.body.includes('blitz-dashboard'))!;
    expect(dashboard.body).toContain('blitz/approved');

    // A writer adds it: recorded with her name, and the issue is worked and closed.
    await addApproval(x, 2, 'alice');
    expect((await x.liveRun())!.progress.approvals).toEqual({ 'acme/app#2': 'alice' });
    await x.drive(async () => x.world.issue(x.repo, 2)?.state === 'closed');
    expect(await worked()).toEqual([1, 2]);
  }, 120_000);
});
