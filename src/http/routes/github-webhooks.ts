// POST /api/github/webhooks: verify X-Hub-Signature-256 (through @octokit/webhooks' verify, the one
// Probot uses), then hand the payload to the receiver. Answers before any forge is called.
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { normalizeGithub } from '../../intake/github/normalize.ts';
import type { Received, ReceiveResult } from '../../intake/receive.ts';
import {
  parseJsonPayload,
  payloadText,
  requiredHeader,
  webhookBodyLimit,
  webhookBodyText,
  webhookEncoding,
} from '../middleware/webhook-body.ts';

export interface GithubWebhookOptions {
  /** `webhooks.verify` of @octokit/webhooks (or Probot's), bound to WEBHOOK_SECRET. */
  verify: (payload: string, signature: string) => Promise<boolean>;
  receive: (r: Received) => Promise<ReceiveResult>;
  maxBytes?: number;
}

export const githubWebhookRoutes = (opts: GithubWebhookOptions) =>
  new Hono().post('/', webhookBodyLimit(opts.maxBytes), async (c) => {
    const signature = requiredHeader(c, 'x-hub-signature-256', 401);
    const event = requiredHeader(c, 'x-github-event');
    const deliveryId = requiredHeader(c, 'x-github-delivery');
    const encoding = webhookEncoding(c);
    const raw = await webhookBodyText(c, opts.maxBytes);
    // GitHub signs the body as sent, form-encoded or not.
    if (!(await opts.verify(raw, signature).catch(() => false))) {
      throw new HTTPException(401, { message: 'signature does not match' });
    }
    const payload = parseJsonPayload(payloadText(raw, encoding));
    const result = await opts.receive({
      forge: 'github',
      deliveryId,
      event,
      payload,
      normalize: normalizeGithub,
    });
    return c.json({ outcome: result.outcome, events: result.events }, result.status);
  });
