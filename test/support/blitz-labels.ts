// Adding `blitz/approved` in a blitz or fleet test as a person does it: the label in the world, and
// the forge's signed label webhook naming who added it, through the real intake.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ForgeKind } from '../../src/forges/types.ts';
import { type BlitzHarness, GITEA_SECRET, GITHUB_SECRET } from './blitz-harness.ts';
import { fixture, githubExample, signedGiteaRequest, signedGithubRequest } from './signing.ts';
import type { World, WorldRepo } from './world.ts';

/** What sending a label webhook needs: the world, the bot's HTTP entry and its webhook secret. */
export interface LabelTarget {
  kind: ForgeKind;
  world: World;
  repo: WorldRepo;
  secret: string;
  post(path: string, req: { body: string; headers: Record<string, string> }): Response | Promise<Response>;
  idle(): Promise<void>;
}

/** Adds `blitz/approved` to issue `n` of `t.repo` as `login` in the world, and sends the signed webhook. */
export const sendApproval = async (t: LabelTarget, n: number, login: string) => {
  const issue = t.world.issue(t.repo, n)!;
  if (!issue.labels.includes('blitz/approved')) issue.labels.push('blitz/approved');
  const repository = (p: Record<string, unknown>) => {
    const r = p.repository as Record<string, unknown>;
    Object.assign(r, {
      name: t.repo.name,
      full_name: `${t.repo.owner}/${t.repo.name}`,
      owner: { ...(r.owner as object), login: t.repo.owner },
    });
  };
  const deliveryId = randomUUID();
  let req: { body: string; headers: Record<string, string> };
  if (t.kind === 'github') {
    const p = githubExample('issues', 'labeled');
    repository(p);
    // The issue as it is now: its title and body are what the approval covers.
    Object.assign(p.issue as Record<string, unknown>, { number: n, title: issue.title, body: issue.body });
    (p.label as Record<string, unknown>).name = 'blitz/approved';
    p.sender = { ...(p.sender as object), login, type: 'User' };
    delete p.installation;
    req = signedGithubRequest({ secret: t.secret, event: 'issues', payload: p, deliveryId });
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
    req = signedGiteaRequest({ secret: t.secret, eventType: 'issue_label', payload: p, deliveryId });
  }
  const res = await t.post(t.kind === 'github' ? '/api/github/webhooks' : '/api/gitea/webhooks', req);
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  await t.idle();
};

/** Adds `blitz/approved` to issue `n` of the blitz harness's repo as `login`. */
export const addApproval = (x: BlitzHarness, n: number, login: string) =>
  sendApproval(
    {
      kind: x.kind,
      world: x.world,
      repo: x.repo,
      secret: x.kind === 'github' ? GITHUB_SECRET : GITEA_SECRET,
      post: (path, req) => x.bot.post(path, req),
      idle: () => x.bot.queue.idle(),
    },
    n,
    login,
  );
