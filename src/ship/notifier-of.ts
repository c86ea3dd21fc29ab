// The common frame of every notifier: the events it takes, the result as a value, and secrets cut
// out of any error text (the transport already names targets by origin only; this is a second guard).
import type { Notifier, NotifyEvent, NotifyResult, RunNotice } from './notice.ts';
import { type PostOptions, type PostResult, postJson } from './notify-http.ts';

export type Made = { ok: true; notifier: Notifier } | { ok: false; error: string };

export const notifierOf = (
  target: string,
  events: Iterable<NotifyEvent>,
  send: (notice: RunNotice, signal?: AbortSignal) => Promise<PostResult>,
  secrets: readonly string[] = [],
): Notifier => ({
  target,
  events: new Set(events),
  async notify(notice, signal): Promise<NotifyResult> {
    const res = await send(notice, signal);
    if (res.ok) return { ok: true, target, attempts: res.attempts };
    const error = secrets
      .filter((s) => s.length > 0)
      .reduce((e, s) => e.split(s).join('[redacted]'), res.error);
    return { ok: false, target, attempts: res.attempts, error };
  },
});

/** A plain http(s) URL without credentials in it, or undefined. */
export const plainHttpUrl = (text: string): URL | undefined => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  return url;
};

/**
 * The notifier of a service that takes one JSON POST on a webhook URL (Slack, Discord, Teams, the plain
 * webhook): `what` names that URL in the error, `bodyOf` is the service's payload.
 */
export const jsonWebhookNotifier =
  (what: string, bodyOf: (notice: RunNotice) => unknown) =>
  (target: { name: string; url: string; events: readonly NotifyEvent[] }, post: PostOptions = {}): Made => {
    if (!plainHttpUrl(target.url))
      return { ok: false, error: `Notify target ${target.name}: the ${what} URL must be http(s).` };
    return {
      ok: true,
      notifier: notifierOf(target.name, target.events, (notice, signal) =>
        postJson(target.url, bodyOf(notice), {}, { ...post, ...(signal ? { signal } : {}) }),
      ),
    };
  };
