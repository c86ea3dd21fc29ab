// Adding `blitz/approved` in a blitz test as a person does it: the label in the world, and the
// forge's signed label webhook naming who added it, through the real intake.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type BlitzHarness, GITEA_SECRET, GITHUB_SECRET } from './blitz-harness.ts';
import { fixture, githubExample, signedGiteaRequest, signedGithubRequest } from './signing.ts';

/** Adds `blitz/approved` to issue `n` as `login` in the world, and sends the forge's signed webhook. */
export const addApproval = async (x: BlitzHarness, n: number, login: string) => {
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
    // The issue as it is now: its title and body are what the approval covers.
    Object.assign(p.issue as Record<string, unknown>, { number: n, title: issue.title, body: issue.body });
    (p.label as Record<string, unknown>).name = 'blitz/approved';
    p.sender = { ...(p.sender as object), login, type: 'User' };
    delete p.installation;
    req = signedGithubRequest({ secret: GITHUB_SECRET, event: 'issues', payload: p, deliveryId });
  } else {
    const p = fixture('gitea', 'issue_label.label_updated');
    repository(p);
    Object.assign(p.issue as Record<string, unknown>, {
      number: n,
      title: issue.title,
      body: issue.body,
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
