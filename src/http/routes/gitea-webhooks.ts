// POST /api/gitea/webhooks: verify X-Gitea-Signature (hex HMAC-SHA256, constant-time), then hand the
// payload to the receiver. Gitea signs the JSON payload itself, also when it sends it in a form field.
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { normalizeGitea } from '../../intake/gitea/normalize.ts';
import { verifyGiteaSignature } from '../../intake/gitea/signature.ts';
import type { Received, ReceiveResult } from '../../intake/receive.ts';
import {
  parseJsonPayload,
  payloadText,
  requiredHeader,
  webhookBodyLimit,
  webhookBodyText,
  webhookEncoding,
} from '../middleware/webhook-body.ts';

export interface GiteaWebhookOptions {
  secret: string;
  receive: (r: Received) => Promise<ReceiveResult>;
  maxBytes?: number;
}

export const giteaWebhookRoutes = (opts: GiteaWebhookOptions) =>
  new Hono().post('/', webhookBodyLimit(opts.maxBytes), async (c) => {
    const signature = requiredHeader(c, 'x-gitea-signature', 401);
    const deliveryId = requiredHeader(c, 'x-gitea-delivery');
    // The specific hook type (issue_label, pull_request_comment …) when sent, else the coarse event.
    const event = c.req.header('x-gitea-event-type')?.trim() || requiredHeader(c, 'x-gitea-event');
    const encoding = webhookEncoding(c);
    const text = payloadText(await webhookBodyText(c, opts.maxBytes), encoding);
    if (!verifyGiteaSignature(opts.secret, text, signature)) {
      throw new HTTPException(401, { message: 'signature does not match' });
    }
    const payload = parseJsonPayload(text);
    const result = await opts.receive({
      forge: 'gitea',
      deliveryId,
      event,
      payload,
      normalize: normalizeGitea,
    });
    return c.json({ outcome: result.outcome, events: result.events }, result.status);
  });
