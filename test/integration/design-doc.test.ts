// DESIGN.md says what is: every file it names exists, and it stays short and free of history (git
// log keeps that). Reads the repository's own files; no servers.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const design = readFileSync(join(root, 'DESIGN.md'), 'utf8');

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(root, dir))) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const rel = join(dir, name);
    if (statSync(join(root, rel)).isDirectory()) filesUnder(rel, out);
    else out.push(rel);
  }
  return out;
}

const known = ['src', 'test', 'bench', 'scripts', 'docker'].flatMap((d) => filesUnder(d));
const basenames = new Set(known.map((f) => basename(f)));
const paths = new Set(known);

/** A file the text names in backticks: `plan/park.ts`, `src/store/migrate.ts`, `perform.ts`. */
function namedFiles(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/`([A-Za-z0-9_./-]+\.(?:ts|mjs|mts|sql|graphql))`/g)) {
    names.add(m[1] as string);
  }
  return [...names];
}

function missingFiles(names: string[]): string[] {
  return names.filter((name) => {
    if (!name.includes('/')) return !basenames.has(name);
    // A path may be written from the repository's root or from within a source folder
    // (`fleet/merge-ticket.ts` under src/orchestrator/): it must be the tail of a real file's path.
    return !(paths.has(name) || known.some((f) => f.endsWith(`/${name}`)));
  });
}

describe('DESIGN.md', () => {
  it('names only files that exist (the "which file decides" table above all)', () => {
    // The section by its name, to the next heading: renumbering the sections does not empty it.
    const start = design.search(/^## \d+\. Which file decides/m);
    const table = design.slice(start, design.indexOf('\n## ', start + 1));
    expect(namedFiles(table).length).toBeGreaterThan(30);
    expect(missingFiles(namedFiles(design))).toEqual([]);
  });

  it('finds a file that does not exist, so the check above can fail', () => {
    expect(missingFiles(['plan/no-such-decision.ts', 'no-such-file.ts', 'plan/park.ts'])).toEqual([
      'plan/no-such-decision.ts',
      'no-such-file.ts',
    ]);
  });

  it('is at most 600 lines and carries no line counts, dates or history', () => {
    expect(design.split('\n').length).toBeLessThanOrEqual(600);
    expect(design).not.toMatch(/\b\d[\d,]* lines\b/);
    expect(design).not.toMatch(/\b20\d\d-\d\d-\d\d\b/);
    expect(design).not.toMatch(/\(issue \d+\)|\bsession \d+\b|\bbefore this\b|\bas built\b/i);
  });
});
