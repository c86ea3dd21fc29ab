// The planner's classification as it was written before the integer-indexed pass: string keys,
// Maps and sorts only, no ids. Kept as the oracle the indexed buildGraph/classify are held to
// (src/plan/indexed.property.test.ts); slow on purpose, never used by shipped code.
import type { Classification, ClassifyOptions, UnknownBlocker } from '../../src/plan/classify.ts';
import { untrustedReason } from '../../src/plan/classify.ts';
import { isEpic } from '../../src/plan/epics.ts';
import { compareKeys } from '../../src/plan/graph.ts';
import { holdReason } from '../../src/plan/holds.ts';
import type { ExternalBlocker, IssueKey, PlanIssue } from '../../src/plan/types.ts';
import { hasLabel, keyOf, planLabels } from '../../src/plan/types.ts';

export interface ReferenceGraph {
  issues: Map<IssueKey, PlanIssue>;
  external: Map<IssueKey, ExternalBlocker>;
  blockers: Map<IssueKey, IssueKey[]>;
  subIssues: Map<IssueKey, IssueKey[]>;
  keys: IssueKey[];
}

const uniqueSorted = (xs: readonly IssueKey[]): IssueKey[] => [...new Set(xs)].sort(compareKeys);

const pushTo = (m: Map<IssueKey, IssueKey[]>, k: IssueKey, v: IssueKey): void => {
  const xs = m.get(k);
  if (xs) xs.push(v);
  else m.set(k, [v]);
};

export const referenceGraph = (
  list: readonly PlanIssue[],
  externalList: readonly ExternalBlocker[] = [],
): ReferenceGraph => {
  const issues = new Map<IssueKey, PlanIssue>();
  for (const i of list) issues.set(keyOf(i), i);
  const keys = [...issues.keys()].sort(compareKeys);
  const external = new Map<IssueKey, ExternalBlocker>();
  for (const b of externalList) if (!issues.has(b.key)) external.set(b.key, b);
  const blockers = new Map<IssueKey, IssueKey[]>();
  const subs = new Map<IssueKey, IssueKey[]>();
  for (const k of keys) {
    const issue = issues.get(k)!;
    blockers.set(k, uniqueSorted(issue.blockedBy));
    for (const c of issue.children) pushTo(subs, k, c);
    if (issue.parent !== undefined) pushTo(subs, issue.parent, k);
  }
  const subIssues = new Map([...subs].map(([k, xs]) => [k, uniqueSorted(xs)]));
  return { issues, external, blockers, subIssues, keys };
};

const stateOf = (g: ReferenceGraph, k: IssueKey): 'open' | 'closed' | 'unknown' =>
  g.issues.get(k)?.state ?? g.external.get(k)?.state ?? 'unknown';

/** Cycles by the definition: two issues are in one cycle when each reaches the other (or one blocks itself). */
const referenceCycles = (g: ReferenceGraph, open: IssueKey[]): IssueKey[][] => {
  const isOpen = new Set(open);
  const reach = (from: IssueKey): Set<IssueKey> => {
    const seen = new Set<IssueKey>();
    const todo = [from];
    while (todo.length > 0)
      for (const b of g.blockers.get(todo.pop()!) ?? [])
        if (isOpen.has(b) && !seen.has(b)) {
          seen.add(b);
          todo.push(b);
        }
    return seen;
  };
  const reaches = new Map(open.map((k) => [k, reach(k)]));
  const cycles: IssueKey[][] = [];
  const placed = new Set<IssueKey>();
  for (const k of open) {
    if (placed.has(k) || !reaches.get(k)!.has(k)) continue;
    const members = open.filter((m) => m === k || (reaches.get(k)!.has(m) && reaches.get(m)!.has(k)));
    for (const m of members) placed.add(m);
    cycles.push(members);
  }
  return cycles;
};

export interface ReferenceClassified {
  byKey: [IssueKey, Classification][];
  cycles: IssueKey[][];
  unknownBlockers: UnknownBlocker[];
}

export const referenceClassify = (g: ReferenceGraph, opts: ClassifyOptions = {}): ReferenceClassified => {
  const gateKind = opts.gate ?? 'execution';
  const open = g.keys.filter((k) => g.issues.get(k)!.state === 'open');
  const cycles = referenceCycles(g, open);
  const unknownNamers = new Map<IssueKey, IssueKey[]>();
  const one = (k: IssueKey): Classification => {
    const issue = g.issues.get(k)!;
    if (issue.state === 'closed' || opts.done?.has(k)) return { category: 'done' };
    if (gateKind === 'planning' && hasLabel(issue, planLabels.planApproved)) return { category: 'done' };
    const blockers = g.blockers.get(k)!;
    for (const b of blockers) if (stateOf(g, b) === 'unknown') pushTo(unknownNamers, b, k);
    if (isEpic(issue, g.subIssues.get(k)?.length ?? 0)) {
      const children = [...new Set([...blockers, ...(g.subIssues.get(k) ?? [])])];
      return {
        category: 'epic',
        closable: children.length > 0 && children.every((c) => stateOf(g, c) === 'closed'),
        openChildren: children.filter((c) => stateOf(g, c) !== 'closed').sort(compareKeys),
      };
    }
    if (opts.running?.has(k)) return { category: 'running' };
    const hold = holdReason(issue);
    if (hold !== undefined) return { category: 'held', kind: 'label', reason: hold };
    if (!issue.authorTrusted && !hasLabel(issue, planLabels.approved))
      return { category: 'held', kind: 'untrusted', reason: untrustedReason };
    const runHold = opts.runHolds?.get(k);
    if (runHold) return { category: 'held', kind: runHold.kind, reason: runHold.reason };
    const cycle = cycles.find((c) => c.includes(k));
    if (cycle) return { category: 'cycle', members: cycle };
    const satisfied = (b: IssueKey): boolean =>
      gateKind === 'planning' && hasLabel(g.issues.get(b) ?? { labels: [] }, planLabels.planApproved);
    const waitingOn = blockers.filter((b) => stateOf(g, b) === 'open' && !satisfied(b));
    const unknown = blockers.filter((b) => stateOf(g, b) === 'unknown');
    if (waitingOn.length > 0 || unknown.length > 0) return { category: 'blocked', waitingOn, unknown };
    return { category: 'ready' };
  };
  const byKey = g.keys.map((k): [IssueKey, Classification] => [k, one(k)]);
  const unknownBlockers = [...unknownNamers]
    .map(([key, namedBy]) => ({ key, namedBy }))
    .sort((a, b) => compareKeys(a.key, b.key));
  return { byKey, cycles, unknownBlockers };
};
