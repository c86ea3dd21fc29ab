// Plain webhook notifier: one JSON document per ship or block, for anything that is not Home
// Assistant (ntfy bridges, chat relays, a script). The body is the contract; see webhookBody.

import { type Notifier, type NotifyResult, noticeMessage, type ShipNotice } from './notice.ts';
import { type PostOptions, postJson } from './notify-http.ts';

export interface WebhookTarget {
  url: string;
}

export interface WebhookBody {
  event: 'ready' | 'blocked';
  repo: string;
  milestone: string;
  message: string;
  /** The preview URL when ready; the dashboard link (or null) when blocked. */
  url: string | null;
  issuesShipped: number;
  /** null when blocked: nothing shipped. */
  path: 'deploy' | 'local' | null;
}

export const webhookBody = (notice: ShipNotice): WebhookBody => ({
  event: notice.event,
  repo: notice.repo,
  milestone: notice.milestone,
  message: noticeMessage(notice),
  url: notice.url ?? null,
  issuesShipped: notice.issuesShipped,
  path: notice.event === 'ready' ? notice.path : null,
});

export const createWebhookNotifier = (
  target: WebhookTarget,
  post: PostOptions = {},
): { ok: true; notifier: Notifier } | { ok: false; error: string } => {
  let parsed: URL;
  try {
    parsed = new URL(target.url);
  } catch {
    return { ok: false, error: 'Notify webhook URL does not parse.' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, error: 'Notify webhook URL must be http or https.' };
  }
  const name = 'webhook';
  return {
    ok: true,
    notifier: {
      target: name,
      async notify(notice: ShipNotice, signal?: AbortSignal): Promise<NotifyResult> {
        const res = await postJson(
          target.url,
          webhookBody(notice),
          {},
          { ...post, ...(signal ? { signal } : {}) },
        );
        return res.ok
          ? { ok: true, target: name, attempts: res.attempts }
          : { ok: false, target: name, attempts: res.attempts, error: res.error };
      },
    },
  };
};
