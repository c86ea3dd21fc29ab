// `blitz/approved` only counts when someone with write permission adds it (seen in a signed label
// webhook with its sender): a label added by a read-only user, or one already there when the run
// started, leaves an untrusted issue held; a writer's label lets it run.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BlitzHarness,
  GITEA_SECRET,
  GITHUB_SECRET,
  startBlitzHarness,
} from '../support/blitz-harness.ts';
import { fixture, githubExample, signedGiteaRequest, signedGithubRequest } from '../support/signing.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Adds `blitz/approved` to issue `n` as `login` in the world, and sends the forge's signed webhook. */
const addApproval = async (x: BlitzHarness, n: number, login: string) => {
  const issue = x.world.issue(x.repo, n)!;
  if (!issue.labels.includes('blitz/approved')) issue.labels.push('blitz/approved');
  const repository = (p: Record<string, unknown>) => {
    const r = p.repository as Record<string, unknown>;
    Object.assign(r, {
      name: 'app',
      full_name: 'acme/app',
      owner: { ...(r.owner as object), login: 'acme' },
    });
  };
  const deliveryId = randomUUID();
  let req: { body: string; headers: Record<string, string> };
  if (x.kind === 'github') {
    const p = githubExample('issues', 'labeled');
    repository(p);
    (p.issue as Record<string, unknown>).number = n;
    (p.label as Record<string, unknown>).name = 'blitz/approved';
    p.sender = { ...(p.sender as object), login, type: 'User' };
    delete p.installation;
    req = signedGithubRequest({ secret: GITHUB_SECRET, event: 'issues', payload: p, deliveryId });
  } else {
    const p = fixture('gitea', 'issue_label.label_updated');
    repository(p);
    Object.assign(p.issue as Record<string, unknown>, {
      number: n,
      milestone: null,
      labels: [{ id: 77, name: 'blitz/approved', color: 'ffffff' }],
    });
    p.sender = { ...(p.sender as object), login };
    req = signedGiteaRequest({ secret: GITEA_SECRET, eventType: 'issue_label', payload: p, deliveryId });
  }
  const res = await x.bot.post(x.kind === 'github' ? '/api/github/webhooks' : '/api/gitea/webhooks', req);
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  await x.bot.queue.idle();
};

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
