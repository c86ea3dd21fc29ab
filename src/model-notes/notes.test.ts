import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pickWorker } from '../plan/routing.ts';
import {
  type AttemptEvidence,
  compileModelNotes,
  maxNoteLines,
  modelNotesForRouting,
  parseModelHints,
  readModelHints,
  updateModelNotesFile,
} from './notes.ts';

const attempt = (
  runId: string,
  entry: string,
  tier: AttemptEvidence['tier'],
  outcome: AttemptEvidence['outcome'],
  extra: Partial<AttemptEvidence> = {},
): AttemptEvidence => ({ runId, entry, tier, outcome, nudges: 0, durationMs: 10 * 60_000, ...extra });

const run1 = [
  attempt('r1', 'codex-medium', 'execution', 'solved', { tokens: 40_000 }),
  attempt('r1', 'codex-medium', 'design', 'unsolved', { tokens: 90_000, nudges: 2 }),
  attempt('r1', 'codex-medium', 'design', 'unsolved', { tokens: 30_000 }),
  attempt('r1', 'claude-sonnet', 'design', 'solved', { durationMs: 20 * 60_000 }),
  attempt('r1', 'claude-sonnet', 'design', 'environment_failure'),
];

const lines = (text: string) => text.split('\n').filter((_, i, a) => i < a.length - 1);
const section = (text: string, name: string): string[] => {
  const all = lines(text);
  const start = all.indexOf(`## ${name}`);
  const end = all.findIndex((l, i) => i > start && l.startsWith('## '));
  return all.slice(start + 1, end === -1 ? undefined : end).filter((l) => l !== '');
};
const headings = (text: string) => lines(text).filter((l) => l.startsWith('## '));

