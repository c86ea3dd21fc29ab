// Attempt statistics (seed 003 `sft stats`): attempts, pass rate per roster entry and tier with the
// 20–80 % band marked (where an entry is neither hopeless nor trivial for that tier, the attempts
// worth learning from), tokens, and the unsolved issues that wait for a stronger model or a person.
// Pure: the caller reads the stores.
import { addCost, attemptCost, type Cost, defaultPrices, type PriceTable, zeroCost } from '../plan/cost.ts';
import type { AttemptOutcome, AttemptRecord, Tier, TokenUsage } from '../runner/types.ts';
import type { RunIssueRecord } from '../store/run-store.ts';
import type { ApiStats } from './api-schemas.ts';

export const passBand = { low: 0.2, high: 0.8 } as const;

export interface PassRateRow {
  rosterEntry: string;
  tool: string;
  tier: Tier;
  attempts: number;
  /** Attempts with a verdict on the model: environment failures, cancels and open ones are not. */
  counted: number;
  solved: number;
  /** solved / counted; undefined when nothing counted yet. */
  passRate?: number;
  /** 20 % ≤ pass rate ≤ 80 %. */
  inBand: boolean;
  tokens: number;
  cost: Cost;
}

export interface WaitingIssue {
  runId: string;
  repo: string;
  number: number;
  title?: string;
  attempts: number;
  lastOutcome: AttemptOutcome;
  /** The strongest tier tried so far. */
  highestTier: Tier;
  /** Subtle tier tried, a stall, or failed/held in the run: a person; otherwise a stronger model may try. */
  waitingFor: 'stronger_model' | 'person';
}

export interface AttemptStats {
  attempts: number;
  byOutcome: Record<AttemptOutcome | 'open', number>;
  tokens: TokenUsage;
  cost: Cost;
  rows: PassRateRow[];
  waiting: WaitingIssue[];
}

const notCounted: ReadonlySet<AttemptOutcome | undefined> = new Set([
  'environment_failure',
  'cancelled',
  undefined,
]);
const doneStates: ReadonlySet<string> = new Set(['merged', 'closed']);
const personStates: ReadonlySet<string> = new Set(['failed', 'stalled', 'held']);

const tierOrder: Record<Tier, number> = { execution: 0, design: 1, subtle: 2 };

export const inPassBand = (rate: number | undefined): boolean =>
  rate !== undefined && rate >= passBand.low && rate <= passBand.high;

const issueKeyOf = (a: AttemptRecord): string =>
  `${a.runId} ${a.issue.repo.owner}/${a.issue.repo.name}#${a.issue.number}`;

