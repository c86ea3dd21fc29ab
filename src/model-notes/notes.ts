// The model notes (seed 001 "Model notes"): what past runs learned about each roster entry, compiled
// from attempt records into four fixed sections, at most 60 lines, rewritten in place. Evidence is
// merged into the one measured line per (entry, tier); a run already merged is recognised by its id,
// so compiling the same evidence twice gives the same file. Routing reads the file back as hints.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type EntryHints, hintsFor } from './hints.ts';
import { formatCount, formatTierLine, runsNote, type Tier, type TierStats, tiers } from './lines.ts';
import {
  type AttemptEvidence,
  mergeEvidence,
  type ParsedNotes,
  parseNotes,
  type Section,
  sections,
  seededNote,
  seededTierLines,
} from './merge.ts';

export type { EntryHints } from './hints.ts';
export type { Tier, TierStats } from './lines.ts';
export type { AttemptEvidence } from './merge.ts';

export const maxNoteLines = 60;

interface Pair {
  entry: string;
  tier: Tier;
  stats: TierStats;
}

const pairsOf = (stats: ParsedNotes['stats']): Pair[] =>
  [...stats.keys()].sort().flatMap((entry) =>
    tiers.flatMap((tier) => {
      const s = stats.get(entry)?.get(tier);
      return s ? [{ entry, tier, stats: s }] : [];
    }),
  );

const fitLine = (entry: string, byTier: ReadonlyMap<Tier, TierStats>): string | undefined => {
  const h = hintsFor(byTier);
  const tried = [...byTier.values()].reduce((n, s) => n + s.tried, 0);
  if (tried === 0) return undefined;
  const fits = h.solvedTiers.length > 0 ? `fits ${h.solvedTiers.join(', ')}` : 'no tier solved reliably yet';
  const avoid = h.avoidTiers.map((t) => {
    const s = byTier.get(t)!;
    return `${t} (solved ${s.solved}/${s.tried})`;
  });
  return `- \`${entry}\`: ${fits}${avoid.length > 0 ? `; avoid ${avoid.join(', ')}` : ''}${h.singleRun ? ' (1 run)' : ''}`;
};

const costLine = (entry: string, byTier: ReadonlyMap<Tier, TierStats>): string | undefined => {
  const all = [...byTier.values()];
  const tokens = all.reduce((n, s) => n + s.tokens, 0);
  const solved = all.reduce((n, s) => n + s.solved, 0);
  if (tokens === 0) return undefined;
  const runs = Math.max(...all.map((s) => s.runs));
  const body =
    solved > 0
      ? `~${formatCount(tokens / solved)} tokens per solved issue (${solved} solved, ${formatCount(tokens)} tokens)`
      : `${formatCount(tokens)} tokens spent, nothing solved yet`;
  return `- \`${entry}\`: ${body}${runs <= 1 ? ` ${runsNote(1)}` : ''}`;
};

const caveatLine = (entry: string, byTier: ReadonlyMap<Tier, TierStats>): string | undefined => {
  const all = [...byTier.values()];
  const sum = (k: keyof TierStats) => all.reduce((n, s) => n + s[k], 0);
  const parts: string[] = [];
  if (hintsFor(byTier).stallProne)
    parts.push(`stalled on ${sum('stalled')} of ${sum('tried')} attempts (${sum('nudges')} nudges)`);
  if (sum('envFailures') > 0)
    parts.push(
      `${sum('envFailures')} endpoint failure${sum('envFailures') === 1 ? '' : 's'}, not counted against it`,
    );
  return parts.length > 0 ? `- \`${entry}\`: ${parts.join('; ')}` : undefined;
};

const layout = (notes: ParsedNotes, pairs: readonly Pair[]): string[] => {
  const byEntry = new Map<string, Map<Tier, TierStats>>();
  for (const p of pairs) byEntry.set(p.entry, (byEntry.get(p.entry) ?? new Map()).set(p.tier, p.stats));
  const entries = [...byEntry.keys()];
  const compiled: Record<Section, string[]> = {
    'Difficulty tiers': [...seededTierLines, ...pairs.map((p) => formatTierLine(p.entry, p.tier, p.stats))],
    'Task fit': entries.flatMap((e) => fitLine(e, byEntry.get(e)!) ?? []),
    'Cost effectiveness': entries.flatMap((e) => costLine(e, byEntry.get(e)!) ?? []),
    Caveats: entries.flatMap((e) => caveatLine(e, byEntry.get(e)!) ?? []),
  };
  const marker = [...notes.merged].map(([id, n]) => `${id}=${n}`).join(' ');
  const out = ['# Model notes', `<!-- blitz-model-notes runs: ${marker} -->`, seededNote];
  for (const section of sections) {
    const body =
      section === 'Difficulty tiers'
        ? [...seededTierLines, ...notes.kept[section], ...compiled[section].slice(seededTierLines.length)]
        : [...notes.kept[section], ...compiled[section]];
    out.push('', `## ${section}`, ...body);
  }
  return out;
};

