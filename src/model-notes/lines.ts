// The measured line of the model notes: one per (roster entry, tier), carrying the counts that later
// runs merge into, in a form a person reads and this module parses back exactly:
//   - `codex-medium` · design: solved 3/4 · 1 stalled · 2 nudges · 210k tokens · ~14 min each (3 runs)

export const tiers = ['execution', 'design', 'subtle'] as const;
export type Tier = (typeof tiers)[number];

export interface TierStats {
  /** Attempts that count for or against the model: solved, unsolved, stalled. */
  tried: number;
  solved: number;
  stalled: number;
  /** Outages of the endpoint: not the model's fault, not counted in `tried`. */
  envFailures: number;
  nudges: number;
  tokens: number;
  /** Mean minutes per tried attempt. */
  minutes: number;
  /** Runs that contributed evidence. */
  runs: number;
}

export const emptyStats = (): TierStats => ({
  tried: 0,
  solved: 0,
  stalled: 0,
  envFailures: 0,
  nudges: 0,
  tokens: 0,
  minutes: 0,
  runs: 0,
});

/** Roster names that can sit inside backticks on one line; anything else is not written. */
export const safeEntryName = /^[A-Za-z0-9_.:@/+-]{1,60}$/;

export const formatCount = (n: number): string => {
  if (n < 1_000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1_000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
};

export const parseCount = (text: string): number | undefined => {
  const m = /^(\d+(?:\.\d+)?)([kM]?)$/.exec(text);
  if (!m) return undefined;
  const scale = m[2] === 'k' ? 1_000 : m[2] === 'M' ? 1_000_000 : 1;
  return Math.round(Number(m[1]) * scale);
};

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export const runsNote = (runs: number): string => `(${plural(runs, 'run')})`;

export const formatTierLine = (entry: string, tier: Tier, s: TierStats): string => {
  const parts = [`solved ${s.solved}/${s.tried}`];
  if (s.stalled > 0) parts.push(`${s.stalled} stalled`);
  if (s.envFailures > 0) parts.push(plural(s.envFailures, 'env failure'));
  if (s.nudges > 0) parts.push(plural(s.nudges, 'nudge'));
  if (s.tokens > 0) parts.push(`${formatCount(s.tokens)} tokens`);
  if (s.tried > 0) parts.push(`~${Math.round(s.minutes)} min each`);
  return `- \`${entry}\` · ${tier}: ${parts.join(' · ')} ${runsNote(s.runs)}`;
};

const tierLinePattern = /^- `([^`]+)` · (execution|design|subtle): (.*)$/;

const num = (re: RegExp, text: string): number => {
  const m = re.exec(text);
  return m ? Number(m[1]) : 0;
};

/** A measured line back into its entry, tier and counts; undefined for any other line. */
export const parseTierLine = (line: string): { entry: string; tier: Tier; stats: TierStats } | undefined => {
  const m = tierLinePattern.exec(line.trim());
  const tier = tiers.find((t) => t === m?.[2]);
  if (!m || !tier || !safeEntryName.test(m[1]!)) return undefined;
  const rest = m[3]!;
  const solved = /solved (\d+)\/(\d+)/.exec(rest);
  if (!solved) return undefined;
  const tokens = /([\d.]+[kM]?) tokens/.exec(rest);
  return {
    entry: m[1]!,
    tier,
    stats: {
      solved: Number(solved[1]),
      tried: Number(solved[2]),
      stalled: num(/(\d+) stalled/, rest),
      envFailures: num(/(\d+) env failures?/, rest),
      nudges: num(/(\d+) nudges?/, rest),
      tokens: tokens ? (parseCount(tokens[1]!) ?? 0) : 0,
      minutes: num(/~(\d+) min each/, rest),
      runs: Math.max(1, num(/\((\d+) runs?\)/, rest)),
    },
  };
};

/** Whether a line belongs to the compiler (recomputed each run) rather than to a person. */
export const isCompiledLine = (line: string): boolean => /^- `[^`]+`/.test(line.trim());
