// The dependency graph of a milestone: nodes keyed `owner/repo#n`, blocked-by edges in both
// directions, sub-issue links, and the state of every blocker that is not itself in the list.

import { KeyIds } from './key-ids.ts';
import { KeyedView } from './keyed-view.ts';
import type { ExternalBlocker, IssueKey, PlanIssue } from './types.ts';
import { keyOf } from './types.ts';

export interface PlanGraph {
  /** Issues of the milestone (open and closed), by key, iterated in key order. */
  issues: ReadonlyMap<IssueKey, PlanIssue>;
  /** Blockers named but not in `issues`, as far as the forge could read them. */
  external: Map<IssueKey, ExternalBlocker>;
  /** key → keys it is blocked by (deduplicated, sorted). */
  blockers: ReadonlyMap<IssueKey, readonly IssueKey[]>;
  /** key → sub-issue keys, from both the child list and the children's `parent`. */
  subIssues: Map<IssueKey, readonly IssueKey[]>;
  /** Every issue key, sorted: the one iteration order everything downstream uses. */
  keys: IssueKey[];
  /** The same graph on integer ids, for the passes that walk all of it (classify, cycles). */
  index: GraphIndex;
}

/**
 * An issue's id is its position in `keys`, so ids compare as their keys do. Blocked-by edges
 * between issues of the graph are stored CSR-style: the blockers of `v` are
 * `to[start[v]] … to[start[v + 1] - 1]`, ascending and unique.
 */
export interface GraphIndex {
  ids: KeyIds;
  /** Issues by id. */
  list: readonly PlanIssue[];
  start: Int32Array;
  to: Int32Array;
  /** 1 where the issue names a blocker that is not an issue of the graph (external or unknown). */
  outside: Uint8Array;
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

/** Sorts `to[from … end)` ascending and drops repeats; returns the new end. */
const sortUniqueIds = (to: Int32Array, from: number, end: number): number => {
  if (end - from > 32) to.subarray(from, end).sort();
  else
    for (let i = from + 1; i < end; i++) {
      const x = to[i]!;
      let j = i - 1;
      while (j >= from && to[j]! > x) {
        to[j + 1] = to[j]!;
        j--;
      }
      to[j + 1] = x;
    }
  let out = from;
  for (let i = from; i < end; i++) if (i === from || to[i] !== to[out - 1]) to[out++] = to[i]!;
  return out;
};

/** Builds the graph; when an issue appears twice the later copy wins (the orchestrator dedupes). */
export const buildGraph = (
  issueList: readonly PlanIssue[],
  externalList: readonly ExternalBlocker[] = [],
): PlanGraph => {
  // Intern every key once, in list order; a later copy of an issue takes the earlier one's id.
  const ids = new KeyIds(issueList);
  let keys: IssueKey[] = [];
  let list: PlanIssue[] = [];
  for (const issue of issueList) {
    const k = keyOf(issue);
    const at = ids.claim(issue, k, keys.length);
    if (at < keys.length) list[at] = issue;
    else {
      keys.push(k);
      list.push(issue);
    }
  }
  // Ids must follow key order; a list that arrives in that order (the usual case) keeps its ids.
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i++)
    ordered = compareIssues(list[i - 1]!, list[i]!, keys[i - 1]!, keys[i]!) < 0;
  if (!ordered) {
    const order = keys.map((_, i) => i).sort((a, b) => compareIssues(list[a]!, list[b]!, keys[a]!, keys[b]!));
    keys = order.map((i) => keys[i]!);
    list = order.map((i) => list[i]!);
    for (let i = 0; i < keys.length; i++) ids.move(list[i]!, keys[i]!, i);
  }
  const n = keys.length;

  const external = new Map<IssueKey, ExternalBlocker>();
  for (const b of externalList) if (!ids.has(b.key)) external.set(b.key, b);

  let edges = 0;
  for (const issue of list) edges += issue.blockedBy.length;
  const start = new Int32Array(n + 1);
  const to = new Int32Array(edges);
  const outside = new Uint8Array(n);
  // undefined: the sorted keys are read off `to` when someone asks (most passes never do).
  const blockerLists: (readonly IssueKey[] | undefined)[] = [];
  const subs = new Map<IssueKey, IssueKey[]>();
  let e = 0;
  for (let v = 0; v < n; v++) {
    const issue = list[v]!;
    const named = issue.blockedBy;
    start[v] = e;
    let prev = -1;
    let increasing = true;
    for (const b of named) {
      const w = ids.idIn(b, issue.repo);
      if (w === -1) {
        outside[v] = 1;
        continue;
      }
      if (w <= prev) increasing = false;
      prev = w;
      to[e++] = w;
    }
    if (!increasing) e = sortUniqueIds(to, start[v]!, e);
    if (outside[v]) blockerLists.push(uniqueSorted(named));
    // Ids ascending and unique is compareKeys order without repeats: the list is kept as it is.
    else blockerLists.push(increasing ? named : undefined);
    for (const c of issue.children) pushTo(subs, keys[v]!, c);
    if (issue.parent !== undefined) pushTo(subs, issue.parent, keys[v]!);
  }
  start[n] = e;
  const subIssues = new Map<IssueKey, readonly IssueKey[]>();
  for (const [k, xs] of subs) subIssues.set(k, uniqueSorted(xs));
  return {
    issues: new KeyedView(keys, ids, list),
    external,
    blockers: new KeyedView(keys, ids, blockerLists, (v): readonly IssueKey[] => {
      const sorted: IssueKey[] = [];
      for (let i = start[v]!; i < start[v + 1]!; i++) sorted.push(keys[to[i]!]!);
      return sorted;
    }),
    subIssues,
    keys,
    index: { ids, list, start, to, outside },
  };
};

/** State of any key as the graph knows it: `unknown` when neither listed nor readable. */
export const stateOf = (g: PlanGraph, k: IssueKey): 'open' | 'closed' | 'unknown' =>
  g.issues.get(k)?.state ?? g.external.get(k)?.state ?? 'unknown';
