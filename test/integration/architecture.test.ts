// The layering rules of src/ that no type checker sees. The planner (src/plan) is pure: everything
// it loads at run time, followed through every module it imports, imports no module that does IO (a
// file, a process, a socket, a database, a forge client, a logger, a timer library). Type-only
// imports are erased when it runs, so they are not followed. And the executor (src/orchestrator, the
// run kinds beside it, the run layer under them) names no run or issue-row state it would write:
// src/plan decides those (run-patches.ts, issue-outcomes.ts) and the executor writes what they return.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { issueRowStates, runStates } from '../../src/plan/states.ts';

const src = resolve(import.meta.dirname, '../../src');

/**
 * The packages the planner's modules may load: parsing only. Anything else (node:fs, node:net,
 * node:child_process, execa, pg, better-sqlite3, @octokit/…, pino …) is refused, so a new IO
 * package is refused without this list naming it; a pure one joins the list with its reason.
 */
const pureForPlan = new Set(['zod']);

// `import x from 'm'`, `import { a, type B } from 'm'`, `export … from 'm'` (across lines), `import 'm'`
// and `import('m')`; group 1 marks `import type` / `export type`, which are erased.
const specifiers =
  /(?:^|\n)\s*(?:import|export)(\s+type)?\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** What `file` loads when it runs: relative modules resolved to paths, packages by name. */
const runtimeImports = (file: string, text: string): string[] =>
  [...text.matchAll(specifiers)]
    .filter((m) => !m[1])
    .map((m) => (m[2] ?? m[3] ?? m[4])!)
    .map((s) => (s.startsWith('.') ? resolve(dirname(file), s) : s));

/**
 * Every package the `roots` load at run time that is not in `allowed`, with the chain of modules
 * from a root that loads it.
 */
const ioReached = (
  roots: readonly string[],
  read: (file: string) => string,
  allowed: ReadonlySet<string>,
): string[][] => {
  const via = new Map<string, string[]>(roots.map((r) => [r, [r]]));
  const queue = [...roots];
  const out: string[][] = [];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const chain = via.get(file)!;
    for (const target of runtimeImports(file, read(file))) {
      if (!target.startsWith('/')) {
        if (!allowed.has(target)) out.push([...chain, target]);
      } else if (!via.has(target)) {
        via.set(target, [...chain, target]);
        queue.push(target);
      }
    }
  }
  return out;
};

const planModules = (): string[] =>
  readdirSync(join(src, 'plan'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));

describe('src/plan does no IO', () => {
  it('finds an IO package loaded through another module, and not one imported for its types only', () => {
    const text: Record<string, string> = {
      '/s/plan/a.ts': "import { b } from '../runner/b.ts';\nimport type { Pool } from 'pg';\n",
      '/s/runner/b.ts': "import { z } from 'zod';\nimport {\n  readFileSync,\n} from 'node:fs';\n",
      '/s/plan/c.ts': "export type { B } from '../store/d.ts';\nconst e = await import('execa');\n",
      '/s/store/d.ts': "import Database from 'better-sqlite3';\n",
    };
    const read = (f: string) => text[f]!;
    expect(ioReached(['/s/plan/a.ts', '/s/plan/c.ts'], read, pureForPlan)).toEqual([
      ['/s/plan/c.ts', 'execa'],
      ['/s/plan/a.ts', '/s/runner/b.ts', 'node:fs'],
    ]);
    text['/s/runner/b.ts'] = "import { z } from 'zod';\nimport type { Stats } from 'node:fs';\n";
    text['/s/plan/c.ts'] = "export type { B } from '../store/d.ts';\n";
    expect(ioReached(['/s/plan/a.ts', '/s/plan/c.ts'], read, pureForPlan)).toEqual([]);
  });

  it('loads, through every module it imports, no package but the pure ones', () => {
    const roots = planModules();
    expect(roots.length).toBeGreaterThan(40);
    expect(roots).toContain(join(src, 'plan', 'next-actions.ts'));
    const reached = ioReached(roots, (f) => readFileSync(f, 'utf8'), pureForPlan);
    expect(reached.map((chain) => chain.map((f) => (f.startsWith('/') ? relative(src, f) : f)))).toEqual([]);
  });
});

/** A run state or an issue-row state, as a word the executor could write. */
const stateWords = new Set<string>([...runStates, ...issueRowStates]);

/**
 * `state: …` in the executor whose expression names a run or issue-row state word (`state: 'merged'`,
 * `state: ok ? 'reviewed' : 'pr_open'`, `{ state: 'running' as const }`), as `line: word`.
 */
const stateWordsAssigned = (text: string): string[] =>
  text.split('\n').flatMap((line, i) =>
    [...line.matchAll(/\bstate\??:\s*([^,;{}()]*)/g)].flatMap((m) =>
      [...m[1]!.matchAll(/'(\w+)'/g)]
        .map((w) => w[1]!)
        .filter((w) => stateWords.has(w))
        .map((w) => `${i + 1}: ${w}`),
    ),
  );

