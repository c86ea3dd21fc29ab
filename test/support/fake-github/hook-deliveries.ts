// The fake GitHub's App webhook: it sends events to the App's webhook URL as GitHub does (signed with
// the webhook secret, `X-GitHub-Delivery` the event's guid) and keeps every attempt, which the App
// reads with its JWT: `GET /app/hook/deliveries` (newest first, cursor pages named in the Link header,
// `status=success|failure` by status_code range) and `POST /app/hook/deliveries/{id}/attempts`
// (answered 202; the attempt is sent again later as a new delivery with the same guid and
// `redelivery: true`). An attempt the receiver answered 2xx has status `OK`; any other answer
// `Invalid HTTP Response: <code>`; no answer at all `failed to connect` with 502 (the pairing of the
// OpenAPI description's own example).
import { createHmac, randomUUID } from 'node:crypto';
import type { HandlerResult } from './context.ts';

export interface HookAttempt {
  id: number;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  duration: number;
  status: string;
  status_code: number;
  event: string;
  action: string | null;
  installation_id: number | null;
  repository_id: number | null;
  throttled_at: null;
}

interface Sent {
  attempt: HookAttempt;
  body: string;
}

export interface AppWebhook {
  /** Where events go (the bot's `/api/github/webhooks`); settable once the bot listens. */
  url: string | undefined;
  /** Every attempt, oldest first. */
  readonly attempts: HookAttempt[];
  /** Sends `event` now, as a new event (fresh guid); resolves with the attempt as recorded. */
  deliver(event: string, payload: unknown): Promise<HookAttempt>;
  /** Resolves once every redelivery asked for so far has been attempted. */
  settled(): Promise<void>;
  list(query: URLSearchParams, apiUrl: string): HandlerResult;
  redeliver(id: number): HandlerResult;
}

const docs = 'https://docs.github.com/rest/apps/webhooks';

const seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

const idOf = (payload: unknown, key: 'installation' | 'repository'): number | null => {
  const v = (payload as Record<string, { id?: unknown } | undefined> | null)?.[key]?.id;
  return typeof v === 'number' ? v : null;
};

export const createAppWebhook = (secret: string): AppWebhook => {
  const sent: Sent[] = [];
  const pending = new Set<Promise<unknown>>();
  let nextId = 9_000_000_000;

  const attempt = async (
    guid: string,
    event: string,
    body: string,
    action: string | null,
    ids: { installation: number | null; repository: number | null },
    redelivery: boolean,
    url: string | undefined,
  ): Promise<HookAttempt> => {
    const started = Date.now();
    let status = 'failed to connect';
    let code = 502;
    if (url) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          body,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'GitHub-Hookshot/fake',
            'x-github-event': event,
            'x-github-delivery': guid,
            'x-github-hook-installation-target-type': 'integration',
            'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
          },
        });
        await res.arrayBuffer();
        code = res.status;
        status = res.ok ? 'OK' : `Invalid HTTP Response: ${res.status}`;
      } catch {
        // Nothing listening: GitHub records the attempt as failed.
      }
    }
    nextId += 1;
    const one: HookAttempt = {
      id: nextId,
      guid,
      delivered_at: seconds(started),
      redelivery,
      duration: (Date.now() - started) / 1000,
      status,
      status_code: code,
      event,
      action,
      installation_id: ids.installation,
      repository_id: ids.repository,
      throttled_at: null,
    };
    sent.push({ attempt: one, body });
    return one;
  };

  const hook: AppWebhook = {
    url: undefined,
    get attempts() {
      return sent.map((s) => s.attempt);
    },
    deliver(event, payload) {
      const action = (payload as { action?: unknown }).action;
      return attempt(
        randomUUID(),
        event,
        JSON.stringify(payload),
        typeof action === 'string' ? action : null,
        { installation: idOf(payload, 'installation'), repository: idOf(payload, 'repository') },
        false,
        hook.url,
      );
    },
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    list(query, apiUrl) {
      const perPage = Math.min(100, Number(query.get('per_page') ?? 30));
      const filter = query.get('status');
      const all = sent
        .map((s) => s.attempt)
        .filter(
          (a) =>
            !filter ||
            (filter === 'success'
              ? a.status_code >= 200 && a.status_code <= 399
              : a.status_code >= 400 && a.status_code <= 599),
        )
        .sort((a, b) => b.id - a.id);
      const cursor = query.get('cursor');
      const start = cursor ? all.findIndex((a) => `v1_${a.id}` === cursor) : 0;
      if (start < 0) return { status: 422, body: { message: 'Validation Failed', documentation_url: docs } };
      const page = all.slice(start, start + perPage);
      const after = all[start + perPage];
      const headers: Record<string, string> = {};
      if (after) {
        const next = new URL(`${apiUrl}/app/hook/deliveries`);
        next.searchParams.set('per_page', String(perPage));
        next.searchParams.set('cursor', `v1_${after.id}`);
        if (filter) next.searchParams.set('status', filter);
        headers.link = `<${next.href}>; rel="next"`;
      }
      return { status: 200, body: page, headers };
    },
    redeliver(id) {
      const original = sent.find((s) => s.attempt.id === id);
      if (!original) return { status: 422, body: { message: 'Validation Failed', documentation_url: docs } };
      const a = original.attempt;
      const url = hook.url;
      // GitHub answers at once and sends the event again a moment later.
      const later = attempt(
        a.guid,
        a.event,
        original.body,
        a.action,
        { installation: a.installation_id, repository: a.repository_id },
        true,
        url,
      );
      pending.add(later);
      void later.finally(() => pending.delete(later));
      return { status: 202, body: {} };
    },
  };
  return hook;
};
