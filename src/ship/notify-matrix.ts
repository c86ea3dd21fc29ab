// Matrix through the client-server API: `PUT {homeserver}/_matrix/client/v3/rooms/{roomId}/send/
// m.room.message/{txnId}` with the access token as a bearer token. The transaction id is derived from
// the notice, so a retried request is the same transaction and the homeserver posts it once.
// The HTML body escapes all run text.
import { createHash } from 'node:crypto';
import {
  type NotifyEvent,
  noticeNext,
  noticeSentence,
  noticeTally,
  noticeTitle,
  noticeWhere,
  type RunNotice,
} from './notice.ts';
import { type Made, notifierOf, plainHttpUrl } from './notifier-of.ts';
import { type PostOptions, sendRequest } from './notify-http.ts';

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const matrixBody = (notice: RunNotice) => {
  const title = noticeTitle(notice);
  const sentence = noticeSentence(notice);
  const where = `${noticeWhere(notice)} · ${noticeTally(notice)}`;
  const link = notice.url;
  const next = noticeNext(notice);
  return {
    msgtype: 'm.notice',
    body: [title, sentence, where, ...(next ? [next] : []), ...(link ? [link] : [])].join('\n'),
    format: 'org.matrix.custom.html',
    formatted_body: [
      `<strong>${escapeHtml(title)}</strong><br>`,
      `${escapeHtml(sentence)}<br>`,
      `<em>${escapeHtml(where)}</em>`,
      ...(next ? [`<br>${escapeHtml(next)}`] : []),
      ...(link ? [`<br><a href="${escapeHtml(link)}">${escapeHtml(link)}</a>`] : []),
    ].join(''),
  };
};

/** Same notice, same transaction: the homeserver deduplicates a retry. */
export const matrixTxnId = (notice: RunNotice): string =>
  `blitz-${createHash('sha256').update(JSON.stringify(notice)).digest('hex').slice(0, 24)}`;

// `!opaque:server.name`: a room id, never an alias or a path.
const roomIdPattern = /^![A-Za-z0-9._~=+/-]+:[A-Za-z0-9.-]+(:\d{1,5})?$/;

export const matrixEndpoint = (homeserver: string, roomId: string, txnId: string): string | undefined => {
  const base = plainHttpUrl(homeserver);
  if (!base || base.search || base.hash || !roomIdPattern.test(roomId)) return undefined;
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${encodeURIComponent(txnId)}`;
};

export const createMatrixNotifier = (
  target: { name: string; homeserver: string; roomId: string; token: string; events: readonly NotifyEvent[] },
  post: PostOptions = {},
): Made => {
  if (!matrixEndpoint(target.homeserver, target.roomId, 'x')) {
    return {
      ok: false,
      error: `Notify target ${target.name}: Matrix needs a plain http(s) homeserver URL and a room id like !abc:example.org.`,
    };
  }
  return {
    ok: true,
    notifier: notifierOf(
      target.name,
      target.events,
      (notice, signal) =>
        sendRequest(
          matrixEndpoint(target.homeserver, target.roomId, matrixTxnId(notice))!,
          {
            method: 'PUT',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${target.token}` },
            body: JSON.stringify(matrixBody(notice)),
          },
          { ...post, ...(signal ? { signal } : {}) },
        ),
      [target.token],
    ),
  };
};
