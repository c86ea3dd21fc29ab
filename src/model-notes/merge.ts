// Reading the model notes back and merging attempt records into them: the measured lines become
// counts per (roster entry, tier), people's lines are kept per section, and a marker remembers which
// runs (and how many of their records) are merged already, so that merging is idempotent.
import {
  emptyStats,
  isCompiledLine,
  parseTierLine,
  safeEntryName,
  type Tier,
  type TierStats,
} from './lines.ts';

export interface AttemptEvidence {
  runId: string;
  /** Roster entry name. */
  entry: string;
  tier: Tier;
  outcome: 'solved' | 'unsolved' | 'stalled' | 'environment_failure' | 'cancelled';
  tokens?: number;
  nudges: number;
  durationMs: number;
}

const keptRunIds = 40;
export const sections = ['Difficulty tiers', 'Task fit', 'Cost effectiveness', 'Caveats'] as const;
export type Section = (typeof sections)[number];

export const seededTierLines = [
  '- execution: the issue body settles the approach (cause named, fix shape decided); size does not matter.',
  '- design: the goal is stated but the worker must design the interface or the data model.',
  '- subtle: the design is thin or contradictory there, or the change is cross-cutting.',
];
export const seededNote =
  '_Tier definitions are seeded from the routing defaults, not measured. Lines starting with a `roster entry` are compiled from the attempt ledger and rewritten each run; other lines are kept._';

export interface ParsedNotes {
  stats: Map<string, Map<Tier, TierStats>>;
  /** Lines people wrote, per section, kept across rewrites. */
  kept: Record<Section, string[]>;
  /** Runs already merged, with how many of their attempt records (in ledger order) were merged. */
  merged: Map<string, number>;
}

const runsMarker = /^<!-- blitz-model-notes runs:([A-Za-z0-9_. :=-]*)-->$/;
const safeRunId = (id: string): string => id.replace(/[^A-Za-z0-9_.:-]/g, '_').replace(/-{2,}/g, '-') || '_';

const parseMarker = (text: string): Map<string, number> => {
  const merged = new Map<string, number>();
  for (const token of text.split(' ')) {
    const m = /^([A-Za-z0-9_.:-]+)=(\d+)$/.exec(token);
    if (m) merged.set(m[1]!, Number(m[2]));
  }
  return merged;
};

export const parseNotes = (text: string): ParsedNotes => {
  const kept: Record<Section, string[]> = {
    'Difficulty tiers': [],
    'Task fit': [],
    'Cost effectiveness': [],
    Caveats: [],
  };
  const stats = new Map<string, Map<Tier, TierStats>>();
  let merged = new Map<string, number>();
  let section: Section | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const marker = runsMarker.exec(line);
    if (marker) {
      merged = parseMarker(marker[1]!);
      continue;
    }
    const heading = /^##\s+(.+)$/.exec(line);
    if (heading) {
      // Text under a heading of its own is folded into Caveats rather than lost.
      section = sections.find((s) => s.toLowerCase() === heading[1]!.trim().toLowerCase()) ?? 'Caveats';
      continue;
    }
    if (!section || line.trim() === '' || line === seededNote) continue;
    const measured = parseTierLine(line);
    if (measured && section === 'Difficulty tiers') {
      const byTier = stats.get(measured.entry) ?? new Map<Tier, TierStats>();
      byTier.set(measured.tier, measured.stats);
      stats.set(measured.entry, byTier);
    } else if (!isCompiledLine(line) && !seededTierLines.includes(line)) {
      kept[section].push(line);
    }
  }
  return { stats, kept, merged };
};

const addAttempt = (s: TierStats, e: AttemptEvidence): void => {
  if (e.outcome === 'cancelled') return;
  if (e.outcome === 'environment_failure') {
    s.envFailures++;
    return;
  }
  const minutes = Math.max(0, e.durationMs) / 60_000;
  s.minutes = (s.minutes * s.tried + minutes) / (s.tried + 1);
  s.tried++;
  if (e.outcome === 'solved') s.solved++;
  if (e.outcome === 'stalled') s.stalled++;
  s.nudges += Math.max(0, e.nudges);
  s.tokens += Math.max(0, e.tokens ?? 0);
};

/**
 * Adds the attempt records not merged yet (per run, the records past the count already merged, so
 * pass each run's records in ledger order) and returns the merged notes; the input is not changed.
 */
export const mergeEvidence = (notes: ParsedNotes, evidence: readonly AttemptEvidence[]): ParsedNotes => {
  const stats = new Map(
    [...notes.stats].map(([k, v]) => [k, new Map([...v].map(([t, s]) => [t, { ...s }]))]),
  );
  const merged = new Map(notes.merged);
  const byRun = new Map<string, AttemptEvidence[]>();
  for (const e of evidence) {
    const id = safeRunId(e.runId);
    byRun.set(id, [...(byRun.get(id) ?? []), e]);
  }
  for (const [runId, records] of byRun) {
    const already = notes.merged.get(runId) ?? 0;
    if (records.length <= already) continue;
    const touched = new Set<TierStats>();
    for (const e of records.slice(already)) {
      if (!safeEntryName.test(e.entry)) continue;
      const byTier = stats.get(e.entry) ?? new Map<Tier, TierStats>();
      stats.set(e.entry, byTier);
      const s = byTier.get(e.tier) ?? emptyStats();
      byTier.set(e.tier, s);
      addAttempt(s, e);
      touched.add(s);
    }
    // A run counts once per line; a resumed run adds to its line without counting again.
    for (const s of touched) s.runs = already === 0 ? s.runs + 1 : Math.max(1, s.runs);
    merged.delete(runId);
    merged.set(runId, records.length);
  }
  // Rounded as written, so that a re-read file compares equal to what was compiled.
  for (const byTier of stats.values()) for (const s of byTier.values()) s.minutes = Math.round(s.minutes);
  return { stats, kept: notes.kept, merged: new Map([...merged].slice(-keptRunIds)) };
};