/** The file's text from what it said before and new attempt records; at most 60 lines. */
export const compileModelNotes = (existing: string, evidence: readonly AttemptEvidence[]): string => {
  const notes = mergeEvidence(parseNotes(existing), evidence);
  const pairs = pairsOf(notes.stats);
  let lines = layout(notes, pairs);
  while (lines.length > maxNoteLines) {
    if (pairs.length > 0) {
      // The line with the least evidence has stopped earning its place.
      const weakest = pairs.reduce((w, p) =>
        p.stats.tried + p.stats.envFailures < w.stats.tried + w.stats.envFailures ||
        (p.stats.tried + p.stats.envFailures === w.stats.tried + w.stats.envFailures &&
          p.stats.runs < w.stats.runs)
          ? p
          : w,
      );
      pairs.splice(pairs.indexOf(weakest), 1);
    } else {
      const section = [...sections].reverse().find((s) => notes.kept[s].length > 0);
      if (!section) break;
      notes.kept[section].pop();
    }
    lines = layout(notes, pairs);
  }
  return `${lines.join('\n')}\n`;
};

/** Per-entry routing hints from the notes' text (the measured lines). */
export const parseModelHints = (text: string): Map<string, EntryHints> =>
  new Map([...parseNotes(text).stats].map(([entry, byTier]) => [entry, hintsFor(byTier)]));

const readIfPresent = async (path: string): Promise<string | undefined> => {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
};

/** The update of each notes file now under way in this process: the next one waits for it. */
const updating = new Map<string, Promise<unknown>>();

/**
 * Rewrites the notes file in place from new attempt records (a missing file is created with the four
 * sections). Written through a temporary file and a rename, so a reader never sees half a file. Two
 * updates at once (two runs ending together) go one after the other: each reads what the other wrote.
 */
export const updateModelNotesFile = (
  path: string,
  evidence: readonly AttemptEvidence[],
): Promise<{ changed: boolean; lines: number }> => {
  const key = resolve(path);
  const next = (updating.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => rewriteNotes(path, evidence));
  updating.set(key, next);
  const done = () => {
    if (updating.get(key) === next) updating.delete(key);
  };
  next.then(done, done);
  return next;
};

const rewriteNotes = async (
  path: string,
  evidence: readonly AttemptEvidence[],
): Promise<{ changed: boolean; lines: number }> => {
  const before = await readIfPresent(path);
  const after = compileModelNotes(before ?? '', evidence);
  const lines = after.split('\n').length - 1;
  if (after === before) return { changed: false, lines };
  await mkdir(dirname(path), { recursive: true });
  // Named for this write alone: another process (a replica, pid 1 in its container too) sharing the
  // path writes its own and never renames ours away. Across processes the last rename wins.
  const tmp = `${path}.${randomUUID()}.tmp`;
  await writeFile(tmp, after, 'utf8');
  await rename(tmp, path);
  return { changed: true, lines };
};

/**
 * The hints last read from each notes file and that file as it was then (device, inode, size, change
 * and modification times): every pass of every run asks, and the file changes once per ended run. A
 * rewrite (a rename over it, here or by a replica) changes the inode; an edit in place the times.
 */
const hintsRead = new Map<string, { stamp: string; hints: ReadonlyMap<string, EntryHints> }>();

/**
 * The file's stamp, undefined when it does not exist (as in every run before the first one ends): a
 * synchronous stat that throws nothing for a missing file, where the promise one made an error with
 * its stack on every pass.
 */
const stampOf = (path: string): string | undefined => {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false });
  return s && `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
};

/** Routing hints from the notes file; none when it does not exist yet. Read again only once it changed. */
export const readModelHints = async (path: string): Promise<ReadonlyMap<string, EntryHints>> => {
  const key = resolve(path);
  const stamp = stampOf(path);
  if (stamp === undefined) {
    hintsRead.delete(key);
    return new Map();
  }
  const kept = hintsRead.get(key);
  if (kept?.stamp === stamp) return kept.hints;
  // Read after the stamp: a change in between is newer than the stamp, so the next call reads again.
  const hints = parseModelHints((await readIfPresent(path)) ?? '');
  hintsRead.set(key, { stamp, hints });
  return hints;
};

/** The notes as routing takes them (`pickWorker`'s `notes`): per entry, the tiers to avoid. */
export const modelNotesForRouting = (
  hints: ReadonlyMap<string, EntryHints>,
): Record<string, { avoidTiers: Tier[] }> =>
  Object.fromEntries([...hints].map(([name, h]) => [name, { avoidTiers: [...h.avoidTiers] }]));
