// Gitea's review webhooks → ForgeEvents: pull_request_review_approved, _rejected (changes requested)
// and _comment say someone reviewed a PR. Gitea sends no webhook for commit statuses: the bot polls
// them on its tick (forges/gitea/statuses.ts). Only which PR is kept; the text is read from the API.
import { z } from 'zod';
import type { Normalized } from '../events.ts';
import { accepted, ignored, parsePayload } from '../payload.ts';
import { giteaRepositorySchema, giteaUserSchema } from './schema.ts';

const reviewSchema = z.object({
  action: z.string(),
  number: z.number().int().positive().optional(),
  pull_request: z.object({ number: z.number().int().positive() }),
  repository: giteaRepositorySchema,
  sender: giteaUserSchema,
});

export const giteaFeedbackEvents = [
  'pull_request_review_approved',
  'pull_request_review_rejected',
  'pull_request_review_comment',
] as const;

export const normalizeGiteaFeedback = (eventType: string, payload: unknown): Normalized => {
  if (!(giteaFeedbackEvents as readonly string[]).includes(eventType))
    return ignored(`${eventType} is not a feedback event`);
  const p = parsePayload(reviewSchema, payload, eventType);
  return accepted([
    {
      kind: 'review-changed',
      forge: 'gitea',
      repo: { owner: p.repository.owner.login, name: p.repository.name },
      sender: { login: p.sender.login, type: 'User' },
      number: p.pull_request.number,
      change: eventType === 'pull_request_review_comment' ? 'comment' : 'submitted',
    },
  ]);
};