/**
 * Words that are not a run's or an issue row's state where they stand, each with why: a build's fact in
 * the fleet's merge (plan/fleet-merge.ts BuildFact), a tracker issue's own state (open or closed).
 */
const notRowStates: Record<string, readonly string[]> = {
  [join('fleet', 'merge-ticket.ts')]: ['done'],
  [join('orchestrator', 'issue-cleanup.ts')]: ['closed'],
};

/** The executor's folders: the orchestrator, the run kinds it is given, the run layer under them. */
const executorFolders = ['orchestrator', 'fleet', 'plan-blitz', 'runs'];

const orchestratorModules = (): string[] =>
  executorFolders.flatMap((folder) =>
    readdirSync(join(src, folder), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
      .map((e) => join(e.parentPath, e.name)),
  );

describe('the executor decides no state', () => {
  it('finds a state word assigned plainly, by a condition or as a constant, and not a word of another kind', () => {
    const text = [
      "  await writeIssue(s, id, repo, n, { state: 'merged', mergedSha });",
      "    state: r.posted ? 'reviewed' : 'pr_open',",
      "  return { progress, ...(now.state === 'review_unclear' ? { state: 'running' as const } : {}) };",
      "  state: 'failure',",
      "  if (job?.state === 'queued') return { state: 'pending' };",
    ].join('\n');
    expect(stateWordsAssigned(text)).toEqual(['1: merged', '2: reviewed', '2: pr_open', '3: running']);
  });

  it('names no run or issue-row state outside src/plan', () => {
    const files = orchestratorModules();
    expect(files).toContain(join(src, 'orchestrator', 'perform.ts'));
    expect(files).toContain(join(src, 'fleet', 'fleet-perform.ts'));
    expect(files).toContain(join(src, 'plan-blitz', 'member-steps.ts'));
    const found = files.flatMap((f) => {
      const name = relative(src, f);
      const allowed = notRowStates[name] ?? [];
      return stateWordsAssigned(readFileSync(f, 'utf8'))
        .filter((hit) => !allowed.includes(hit.split(': ')[1]!))
        .map((hit) => `${name}:${hit}`);
    });
    expect(found).toEqual([]);
  });
});

/**
 * The folders of src/ a layer may not import, type-only imports included: the run layer (src/runs: the
 * run writer, the role ports, the deps sum) sits under every step and run kind, so it names none of them;
 * the orchestrator is given the run kinds (fleet, plan-blitz) by the composition root, so it names none.
 */
const layersBelow: Record<string, readonly string[]> = {
  runs: ['orchestrator', 'fleet', 'plan-blitz', 'compose'],
  orchestrator: ['fleet', 'plan-blitz', 'compose'],
  // A run kind is a plug-in beside the others: it knows none of them.
  fleet: ['plan-blitz', 'compose'],
  'plan-blitz': ['fleet', 'compose'],
};

// Every relative specifier a module names, erased type imports too: a type import still couples layers.
const allRelative =
  /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"](\.[^'"]+)['"]|(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** `file: target` for each import of a module under `layer` into a folder the layer may not import. */
const crossings = (files: readonly string[], read: (f: string) => string, layer: string): string[] =>
  files
    .filter((f) => relative(src, f).split('/')[0] === layer)
    .flatMap((f) =>
      [...read(f).matchAll(allRelative)]
        .map((m) => relative(src, resolve(dirname(f), (m[1] ?? m[2] ?? m[3])!)))
        .filter((t) => layersBelow[layer]!.includes(t.split('/')[0]!))
        .map((t) => `${relative(src, f)}: ${t}`),
    );

const sourceModules = (): string[] =>
  readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));

describe('layers of src/ import downwards only', () => {
  it('finds an import, a type import or a re-export into a folder above, and not one below', () => {
    const text: Record<string, string> = {
      [join(src, 'runs', 'a.ts')]:
        "import { b } from '../store/b.ts';\nimport type {\n  C,\n} from '../orchestrator/c.ts';\nexport { d } from '../fleet/d.ts';\n",
    };
    expect(crossings(Object.keys(text), (f) => text[f]!, 'runs')).toEqual([
      'runs/a.ts: orchestrator/c.ts',
      'runs/a.ts: fleet/d.ts',
    ]);
  });

  it('keeps each layer off the folders above it', () => {
    const files = sourceModules();
    for (const layer of Object.keys(layersBelow)) {
      expect(files.some((f) => relative(src, f).startsWith(`${layer}/`))).toBe(true);
      expect(crossings(files, (f) => readFileSync(f, 'utf8'), layer)).toEqual([]);
    }
  });
});
