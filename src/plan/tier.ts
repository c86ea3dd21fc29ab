// Reading an issue body for how much judgment the worker still has to exercise (seed 001, "Picking
// a tier"): execution when the body settles the approach, design when the interface or data model
// is left open, subtle when the body is thin, contradictory, or the change is subtle or cross-cutting.
// A `difficulty/*` label only breaks ties; in doubt, the lower tier (escalation is cheap).
import { extractFences } from './fences.ts';
import type { PlanLabel } from './types.ts';

export const tiers = ['execution', 'design', 'subtle'] as const;
export type Tier = (typeof tiers)[number];

export const tierRank = (t: Tier): number => tiers.indexOf(t);
export const higherTier = (a: Tier, b: Tier): Tier => (tierRank(a) >= tierRank(b) ? a : b);

const rootCause = /\b(root cause|caused by|because|the bug is|the problem is|fails when|happens when)\b/i;
const fixShape =
  /\b(fix:|the fix|should (?:be|return|use|call)|change .{1,40} to|replace|rename|add (?:a|an|the)|remove|steps?:|acceptance criteria|expected:)/i;
const designWords =
  /\b(design|interface|data model|schema|api shape|decide|choose|propose|options?|trade-?offs?|tbd|open question|how should)\b/gi;
const subtleWords =
  /\b(race|concurren\w*|deadlock|atomic\w*|security|subtle|cross-cutting|migration|contradict\w*|inconsisten\w*|invariant|flaky|data loss|corrupt\w*|unclear)\b/gi;

export interface TierAssessment {
  tier: Tier;
  /** Why, in words, for the run log. */
  reasons: string[];
}

const labelTier = (labels: readonly PlanLabel[]): Tier | undefined => {
  for (const l of labels) {
    const m = /^difficulty\/(\w+)$/i.exec(l.name);
    const v = m?.[1]?.toLowerCase();
    if (v === 'easy' || v === 'low' || v === 'trivial' || v === 'execution') return 'execution';
    if (v === 'medium' || v === 'moderate' || v === 'design') return 'design';
    if (v === 'hard' || v === 'high' || v === 'subtle') return 'subtle';
  }
  return undefined;
};

const distinct = (body: string, re: RegExp): number =>
  new Set((body.match(re) ?? []).map((w) => w.toLowerCase())).size;

export const assessTier = (body: string, labels: readonly PlanLabel[] = []): TierAssessment => {
  const reasons: string[] = [];
  const words = body.split(/\s+/).filter(Boolean).length;
  const execSignals: [boolean, string][] = [
    [rootCause.test(body), 'names a root cause'],
    [extractFences(body).length > 0, 'points at files'],
    [fixShape.test(body), 'decides the fix shape'],
  ];
  let exec = 0;
  for (const [hit, why] of execSignals) {
    if (!hit) continue;
    exec++;
    reasons.push(why);
  }
  const design = distinct(body, designWords);
  if (design > 0) reasons.push('leaves interface or data model decisions open');
  let subtle = distinct(body, subtleWords);
  if (subtle > 0) reasons.push('mentions subtle or cross-cutting concerns');
  if (words < 25 && exec === 0) {
    subtle += 2;
    reasons.push('body is too thin to settle the approach');
  }

  let low: Tier;
  let high: Tier;
  if (subtle >= 2) low = high = 'subtle';
  else if (exec >= 2 && design === 0 && subtle === 0) low = high = 'execution';
  else if (design >= 1 && exec <= 1 && subtle === 0) low = high = 'design';
  else {
    const seen: Tier[] = [];
    if (exec > 0) seen.push('execution');
    if (design > 0) seen.push('design');
    if (subtle > 0) seen.push('subtle');
    if (seen.length === 0) seen.push('execution', 'design');
    low = seen[0]!;
    high = seen[seen.length - 1]!;
  }
  if (low === high) return { tier: low, reasons };
  const byLabel = labelTier(labels);
  if (byLabel && tierRank(byLabel) >= tierRank(low) && tierRank(byLabel) <= tierRank(high)) {
    reasons.push(`between ${low} and ${high}; the difficulty label decides`);
    return { tier: byLabel, reasons };
  }
  reasons.push(`between ${low} and ${high}; in doubt, the lower tier`);
  return { tier: low, reasons };
};
