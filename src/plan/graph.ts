// The dependency graph of a milestone: nodes keyed `owner/repo#n`, blocked-by edges in both
// directions, sub-issue links, and the state of every blocker that is not itself in the list.
import type { ExternalBlocker, IssueKey, PlanIssue } from './types.ts';
import { keyOf } from './types.ts';

export interface PlanGraph {
  /** Issues of the milestone (open and closed), by key. */
  issues: Map<IssueKey, PlanIssue>;
  /** Blockers named but not in `issues`, as far as the forge could read them. */
  external: Map<IssueKey, ExternalBlocker>;
  /** key → keys it is blocked by (deduplicated, sorted). */
  blockers: Map<IssueKey, readonly IssueKey[]>;
  /** key → sub-issue keys, from both the child list and the children's `parent`. */
  subIssues: Map<IssueKey, readonly IssueKey[]>;
  /** Every issue key, sorted: the one iteration order everything downstream uses. */
  keys: IssueKey[];
}

/**
 * Orders keys by repo, then by number as a number: `a/b#2` before `a/b#10`. Written without
 * slicing because it runs inside every sort of a 10,000-issue milestone; numbers compare by digit
 * count first, which is numeric order for keys made by issueKey (no leading zeros).
 */
export const compareKeys = (a: IssueKey, b: IssueKey): number => {
  const ia = a.lastIndexOf('#');
  const ib = b.lastIndexOf('#');
  const m = Math.min(ia, ib);
  for (let i = 0; i < m; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d;
  }
  if (ia !== ib) return ia - ib;
  const digits = a.length - ia - (b.length - ib);
  if (digits !== 0) return digits;
  return a < b ? -1 : a > b ? 1 : 0;
};

const pushTo = (m: Map<IssueKey, IssueKey[]>, k: IssueKey, v: IssueKey): void => {
  const xs = m.get(k);
  if (xs) xs.push(v);
  else m.set(k, [v]);
};

/**
 * Inputs are never mutated, so a list that is already sorted and unique is returned as it is; a short
 * one (the usual blocker list) is insertion-sorted into a new array, dropping repeats as it goes.
 */
const uniqueSorted = (xs: readonly IssueKey[]): readonly IssueKey[] => {
  let ordered = true;
  for (let i = 1; i < xs.length && ordered; i++) ordered = compareKeys(xs[i - 1]!, xs[i]!) < 0;
  if (ordered) return xs;
  if (xs.length > 32) {
    const sorted = [...xs].sort(compareKeys);
    return sorted.filter((x, i) => i === 0 || x !== sorted[i - 1]);
  }
  const out: IssueKey[] = [];
  for (const x of xs) {
    let i = out.length;
    let d = 1;
    while (i > 0) {
      d = compareKeys(out[i - 1]!, x);
      if (d <= 0) break;
      i--;
    }
    if (i > 0 && d === 0) continue;
    out.splice(i, 0, x);
  }
  return out;
};

const plainNumber = (n: number): boolean => Number.isSafeInteger(n) && n > 0;

/**
 * compareKeys on the issues' keys, without reading the keys when both are in one repository (the
 * usual case): then the numbers decide, as they do in compareKeys for keys made by issueKey.
 */
const compareIssues = (a: PlanIssue, b: PlanIssue, ka: IssueKey, kb: IssueKey): number =>
  a.repo === b.repo && plainNumber(a.number) && plainNumber(b.number)
    ? a.number - b.number
    : compareKeys(ka, kb);

/** The keys of `issues` in compareKeys order; a list that arrives in that order is not sorted again. */
const sortedKeys = (issues: Map<IssueKey, PlanIssue>): IssueKey[] => {
  const keys = [...issues.keys()];
  let prev: PlanIssue | undefined;
  let ordered = true;
  for (let i = 0; i < keys.length && ordered; i++) {
    const cur = issues.get(keys[i]!)!;
    if (prev !== undefined) ordered = compareIssues(prev, cur, keys[i - 1]!, keys[i]!) < 0;
    prev = cur;
  }
  if (ordered) return keys;
  return keys.sort((ka, kb) => compareIssues(issues.get(ka)!, issues.get(kb)!, ka, kb));
};

/** Builds the graph; when an issue appears twice the later copy wins (the orchestrator dedupes). */
export const buildGraph = (
  issueList: readonly PlanIssue[],
  externalList: readonly ExternalBlocker[] = [],
): PlanGraph => {
  const issues = new Map<IssueKey, PlanIssue>();
  for (const issue of issueList) issues.set(keyOf(issue), issue);
  const keys = sortedKeys(issues);

  const external = new Map<IssueKey, ExternalBlocker>();
  for (const b of externalList) if (!issues.has(b.key)) external.set(b.key, b);

  const blockers = new Map<IssueKey, readonly IssueKey[]>();
  const subs = new Map<IssueKey, IssueKey[]>();
  for (const k of keys) {
    const issue = issues.get(k)!;
    blockers.set(k, uniqueSorted(issue.blockedBy));
    for (const c of issue.children) pushTo(subs, k, c);
    if (issue.parent !== undefined) pushTo(subs, issue.parent, k);
  }
  const subIssues = new Map<IssueKey, readonly IssueKey[]>();
  for (const [k, xs] of subs) subIssues.set(k, uniqueSorted(xs));
  return { issues, external, blockers, subIssues, keys };
};

/** State of any key as the graph knows it: `unknown` when neither listed nor readable. */
export const stateOf = (g: PlanGraph, k: IssueKey): 'open' | 'closed' | 'unknown' =>
  g.issues.get(k)?.state ?? g.external.get(k)?.state ?? 'unknown';

/** key → the issues of the list it blocks, sorted: computed on demand, most callers never need it. */
export const dependentsOf = (g: PlanGraph): Map<IssueKey, IssueKey[]> => {
  const out = new Map<IssueKey, IssueKey[]>();
  for (const k of g.keys) for (const b of g.blockers.get(k)!) if (g.issues.has(b)) pushTo(out, b, k);
  return out;
};
