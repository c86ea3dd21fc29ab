// The shape of src/: no import circle between its modules, type-only imports included (issue 17 found
// one, `budget-probe ↔ context → dispatcher → dispatch-local → context`, that only types closed).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../src');

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });

// `import … from './x.ts'`, `export … from './x.ts'` (either may span lines, `type` or not) and
// `import './x.ts'`; only relative specifiers name a module of src/.
const specifiers =
  /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"](\.[^'"]+)['"]|(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]/g;

const importGraph = (files: readonly string[], read: (f: string) => string): Map<string, string[]> => {
  const known = new Set(files);
  return new Map(
    files.map((f) => [
      f,
      [...read(f).matchAll(specifiers)]
        .map((m) => resolve(dirname(f), (m[1] ?? m[2])!))
        .filter((t) => known.has(t)),
    ]),
  );
};

/** Strongly connected components of more than one module (Tarjan), or a module importing itself. */
const circles = (g: ReadonlyMap<string, readonly string[]>): string[][] => {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || g.get(v)?.includes(v)) out.push(scc.sort());
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
};

describe('the module graph of src/', () => {
  it('finds a circle closed only by a type import, across lines, and none in a chain', () => {
    const text: Record<string, string> = {
      '/s/a.ts': "import { b } from './b.ts';\n",
      '/s/b.ts': "export const b = 1;\nimport type {\n  C,\n} from './c/c.ts';\n",
      '/s/c/c.ts': "export type C = 1;\nimport type { A } from '../a.ts';\n",
      '/s/d.ts': "import { b } from './b.ts';\nimport 'node:fs';\n",
    };
    const g = importGraph(Object.keys(text), (f) => text[f]!);
    expect(circles(g)).toEqual([['/s/a.ts', '/s/b.ts', '/s/c/c.ts']]);
    text['/s/c/c.ts'] = 'export type C = 1;\n';
    expect(circles(importGraph(Object.keys(text), (f) => text[f]!))).toEqual([]);
  });

  it('has no import circle', () => {
    const files = sources(src);
    expect(files.length).toBeGreaterThan(100);
    const g = importGraph(files, (f) => readFileSync(f, 'utf8'));
    // Every module but the entry points is imported by some other: the scan reads real imports.
    const imported = new Set([...g.values()].flat());
    expect(imported.size).toBeGreaterThan(files.length / 2);
    expect(circles(g).map((c) => c.map((f) => relative(src, f)))).toEqual([]);
  });
});