describe('compileModelNotes', () => {
  it('creates the four sections and says the tiers are seeded, not measured, when there is no file', () => {
    const text = compileModelNotes('', []);
    expect(headings(text)).toEqual([
      '## Difficulty tiers',
      '## Task fit',
      '## Cost effectiveness',
      '## Caveats',
    ]);
    expect(text).toMatch(/seeded .*not measured/);
    expect(section(text, 'Difficulty tiers')).toHaveLength(3);
  });

  it('writes one measured line per entry and tier, marks a single-run claim, and derives fit, cost and caveats', () => {
    const text = compileModelNotes('', run1);
    expect(section(text, 'Difficulty tiers').slice(3)).toEqual([
      '- `claude-sonnet` · design: solved 1/1 · 1 env failure · ~20 min each (1 run)',
      '- `codex-medium` · execution: solved 1/1 · 40k tokens · ~10 min each (1 run)',
      '- `codex-medium` · design: solved 0/2 · 2 nudges · 120k tokens · ~10 min each (1 run)',
    ]);
    expect(section(text, 'Task fit')).toEqual([
      '- `claude-sonnet`: fits design (1 run)',
      '- `codex-medium`: fits execution; avoid design (solved 0/2) (1 run)',
    ]);
    expect(section(text, 'Cost effectiveness')).toEqual([
      '- `codex-medium`: ~160k tokens per solved issue (1 solved, 160k tokens) (1 run)',
    ]);
    expect(section(text, 'Caveats')).toEqual([
      '- `claude-sonnet`: 1 endpoint failure, not counted against it',
    ]);
  });

  it('gives the same file when run twice with the same evidence', () => {
    const once = compileModelNotes('', run1);
    expect(compileModelNotes(once, run1)).toBe(once);
    expect(compileModelNotes(once, [])).toBe(once);
  });

  it('rewrites the line of an (entry, tier) in place with the merged counts instead of appending', () => {
    const once = compileModelNotes('', run1);
    const run2 = [
      attempt('r2', 'codex-medium', 'design', 'solved', { tokens: 50_000 }),
      attempt('r2', 'codex-medium', 'design', 'solved', { tokens: 50_000 }),
      attempt('r2', 'codex-medium', 'design', 'solved', { tokens: 50_000 }),
    ];
    const twice = compileModelNotes(once, run2);
    const design = section(twice, 'Difficulty tiers').filter((l) =>
      l.startsWith('- `codex-medium` · design'),
    );
    expect(design).toEqual([
      '- `codex-medium` · design: solved 3/5 · 2 nudges · 270k tokens · ~10 min each (2 runs)',
    ]);
    // The newer run contradicts the old "avoid design": the claim is replaced, not qualified.
    expect(section(twice, 'Task fit')).toContain('- `codex-medium`: fits execution, design');
    expect(lines(twice).length).toBe(lines(once).length);
  });

  it('merges the later records of a resumed run once, without counting the run twice', () => {
    const partial = compileModelNotes('', run1.slice(0, 2));
    const full = compileModelNotes(partial, run1);
    expect(full).toBe(compileModelNotes('', run1));
  });

  it('keeps lines people wrote, and folds an unknown section into Caveats', () => {
    const edited = compileModelNotes('', run1)
      .replace('## Task fit\n', '## Task fit\n- Prefer codex for migrations: it reads the schema first.\n')
      .concat('\n## Scratch\n- the free endpoint times out often; retry and it lands\n');
    const next = compileModelNotes(edited, [attempt('r2', 'claude-sonnet', 'execution', 'solved')]);
    expect(section(next, 'Task fit')[0]).toBe('- Prefer codex for migrations: it reads the schema first.');
    expect(section(next, 'Caveats')).toContain('- the free endpoint times out often; retry and it lands');
    expect(headings(next)).toHaveLength(4);
    expect(compileModelNotes(next, [])).toBe(next);
  });

  it(`never grows past ${maxNoteLines} lines, dropping the entries with the least evidence`, () => {
    const many: AttemptEvidence[] = [];
    for (let e = 0; e < 30; e++) {
      for (const tier of ['execution', 'design', 'subtle'] as const) {
        for (let k = 0; k <= e % 4; k++)
          many.push(attempt(`r${k}`, `entry-${e}`, tier, k % 2 ? 'stalled' : 'solved', { tokens: 1_000 }));
      }
    }
    const text = compileModelNotes('', many);
    expect(lines(text).length).toBeLessThanOrEqual(maxNoteLines);
    expect(headings(text)).toHaveLength(4);
    // Entries with four attempts per tier outlast those with one.
    expect(text).toContain('`entry-3` · subtle');
    expect(text).not.toContain('`entry-0` · subtle');
    expect(compileModelNotes(text, many)).toBe(text);
  });

  it('does not write an entry name that could break the line', () => {
    const text = compileModelNotes('', [attempt('r1', 'bad`name\n- `x`', 'execution', 'solved')]);
    expect(text).not.toContain('bad');
  });
});

describe('model hints', () => {
  it('round-trips the file to hints: a tier failed twice where the tier below succeeded is avoided', () => {
    const hints = parseModelHints(compileModelNotes('', run1));
    expect(hints.get('codex-medium')).toEqual({
      avoidTiers: ['design'],
      solvedTiers: ['execution'],
      stallProne: false,
      singleRun: true,
    });
    expect(hints.get('claude-sonnet')?.avoidTiers).toEqual([]);
  });

  it('feeds routing: the design tier goes past the entry the notes say failed there', () => {
    const roster = [
      {
        name: 'codex-medium',
        tool: 'codex' as const,
        roles: ['blitz' as const],
        tiers: ['execution' as const, 'design' as const],
        costRank: 0,
      },
      {
        name: 'claude-sonnet',
        tool: 'claude' as const,
        roles: ['blitz' as const],
        tiers: ['design' as const],
        costRank: 1,
      },
    ];
    const pick = (notes?: ReturnType<typeof modelNotesForRouting>) =>
      pickWorker({ role: 'blitz', assessedTier: 'design', roster, attempts: [], ...(notes ? { notes } : {}) })
        .entry.name;
    expect(pick()).toBe('codex-medium');
    const notes = modelNotesForRouting(parseModelHints(compileModelNotes('', run1)));
    expect(notes['codex-medium']).toEqual({ avoidTiers: ['design'] });
    expect(pick(notes)).toBe('claude-sonnet');
  });

  it('does not avoid a tier after two failures when nothing below it was solved', () => {
    const hints = parseModelHints(
      compileModelNotes('', [
        attempt('r1', 'x', 'design', 'unsolved'),
        attempt('r1', 'x', 'design', 'unsolved'),
      ]),
    );
    expect(hints.get('x')?.avoidTiers).toEqual([]);
  });

  it('marks an entry that stalls on half its attempts, across runs', () => {
    const text = compileModelNotes(
      compileModelNotes('', [attempt('r1', 'y', 'execution', 'stalled', { nudges: 6 })]),
      [attempt('r2', 'y', 'execution', 'solved')],
    );
    expect(parseModelHints(text).get('y')).toMatchObject({ stallProne: true, singleRun: false });
    expect(section(text, 'Caveats')).toEqual(['- `y`: stalled on 1 of 2 attempts (6 nudges)']);
  });
});

