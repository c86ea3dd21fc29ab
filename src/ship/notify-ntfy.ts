// ntfy: `POST <topic URL>` with the message as the text body and the Title, Priority, Tags and Click
// headers. A header is Latin-1 on the wire, so a title with other characters (the emoji, a milestone
// in Greek) is sent RFC 2047-encoded, which ntfy decodes. An access token, when the server wants one,
// goes in a bearer header. The topic is a password on a public server: keep its URL in `urlEnv`.
import { type NoticeEvent, type NotifyEvent, noticeMessage, noticeTitle, type RunNotice } from './notice.ts';
import { type Made, notifierOf, plainHttpUrl } from './notifier-of.ts';
import { type PostOptions, sendRequest } from './notify-http.ts';

export const ntfyPriorities = ['min', 'low', 'default', 'high', 'max'] as const;
export type NtfyPriority = (typeof ntfyPriorities)[number];

const priorityOf: Record<NoticeEvent, NtfyPriority> = {
  started: 'low',
  parked: 'default',
  blocked: 'high',
  needs_person: 'high',
  shipped: 'default',
  failed: 'high',
  review_unclear: 'default',
  warning: 'default',
  test: 'min',
};

// ntfy turns known tag names into emoji in front of the title.
const tagOf: Record<NoticeEvent, string> = {
  started: 'arrow_forward',
  parked: 'pause_button',
  blocked: 'warning',
  needs_person: 'raising_hand',
  shipped: 'white_check_mark',
  failed: 'x',
  review_unclear: 'question',
  warning: 'hourglass',
  test: 'bell',
};

/** The value as is when it is printable ASCII, else `=?UTF-8?B?…?=`. */
export const headerText = (text: string): string =>
  /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;

export const ntfyRequest = (notice: RunNotice, priority?: NtfyPriority, token?: string) => ({
  method: 'POST' as const,
  headers: {
    'content-type': 'text/plain; charset=utf-8',
    title: headerText(noticeTitle(notice)),
    priority: priority ?? priorityOf[notice.event],
    tags: `blitz,${tagOf[notice.event]}`,
    ...(notice.url ? { click: notice.url } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  },
  body: noticeMessage(notice),
});

export const createNtfyNotifier = (
  target: {
    name: string;
    url: string;
    token?: string;
    priority?: NtfyPriority;
    events: readonly NotifyEvent[];
  },
  post: PostOptions = {},
): Made => {
  const topic = plainHttpUrl(target.url);
  if (!topic || topic.pathname.replace(/\/+$/, '') === '' || topic.search || topic.hash) {
    return {
      ok: false,
      error: `Notify target ${target.name}: ntfy needs the topic URL, like https://ntfy.sh/my-topic.`,
    };
  }
  return {
    ok: true,
    notifier: notifierOf(
      target.name,
      target.events,
      (notice, signal) =>
        sendRequest(target.url, ntfyRequest(notice, target.priority, target.token), {
          ...post,
          ...(signal ? { signal } : {}),
        }),
      target.token ? [target.token] : [],
    ),
  };
};
