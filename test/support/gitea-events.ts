// The webhooks a Gitea sends a bot over HTTP for what happens on it, for a bot in a process of its own
// (bench/scale.bench.ts): a person's `issue_comment`, and a review webhook for every review or review
// comment the World logs (review-webhooks.ts). Signed with the bot's Gitea webhook secret, posted to
// `url()`. Gitea sends no webhook for a commit status, so a CI result has none: the bot polls for it.
import { randomUUID } from 'node:crypto';
import { issueCommentRequest } from './bot-harness.ts';
import { reviewWebhooks } from './review-webhooks.ts';
import type { World, WorldRepo } from './world.ts';

type SignedRequest = { body: string; headers: Record<string, string> };

export interface GiteaEvents {
  /** A person's comment on an issue (added to the World, then its webhook sent). */
  comment(repo: WorldRepo, number: number, body: string, login: string): Promise<void>;
  /** Sends a review webhook for each review or review comment the World logged since the last call. */
  reviewsSince(): Promise<number>;
}

export const giteaEvents = (world: World, secret: string, url: () => string): GiteaEvents => {
  const reviews = reviewWebhooks('gitea', world, secret);
  const post = async (request: (deliveryId: string) => SignedRequest) => {
    const { body, headers } = request(randomUUID());
    const res = await fetch(url(), { method: 'POST', headers, body });
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`the Gitea webhook was answered ${res.status}`);
  };
  return {
    async comment(repo, number, body, login) {
      const c = world.addComment(repo, number, body, login);
      await post(issueCommentRequest('gitea', secret, { repo, number, commentId: c.id, body, login }));
    },
    async reviewsSince() {
      const fresh = reviews();
      for (const r of fresh) await post(r.request);
      return fresh.length;
    },
  };
};
