// Fences: the files and folders an issue's body names, and what to do when two issues that might
// run at once name overlapping ones.
//
// The rule: two issues that both name the same FILE are not run together (the later one in wave
// order waits): they would edit the same lines and the merge conflict is certain. Issues whose
// paths only overlap through a folder (one names `src/plan/`, the other `src/plan/graph.ts`, or both
// name the same folder) run together, and each prompt fences the overlapping paths off ("do not
// touch X: issue #M owns it"). Disjoint issues run together with nothing to fence.

const backticked = /`([^`\n]+)`/g;
const bare = /(?<![\w/.`-])((?:\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)+\/?)(?![\w`#])/g;
const fileExt = /\.[A-Za-z0-9]{1,8}$/;

const normalise = (p: string): string | undefined => {
  let s = p.trim().replace(/[),.:;]+$/, '');
  if (s.includes('://') || s.includes('#') || /\s/.test(s) || s.includes('..')) return undefined;
  s = s.replace(/^\.\//, '');
  if (s.startsWith('/') || s === '' || s === '.') return undefined;
  return s;
};

const looksLikePath = (s: string): boolean => s.includes('/') || fileExt.test(s);

/** Paths named in a body, sorted and deduplicated; folders keep a trailing `/`. */
export const extractFences = (body: string): string[] => {
  const found = new Set<string>();
  const add = (raw: string): void => {
    const p = normalise(raw);
    if (p === undefined || !looksLikePath(p)) return;
    const lastSegment = p.replace(/\/$/, '').split('/').pop() ?? '';
    found.add(p.endsWith('/') || fileExt.test(lastSegment) ? p : `${p}/`);
  };
  for (const m of body.matchAll(backticked)) add(m[1]!);
  const withoutCode = body.replace(backticked, ' ');
  for (const m of withoutCode.matchAll(bare)) add(m[1]!);
  return [...found].sort();
};

const isFolder = (p: string): boolean => p.endsWith('/');

export type FenceDecision = { together: false; shared: string[] } | { together: true; fenceOff: string[] };

/** Whether two issues with fences `a` and `b` may run at once, and what to fence off if so. */
export const fenceDecision = (a: readonly string[], b: readonly string[]): FenceDecision => {
  const setB = new Set(b);
  const shared = a.filter((p) => !isFolder(p) && setB.has(p));
  if (shared.length > 0) return { together: false, shared };
  const overlap = new Set<string>();
  for (const x of a)
    for (const y of b) {
      if (x === y) overlap.add(x);
      else if (isFolder(x) && y.startsWith(x)) overlap.add(y);
      else if (isFolder(y) && x.startsWith(y)) overlap.add(x);
    }
  return { together: true, fenceOff: [...overlap].sort() };
};