export const computeStats = (input: {
  attempts: readonly AttemptRecord[];
  /** Run issue rows, to skip issues already merged and to see failed/stalled ones. */
  issues?: readonly RunIssueRecord[];
  /** What prices the attempts (plan/cost.ts); default the built-in table. */
  prices?: PriceTable;
}): AttemptStats => {
  const prices = input.prices ?? defaultPrices;
  let cost = zeroCost;
  const byOutcome: AttemptStats['byOutcome'] = {
    solved: 0,
    unsolved: 0,
    environment_failure: 0,
    stalled: 0,
    cancelled: 0,
    open: 0,
  };
  const tokens: TokenUsage = { input: 0, output: 0, cache: 0 };
  const rows = new Map<string, PassRateRow>();
  const perIssue = new Map<string, AttemptRecord[]>();
  for (const a of input.attempts) {
    byOutcome[a.outcome ?? 'open']++;
    tokens.input += a.tokens.input;
    tokens.output += a.tokens.output;
    tokens.cache = (tokens.cache ?? 0) + (a.tokens.cache ?? 0);
    const spent = attemptCost(prices, a);
    cost = addCost(cost, spent);
    const key = `${a.rosterEntry}\u0000${a.tier}`;
    const row = rows.get(key) ?? {
      rosterEntry: a.rosterEntry,
      tool: a.tool,
      tier: a.tier,
      attempts: 0,
      counted: 0,
      solved: 0,
      inBand: false,
      tokens: 0,
      cost: zeroCost,
    };
    row.attempts++;
    row.tokens += a.tokens.input + a.tokens.output;
    row.cost = addCost(row.cost, spent);
    if (!notCounted.has(a.outcome)) row.counted++;
    if (a.outcome === 'solved') row.solved++;
    rows.set(key, row);
    perIssue.set(issueKeyOf(a), [...(perIssue.get(issueKeyOf(a)) ?? []), a]);
  }
  for (const row of rows.values()) {
    if (row.counted > 0) row.passRate = row.solved / row.counted;
    row.inBand = inPassBand(row.passRate);
  }
  const issueState = new Map<string, string>(
    (input.issues ?? []).map((i) => [`${i.runId} ${i.repo}#${i.number}`, i.state]),
  );
  const waiting: WaitingIssue[] = [];
  for (const [key, list] of perIssue) {
    const state = issueState.get(key);
    if (list.some((a) => a.outcome === 'solved') || (state && doneStates.has(state))) continue;
    const judged = list.filter((a) => a.outcome === 'unsolved' || a.outcome === 'stalled');
    const last = judged.at(-1);
    // An issue with an attempt still running, or only host failures, is not waiting on anyone yet.
    if (!last || list.at(-1)?.outcome === undefined) continue;
    const highestTier = judged.map((a) => a.tier).reduce((a, b) => (tierOrder[b] > tierOrder[a] ? b : a));
    const person =
      judged.some((a) => a.outcome === 'stalled') ||
      highestTier === 'subtle' ||
      (state !== undefined && personStates.has(state));
    waiting.push({
      runId: last.runId,
      repo: `${last.issue.repo.owner}/${last.issue.repo.name}`,
      number: last.issue.number,
      title: last.job.title,
      attempts: list.length,
      lastOutcome: last.outcome ?? 'unsolved',
      highestTier,
      waitingFor: person ? 'person' : 'stronger_model',
    });
  }
  return {
    attempts: input.attempts.length,
    byOutcome,
    tokens,
    cost,
    rows: [...rows.values()].sort(
      (a, b) => a.rosterEntry.localeCompare(b.rosterEntry) || tierOrder[a.tier] - tierOrder[b.tier],
    ),
    waiting: waiting.sort((a, b) => a.runId.localeCompare(b.runId) || a.number - b.number),
  };
};

const percent = (rate: number | null | undefined): string =>
  rate === undefined || rate === null ? '–' : `${Math.round(rate * 100)} %`;

/** Plain text for `blitz-bot stats`: fixed-width columns, the band marked with `*`. */
/** The terminal's text for the API's stats object (what GET /api/v1/stats answers). */
export const formatStatsText = (s: ApiStats): string => {
  const count = (outcome: string): number => s.byOutcome[outcome] ?? 0;
  const lines = [
    `attempts: ${s.attempts} (solved ${count('solved')}, unsolved ${count('unsolved')}, stalled ${count('stalled')}, environment ${count('environment_failure')}, cancelled ${count('cancelled')}, running ${count('open')})`,
    `tokens: input ${s.tokens.input}, output ${s.tokens.output}, cache ${s.tokens.cache} (${s.cost.usd})`,
    '',
    'pass rate by roster entry and tier (* = in the 20–80 % band)',
  ];
  const header = ['entry', 'tool', 'tier', 'attempts', 'solved', 'pass', 'tokens', 'cost'];
  const table = s.rows.map((r) => [
    r.rosterEntry,
    r.tool,
    r.tier,
    String(r.attempts),
    `${r.solved}/${r.counted}`,
    `${percent(r.passRate)}${r.inBand ? ' *' : ''}`,
    String(r.tokens),
    r.cost.usd,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  for (const row of [header, ...table])
    lines.push(
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
  if (s.rows.length === 0) lines.push('(no attempts yet)');
  lines.push('', `unsolved, waiting: ${s.waiting.length}`);
  for (const w of s.waiting)
    lines.push(
      `  ${w.repo}#${w.number} (run ${w.runId}): ${w.attempts} attempt(s), last ${w.lastOutcome}, up to ${w.highestTier}; waiting for ${w.waitingFor === 'person' ? 'a person' : 'a stronger model'}`,
    );
  return lines.join('\n');
};
