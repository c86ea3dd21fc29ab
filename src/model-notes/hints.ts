// Routing hints from the measured counts of one roster entry: which tiers to avoid, which it
// handles, whether it tends to stall. One place for the rules so that the notes and routing agree.
import { type Tier, type TierStats, tiers } from './lines.ts';

export interface EntryHints {
  /** Tiers this entry should not be routed to: it failed there where the tier below succeeded. */
  avoidTiers: Tier[];
  /** Tiers where it solved at least half of its attempts. */
  solvedTiers: Tier[];
  /** Stalled on half or more of at least two attempts: arm nudges early, expect babysitting. */
  stallProne: boolean;
  /** Evidence behind the hints comes from a single run. */
  singleRun: boolean;
}

export const hintsFor = (byTier: ReadonlyMap<Tier, TierStats>): EntryHints => {
  const avoidTiers: Tier[] = [];
  const solvedTiers: Tier[] = [];
  let tried = 0;
  let stalled = 0;
  let runs = 0;
  tiers.forEach((tier, i) => {
    const s = byTier.get(tier);
    if (!s) return;
    tried += s.tried;
    stalled += s.stalled;
    runs = Math.max(runs, s.runs);
    if (s.tried > 0 && s.solved * 2 >= s.tried) solvedTiers.push(tier);
    const lowerSolved = tiers.slice(0, i).some((t) => (byTier.get(t)?.solved ?? 0) > 0);
    const failedTwice = s.tried >= 2 && s.solved === 0;
    const mostlyFails = s.tried >= 3 && s.solved * 3 < s.tried;
    if ((failedTwice && lowerSolved) || mostlyFails) avoidTiers.push(tier);
  });
  return { avoidTiers, solvedTiers, stallProne: tried >= 2 && stalled * 2 >= tried, singleRun: runs <= 1 };
};
