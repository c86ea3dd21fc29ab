// Plain webhook notifier: one JSON document per notice, for anything without its own notifier (a
// script, a relay, an alert rule). The body is the contract; see webhookBody. With a secret
// (`secretEnv`), the body is signed as GitHub signs its webhooks: `X-Blitz-Signature-256:
// sha256=<hex HMAC-SHA256 of the exact body bytes>`, so the receiver can tell the bot from anyone
// else who learnt the URL.
import { createHmac } from 'node:crypto';
import type { NoticeEvent, NotifyEvent, RunNotice, ShipPath } from './notice.ts';
import { noticeCommand, noticeMessage, noticeSentence } from './notice.ts';
import { type Made, notifierOf, plainHttpUrl } from './notifier-of.ts';
import { type PostOptions, sendRequest } from './notify-http.ts';

/** The header carrying the body's signature. */
export const webhookSignatureHeader = 'x-blitz-signature-256';

/** `sha256=<hex>`: HMAC-SHA256 of `body` keyed with `secret`. */
export const webhookSignature = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

export interface WebhookBody {
  /** A run's event, or `test` from `blitz-bot notify test`. */
  event: NoticeEvent;
  repo: string;
  run: { id: string; kind: 'blitz' | 'fleet' | 'plan'; title: string };
  /** The run's title again (the milestone), as the first version of this body had it. */
  milestone: string;
  /** The issue it is about, or null. */
  issue: number | null;
  /** What happened, one sentence. */
  sentence: string;
  /** The sentence with where it happened and the tally: what a text-only client shows. */
  message: string;
  /** The preview URL when shipped; the run's page (or null) otherwise. */
  url: string | null;
  issuesShipped: number;
  /** How it shipped; null unless shipped. */
  path: ShipPath | null;
  /** The command that continues (`/blitz retry #12`), or null. */
  command: string | null;
  /** When a spend limit lifts (ISO), or null. */
  resetAt: string | null;
}

export const webhookBody = (notice: RunNotice): WebhookBody => ({
  event: notice.event,
  repo: notice.repo,
  run: notice.run,
  milestone: notice.run.title,
  issue: notice.issue ?? null,
  sentence: noticeSentence(notice),
  message: noticeMessage(notice),
  url: notice.url ?? null,
  issuesShipped: notice.issuesShipped,
  path: notice.event === 'shipped' ? (notice.path ?? null) : null,
  command: noticeCommand(notice) ?? null,
  resetAt:
    notice.resetAt && !Number.isNaN(Date.parse(notice.resetAt))
      ? new Date(notice.resetAt).toISOString()
      : null,
});

export const createWebhookNotifier = (
  target: { name: string; url: string; events: readonly NotifyEvent[]; secret?: string },
  post: PostOptions = {},
): Made => {
  if (!plainHttpUrl(target.url))
    return { ok: false, error: `Notify target ${target.name}: the webhook URL must be http(s).` };
  const send = (notice: RunNotice, signal?: AbortSignal) => {
    const body = JSON.stringify(webhookBody(notice));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (target.secret) headers[webhookSignatureHeader] = webhookSignature(target.secret, body);
    return sendRequest(
      target.url,
      { method: 'POST', headers, body },
      { ...post, ...(signal ? { signal } : {}) },
    );
  };
  return {
    ok: true,
    notifier: notifierOf(target.name, target.events, send, target.secret ? [target.secret] : []),
  };
};
