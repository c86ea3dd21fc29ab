// What a ship or a block tells the operator (seed 000 §6), as plain data, and the words every
// notifier uses for it: one place so that Home Assistant and the webhook say the same thing.

export type ShipPath = 'deploy' | 'local';

export interface ReadyNotice {
  event: 'ready';
  /** `owner/repo`. */
  repo: string;
  /** The milestone's title (MS_TITLE). */
  milestone: string;
  issuesShipped: number;
  path: ShipPath;
  /** The preview URL: the deploy URL or `http://<lan-ip>:<port>`. */
  url: string;
}

export interface BlockedNotice {
  event: 'blocked';
  repo: string;
  milestone: string;
  issuesShipped: number;
  /** What stopped the run, in words (an issue, a failing build…): it goes into the message. */
  blocker: string;
  /** Where to look: usually the dashboard comment. */
  url?: string;
}

export type ShipNotice = ReadyNotice | BlockedNotice;

export type NotifyResult =
  | { ok: true; target: string; attempts: number }
  | { ok: false; target: string; attempts: number; error: string };

export interface Notifier {
  /** `home-assistant` or `webhook`: shown on the dashboard next to a failure. */
  readonly target: string;
  notify(notice: ShipNotice, signal?: AbortSignal): Promise<NotifyResult>;
}

const pathWords: Record<ShipPath, string> = { deploy: 'deploy', local: 'local dev' };

const oneLine = (text: string, max: number): string => {
  const flat = text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export const noticeTitle = (notice: ShipNotice): string =>
  notice.event === 'ready'
    ? `blitz: ${oneLine(notice.milestone, 80)} ready ✅`
    : `blitz: ${oneLine(notice.milestone, 80)} BLOCKED ⚠️`;

export const noticeMessage = (notice: ShipNotice): string =>
  notice.event === 'ready'
    ? `${plural(notice.issuesShipped, 'issue')} shipped · ${pathWords[notice.path]} · tap to preview`
    : `Blocked: ${oneLine(notice.blocker, 300) || 'unknown blocker'} · ${plural(notice.issuesShipped, 'issue')} closed so far`;
