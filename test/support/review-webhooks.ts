// The review webhooks a fake forge would send for what happened on it: for every review or review
// comment the world logged since the last call, a signed GitHub `pull_request_review` or Gitea
// `pull_request_review_comment` delivery (the bot's kept reads of a PR's reviews heed them).
import type { ForgeKind } from '../../src/forges/types.ts';
import { githubExample, signedGiteaRequest, signedGithubRequest } from './signing.ts';
import type { World, WorldRepo } from './world.ts';

type SignedRequest = { body: string; headers: Record<string, string> };

export const reviewWebhooks = (kind: ForgeKind, world: World, secret: string) => {
  let seen = world.log.length;
  return (): { repo: WorldRepo; request: (deliveryId: string) => SignedRequest }[] => {
    const fresh = world.log.slice(seen);
    seen = world.log.length;
    const out: { repo: WorldRepo; request: (deliveryId: string) => SignedRequest }[] = [];
    for (const e of fresh) {
      if ((e.action !== 'review' && e.action !== 'review_comment') || e.target === undefined) continue;
      const [owner = '', name = ''] = e.repo.split('/');
      const repo = world.repo(owner, name);
      if (!repo) continue;
      const number = e.target;
      const author = (e.detail ?? 'someone').split(':')[0]!;
      if (kind === 'github') {
        const p = githubExample('pull_request_review', 'submitted');
        const r = p.repository as Record<string, unknown>;
        Object.assign(r, { name: repo.name, full_name: `${repo.owner}/${repo.name}` });
        r.owner = { ...(r.owner as object), login: repo.owner };
        delete p.installation;
        (p.pull_request as Record<string, unknown>).number = number;
        p.sender = { ...(p.sender as object), login: author, type: 'User' };
        out.push({
          repo,
          request: (deliveryId) =>
            signedGithubRequest({ secret, event: 'pull_request_review', payload: p, deliveryId }),
        });
      } else {
        const p = {
          action: 'reviewed',
          number,
          pull_request: { number, title: repo.issues.get(number)?.title ?? '' },
          review: { type: 'pull_request_review_comment', content: '' },
          repository: { name: repo.name, owner: { login: repo.owner } },
          sender: { id: 3, login: author },
        };
        out.push({
          repo,
          request: (deliveryId) =>
            signedGiteaRequest({ secret, eventType: 'pull_request_review_comment', payload: p, deliveryId }),
        });
      }
    }
    return out;
  };
};