describe('model notes file', () => {
  it('is created when missing, rewritten in place, left alone when nothing changed, and read back as hints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-notes-'));
    const path = join(dir, 'state', 'models.md');
    try {
      expect(await readModelHints(path)).toEqual(new Map());
      expect(await updateModelNotesFile(path, run1)).toMatchObject({ changed: true });
      const first = readFileSync(path, 'utf8');
      expect(await updateModelNotesFile(path, run1)).toMatchObject({ changed: false });
      expect(readFileSync(path, 'utf8')).toBe(first);
      expect((await readModelHints(path)).get('codex-medium')?.avoidTiers).toEqual(['design']);
      writeFileSync(path, `${first}- a note from a person\n`);
      await updateModelNotesFile(path, [attempt('r9', 'codex-medium', 'design', 'solved')]);
      expect(readFileSync(path, 'utf8')).toContain('- a note from a person');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is read again only once it changed: renamed over, edited in place or removed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-notes-'));
    const path = join(dir, 'models.md');
    try {
      await updateModelNotesFile(path, run1);
      const first = await readModelHints(path);
      expect(first.get('codex-medium')?.avoidTiers).toEqual(['design']);
      // Unchanged: the same hints, not parsed again.
      expect(await readModelHints(path)).toBe(first);
      // Rewritten through a rename (another run's end, or a replica's).
      await updateModelNotesFile(path, [
        attempt('r7', 'codex-medium', 'design', 'solved'),
        attempt('r8', 'codex-medium', 'design', 'solved'),
        attempt('r9', 'codex-medium', 'design', 'solved'),
      ]);
      const second = await readModelHints(path);
      expect(second).not.toBe(first);
      expect(second).toEqual(parseModelHints(readFileSync(path, 'utf8')));
      // Edited in place by a person, with the inode kept.
      writeFileSync(path, '');
      expect(await readModelHints(path)).toEqual(new Map());
      rmSync(path);
      expect(await readModelHints(path)).toEqual(new Map());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps every run of updates made at once (two runs ending together)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-notes-'));
    const path = join(dir, 'models.md');
    try {
      const runs = ['r1', 'r2', 'r3'].map((id) => [attempt(id, `entry-${id}`, 'execution', 'solved')]);
      const results = await Promise.allSettled(runs.map((evidence) => updateModelNotesFile(path, evidence)));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const text = readFileSync(path, 'utf8');
      for (const id of ['r1', 'r2', 'r3']) expect(text).toContain(`entry-${id}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes through a temporary file of its own, whatever another process with this pid left beside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'blitz-notes-'));
    const path = join(dir, 'models.md');
    try {
      // Another replica (pid 1 in its container, as this one may be) is mid-write under the pid's name.
      mkdirSync(`${path}.${process.pid}.tmp`);
      writeFileSync(`${path}.1.tmp`, 'half a file');
      expect(await updateModelNotesFile(path, run1)).toMatchObject({ changed: true });
      expect(readFileSync(path, 'utf8')).toContain('codex-medium');
      expect(readFileSync(`${path}.1.tmp`, 'utf8')).toBe('half a file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
