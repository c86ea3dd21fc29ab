// Per-issue caps (`runner.maxTokensPerIssue`, `maxCostPerIssue`, `maxAttemptsPerIssue`,
// `maxSessionsPerIssue`) and the run's cost cap (`maxCostPerRun`): what an issue has spent, whether
// that is near a cap (a warning at 80 %, once) or over it (the issue is held for a person, who continues
// it with `/blitz retry #n`). Environment failures and cancelled attempts are never charged (seed 003:
// the host's fault is nobody's attempt). run-context.ts holds an issue over its cap, notices.ts says
// so; the usage comes from the ledger (orchestrator/run-progress.ts), its price from plan/cost.ts.
import {
  attemptCost,
  formatDollars,
  microsOfDollars,
  type PricedTokens,
  type PriceTable,
  priceTableOf,
  sumCosts,
} from './cost.ts';

export interface IssueCaps {
  maxTokens?: number;
  /** µ$ one issue may spend (`runner.maxCostPerIssue`). */
  maxCost?: number;
  maxAttempts?: number;
  maxSessions?: number;
  /** µ$ the run's issues may spend together, each since its last retry (`runner.maxCostPerRun`). */
  maxRunCost?: number;
  /** What the cost caps price attempts with (set with either of them). */
  prices?: PriceTable;
}

/** A charged attempt's model and tokens, for its price (plan/cost.ts). */
export interface Spend {
  model?: string;
  tokens: PricedTokens;
}

export interface IssueUsage {
  tokens: number;
  attempts: number;
  /** Agent sessions started: attempts that resumed an earlier attempt's session count once. */
  sessions: number;
  /** The charged attempts' models and tokens, priced when a cost cap is checked. */
  spend?: Spend[];
}

export interface ChargeableAttempt {
  outcome?: 'solved' | 'unsolved' | 'environment_failure' | 'stalled' | 'cancelled';
  tokens: PricedTokens;
  /** The model the attempt ran (its roster entry's, or `--model`): what prices it. */
  model?: string;
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
    spend: counted.map((a) => ({ ...(a.model ? { model: a.model } : {}), tokens: a.tokens })),
  };
};

/** µ$ of what had a price among the usage's attempts (an unknown price is counted by no cost cap). */
export const usageCost = (usage: Pick<IssueUsage, 'spend'>, prices: PriceTable): number =>
  sumCosts((usage.spend ?? []).map((s) => attemptCost(prices, s))).micros;

export type CapLevel = 'ok' | 'warn' | 'over';

export interface CapItem {
  what: 'tokens' | 'cost' | 'attempts' | 'sessions';
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

const words: Record<Exclude<CapItem['what'], 'cost'>, string> = {
  tokens: 'tokens',
  attempts: 'attempts',
  sessions: 'sessions',
};

const percent = (used: number, cap: number): string => `${Math.floor((used / cap) * 100)} %`;

const itemText = (i: CapItem): string =>
  i.what === 'cost'
    ? `${formatDollars(i.used)} of ${formatDollars(i.cap)} (${percent(i.used, i.cap)})`
    : `${i.used.toLocaleString('en-US')} of ${i.cap.toLocaleString('en-US')} ${words[i.what]} (${percent(i.used, i.cap)})`;

/**
 * The issue's usage against its caps. `over` holds the issue before another attempt (an attempt
 * already running finishes); `warn` says so once at 80 %. `ref` is `#12` for the sentence.
 */
export const checkCaps = (usage: IssueUsage, caps: IssueCaps, ref: string): CapCheck => {
  const pairs: [CapItem['what'], number, number | undefined][] = [
    ['tokens', usage.tokens, caps.maxTokens],
    ['cost', caps.maxCost ? usageCost(usage, caps.prices ?? {}) : 0, caps.maxCost],
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

/**
 * The run's cost cap against what its issues spent, each since its last retry (`usedMicros`). `over`
 * holds every issue not running; `retryRef` names the held issue whose `/blitz retry` gives its spend
 * back to the run (the one that spent most).
 */
export const checkRunCost = (usedMicros: number, capMicros: number, retryRef?: string): CapCheck => {
  const item: CapItem = {
    what: 'cost',
    used: usedMicros,
    cap: capMicros,
    level: levelOf(usedMicros, capMicros),
  };
  const { level } = item;
  if (level === 'ok') return { level, items: [item], sentence: '', detail: '', key: 'run-cost:ok' };
  const detail = itemText(item);
  const retry = retryRef
    ? `; \`/blitz retry ${retryRef}\` gives that issue's spend back to the run`
    : '; raise `runner.maxCostPerRun` to go on';
  const sentence =
    level === 'over'
      ? `the run reached its cost cap (${detail}) and every issue not running is held${retry}`
      : `the run has used ${detail} of its cost cap; its issues are held when it reaches it`;
  return { level, items: [item], sentence, detail, key: `run-cost:${level}` };
};

/** The caps as `blitz.config.yml`'s `runner:` names them (dollars → µ$); undefined when none is set. */
export const issueCapsOf = (
  runner: {
    maxTokensPerIssue?: number | undefined;
    maxCostPerIssue?: number | undefined;
    maxAttemptsPerIssue?: number | undefined;
    maxSessionsPerIssue?: number | undefined;
    maxCostPerRun?: number | undefined;
  },
  prices?: Parameters<typeof priceTableOf>[0],
): IssueCaps | undefined => {
  const micros = (d: number | undefined) => (d ? Math.max(1, microsOfDollars(d)) : undefined);
  const maxCost = micros(runner.maxCostPerIssue);
  const maxRunCost = micros(runner.maxCostPerRun);
  const caps: IssueCaps = {
    ...(runner.maxTokensPerIssue ? { maxTokens: runner.maxTokensPerIssue } : {}),
    ...(maxCost ? { maxCost } : {}),
    ...(runner.maxAttemptsPerIssue ? { maxAttempts: runner.maxAttemptsPerIssue } : {}),
    ...(runner.maxSessionsPerIssue ? { maxSessions: runner.maxSessionsPerIssue } : {}),
    ...(maxRunCost ? { maxRunCost } : {}),
  };
  if (Object.keys(caps).length === 0) return undefined;
  return maxCost || maxRunCost ? { ...caps, prices: priceTableOf(prices) } : caps;
};
