// Home Assistant notifier: `POST {url}/api/services/notify/{service}` with a bearer token, the body
// the companion app understands (`data.url` opens it, `data.clickAction` is Android's tap target).

import { type NotifyEvent, noticeMessage, noticeTitle, type RunNotice } from './notice.ts';
import { type Made, notifierOf } from './notifier-of.ts';
import { type PostOptions, postJson } from './notify-http.ts';

export interface HomeAssistantTarget {
  name: string;
  events: readonly NotifyEvent[];
  /** Base URL of Home Assistant, e.g. `http://ha.lan:8123`. */
  url: string;
  /** `mobile_app_phone` or `notify.mobile_app_phone`. */
  service: string;
  token: string;
}

const servicePattern = /^[a-z0-9_]+$/;

/** The bare service name, or undefined when it could steer the request elsewhere (`../`, `?`, `/`). */
export const parseNotifyService = (service: string): string | undefined => {
  const bare = service.startsWith('notify.') ? service.slice('notify.'.length) : service;
  return servicePattern.test(bare) ? bare : undefined;
};

export const homeAssistantEndpoint = (baseUrl: string, service: string): string | undefined => {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') return undefined;
  if (base.username || base.password || base.search || base.hash) return undefined;
  const name = parseNotifyService(service);
  if (!name) return undefined;
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}/api/services/notify/${name}`;
};

export const homeAssistantBody = (notice: RunNotice) => ({
  title: noticeTitle(notice),
  message: noticeMessage(notice),
  ...(notice.url ? { data: { url: notice.url, clickAction: notice.url } } : {}),
});

export const createHomeAssistantNotifier = (target: HomeAssistantTarget, post: PostOptions = {}): Made => {
  if (!parseNotifyService(target.service)) {
    return {
      ok: false,
      error:
        'Home Assistant notify service must be lower-case letters, digits and `_` (optionally after `notify.`).',
    };
  }
  const endpoint = homeAssistantEndpoint(target.url, target.service);
  if (!endpoint) {
    return {
      ok: false,
      error: 'Home Assistant URL must be a plain http(s) URL without credentials or query.',
    };
  }
  return {
    ok: true,
    notifier: notifierOf(
      target.name,
      target.events,
      (notice, signal) =>
        postJson(
          endpoint,
          homeAssistantBody(notice),
          { authorization: `Bearer ${target.token}` },
          { ...post, ...(signal ? { signal } : {}) },
        ),
      // postJson never quotes headers; the redaction is a second guard should that ever change.
      [target.token],
    ),
  };
};
