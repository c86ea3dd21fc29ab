// Per-issue caps (`runner.maxTokensPerIssue`, `maxAttemptsPerIssue`, `maxSessionsPerIssue`): what an
// issue has spent, whether that is near a cap (a warning at 80 %, once) or over it (the issue is held
// for a person, who continues it with `/blitz retry #n`). Environment failures and cancelled attempts
// are never charged (seed 003: the host's fault is nobody's attempt). run-context.ts holds an issue
// over its cap, notices.ts says so; the usage comes from the ledger (orchestrator/run-progress.ts).

export interface IssueCaps {
  maxTokens?: number;
  maxAttempts?: number;
  maxSessions?: number;
}

export interface IssueUsage {
  tokens: number;
  attempts: number;
  /** Agent sessions started: attempts that resumed an earlier attempt's session count once. */
  sessions: number;
}

export interface ChargeableAttempt {
  outcome?: 'solved' | 'unsolved' | 'environment_failure' | 'stalled' | 'cancelled';
  tokens: { input: number; output: number; cache?: number };
  sessionId?: string;
}

export const WARN_FRACTION = 0.8;

const charged = (a: ChargeableAttempt): boolean =>
  a.outcome !== 'environment_failure' && a.outcome !== 'cancelled';

/**
 * What the issue's attempts cost: the caller passes the attempts since the person's last `/blitz retry`
 * (a retry starts a new allowance). A running attempt (no outcome yet) is charged.
 */
export const issueUsage = (attempts: readonly ChargeableAttempt[]): IssueUsage => {
  const counted = attempts.filter(charged);
  const sessions = new Set(counted.map((a, i) => a.sessionId ?? `attempt-${i}`));
  return {
    tokens: counted.reduce((t, a) => t + a.tokens.input + a.tokens.output, 0),
    attempts: counted.length,
    sessions: sessions.size,
  };
};

export type CapLevel = 'ok' | 'warn' | 'over';

export interface CapItem {
  what: 'tokens' | 'attempts' | 'sessions';
  used: number;
  cap: number;
  level: CapLevel;
}

export interface CapCheck {
  level: CapLevel;
  /** The capped measures, worst first. */
  items: CapItem[];
  /** One sentence for the dashboard and the notification; empty when ok. */
  sentence: string;
  /** The measures at the worst level, in words (`3,080 of 1,900 tokens (162 %)`); empty when ok. */
  detail: string;
  /** Stable per level and measure: the orchestrator posts each warning or hold once. */
  key: string;
}

const rank: Record<CapLevel, number> = { ok: 0, warn: 1, over: 2 };

const levelOf = (used: number, cap: number): CapLevel =>
  used >= cap ? 'over' : used >= cap * WARN_FRACTION ? 'warn' : 'ok';

const words: Record<CapItem['what'], string> = {
  tokens: 'tokens',
  attempts: 'attempts',
  sessions: 'sessions',
};

const itemText = (i: CapItem): string =>
  `${i.used.toLocaleString('en-US')} of ${i.cap.toLocaleString('en-US')} ${words[i.what]} (${Math.floor((i.used / i.cap) * 100)} %)`;

/**
 * The issue's usage against its caps. `over` holds the issue before another attempt (an attempt
 * already running finishes); `warn` says so once at 80 %. `ref` is `#12` for the sentence.
 */
export const checkCaps = (usage: IssueUsage, caps: IssueCaps, ref: string): CapCheck => {
  const pairs: [CapItem['what'], number, number | undefined][] = [
    ['tokens', usage.tokens, caps.maxTokens],
    ['attempts', usage.attempts, caps.maxAttempts],
    ['sessions', usage.sessions, caps.maxSessions],
  ];
  const items = pairs
    .filter((p): p is [CapItem['what'], number, number] => p[2] !== undefined && p[2] > 0)
    .map(([what, used, cap]) => ({ what, used, cap, level: levelOf(used, cap) }))
    .sort((a, b) => rank[b.level] - rank[a.level] || b.used / b.cap - a.used / a.cap);
  const level = items[0]?.level ?? 'ok';
  if (level === 'ok') return { level, items, sentence: '', detail: '', key: `caps:${ref}:ok` };
  const worst = items.filter((i) => i.level === level);
  const detail = worst.map(itemText).join(', ');
  const sentence =
    level === 'over'
      ? `${ref} reached its cap (${detail}) and is held; \`/blitz retry ${ref}\` gives it a new allowance`
      : `${ref} has used ${detail} of its cap; it is held when it reaches it`;
  return {
    level,
    items,
    sentence,
    detail,
    key: `caps:${ref}:${level}:${worst.map((i) => i.what).join('+')}`,
  };
};

/** The caps as `blitz.config.yml`'s `runner:` names them; undefined when none is set. */
export const issueCapsOf = (runner: {
  maxTokensPerIssue?: number | undefined;
  maxAttemptsPerIssue?: number | undefined;
  maxSessionsPerIssue?: number | undefined;
}): IssueCaps | undefined => {
  const caps: IssueCaps = {
    ...(runner.maxTokensPerIssue ? { maxTokens: runner.maxTokensPerIssue } : {}),
    ...(runner.maxAttemptsPerIssue ? { maxAttempts: runner.maxAttemptsPerIssue } : {}),
    ...(runner.maxSessionsPerIssue ? { maxSessions: runner.maxSessionsPerIssue } : {}),
  };
  return Object.keys(caps).length > 0 ? caps : undefined;
};
