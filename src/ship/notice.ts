// What a run tells the operator's chat or phone (seed 000 §6), as plain data, and the words every
// notifier uses for it: one place, so that Slack, Discord, Teams, Matrix, ntfy, Home Assistant and
// the webhook say the same thing. Each notice names the run, the issue, what happened in one
// sentence, and a link.

/** The events a notify target can choose from (`events:` in blitz.config.yml). */
export const notifyEvents = [
  'started',
  'parked',
  'blocked',
  'needs_person',
  'shipped',
  'failed',
  'review_unclear',
  'warning',
] as const;
export type NotifyEvent = (typeof notifyEvents)[number];
/** What a notice can be: a run's event, or `test` from `blitz-bot notify test` (no run behind it). */
export type NoticeEvent = NotifyEvent | 'test';

export type ShipPath = 'deploy' | 'local';

export interface RunNotice {
  event: NoticeEvent;
  /** `owner/repo`. */
  repo: string;
  run: {
    id: string;
    kind: 'blitz' | 'fleet' | 'plan';
    /** The milestone's title, or the fleet's name. */
    title: string;
  };
  /** The issue it is about: the issue concerned, else the run's dashboard issue. */
  issue?: number;
  /** What happened, in one sentence (a blocker, a failure…); it goes into every message. */
  sentence: string;
  /** Where to look: the preview after a ship, else the run's status page when the bot's address is known. */
  url?: string;
  /** Issues closed by the run so far. */
  issuesShipped: number;
  /** How a shipped run went out. */
  path?: ShipPath;
  /** The command that continues from here (`/blitz retry #12`), when a person has one to give. */
  command?: string;
  /** When a spend limit lifts (ISO), for a park the tool named a reset time for. */
  resetAt?: string;
}

export type NotifyResult =
  | { ok: true; target: string; attempts: number }
  | { ok: false; target: string; attempts: number; error: string };

export interface Notifier {
  /** The entry's name (`slack`, `ops-discord`…): shown on the dashboard next to a failure. */
  readonly target: string;
  /** The events this target asked for; others are never sent to it. */
  readonly events: ReadonlySet<NotifyEvent>;
  notify(notice: RunNotice, signal?: AbortSignal): Promise<NotifyResult>;
}

const eventWords: Record<NoticeEvent, string> = {
  started: 'started ▶️',
  parked: 'parked ⏸️',
  blocked: 'BLOCKED ⚠️',
  needs_person: 'needs a person 🙋',
  shipped: 'ready ✅',
  failed: 'FAILED ❌',
  review_unclear: 'review unclear ❓',
  warning: 'warning ⚠️',
  test: 'test message 🔔',
};

const pathWords: Record<ShipPath, string> = { deploy: 'deploy', local: 'local dev' };

/** Text from a run (titles, blockers) on one line and bounded: no control or line-break characters. */
export const oneLine = (text: string, max: number): string => {
  const flat = text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `blitz: M1 checkout ready ✅`. */
export const noticeTitle = (notice: RunNotice): string =>
  `${notice.run.kind}: ${oneLine(notice.run.title, 80)} ${eventWords[notice.event]}`;

/** The one sentence, bounded, with a full stop. */
export const noticeSentence = (notice: RunNotice): string => {
  const flat = oneLine(notice.sentence, 300) || 'no reason given';
  const s = flat.charAt(0).toUpperCase() + flat.slice(1);
  return /[.!?…]$/.test(s) ? s : `${s}.`;
};

/** `acme/shop#12 · run 1a2b3c4d`: where it happened. */
export const noticeWhere = (notice: RunNotice): string =>
  `${notice.repo}${notice.issue !== undefined ? `#${notice.issue}` : ''} · run ${notice.run.id}`;

/** What the run has done so far: the shipped count, and the ship path once shipped. */
export const noticeTally = (notice: RunNotice): string => {
  const issues = plural(notice.issuesShipped, 'issue');
  if (notice.event !== 'shipped') return `${issues} closed so far`;
  return notice.path ? `${issues} shipped · ${pathWords[notice.path]}` : `${issues} shipped`;
};

/** The continuing command, bounded and on one line; undefined when there is none. */
export const noticeCommand = (notice: RunNotice): string | undefined => {
  const c = notice.command === undefined ? '' : oneLine(notice.command, 120);
  return c === '' ? undefined : c;
};

/** `2026-12-01 15:00 UTC`, when the notice carries a valid reset time. */
export const noticeResetAt = (notice: RunNotice): string | undefined => {
  const t = notice.resetAt === undefined ? Number.NaN : Date.parse(notice.resetAt);
  return Number.isNaN(t) ? undefined : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};

/** `Resets at 2026-12-01 15:00 UTC. To continue: /blitz retry #12`: what a person can do next. */
export const noticeNext = (notice: RunNotice): string => {
  const reset = noticeResetAt(notice);
  const command = noticeCommand(notice);
  return [reset ? `Resets at ${reset}.` : '', command ? `To continue: ${command}` : '']
    .filter(Boolean)
    .join(' ');
};

/** The plain-text body every text-only target sends: sentence, where, tally, and what comes next. */
export const noticeMessage = (notice: RunNotice): string => {
  const next = noticeNext(notice);
  return `${noticeSentence(notice)} ${noticeWhere(notice)} · ${noticeTally(notice)}${next ? ` · ${next}` : ''}`;
};

/** The notice `blitz-bot notify test` sends: plainly a test, about no run, so a receiver can ignore it. */
export const testNotice = (url?: string): RunNotice => ({
  event: 'test',
  repo: 'blitz-bot',
  run: { id: 'test', kind: 'blitz', title: 'notify test' },
  sentence: 'This is a test message from `blitz-bot notify test`; no run is involved',
  ...(url ? { url } : {}),
  issuesShipped: 0,
});
