// Classification: every issue of the milestone lands in exactly one category, and `explain` says
// in words why an issue is not ready. Untrusted issues (author without write permission, no label
// `blitz/approved`) are a kind of `held`, so the seven categories still partition the issues.
import type { Cycle } from './cycles.ts';
import { findCyclesById } from './cycles.ts';
import { epicChildren, epicClosable, isEpic } from './epics.ts';
import type { GateKind } from './gates.ts';
import { gateFor } from './gates.ts';
import type { PlanGraph } from './graph.ts';
import { compareKeys, stateOf } from './graph.ts';
import { holdReason } from './holds.ts';
import type { KeyIds } from './key-ids.ts';
import { KeyedView } from './keyed-view.ts';
import type { IssueKey } from './types.ts';
import { hasLabel, planLabels } from './types.ts';

export const categories = ['ready', 'blocked', 'cycle', 'held', 'epic', 'running', 'done'] as const;
export type Category = (typeof categories)[number];

/**
 * label: a person's `hold`; untrusted: author lacks write access; stalled / gave_up: from the run;
 * capped: its per-issue cap is spent (plan/issue-caps.ts); triage: a fleet ticket that is not
 * self-contained (seed 004).
 */
export type HoldKind = 'label' | 'untrusted' | 'stalled' | 'gave_up' | 'capped' | 'triage';
export type RunHoldKind = Exclude<HoldKind, 'label' | 'untrusted'>;

export type Classification =
  | { category: 'ready' }
  | { category: 'blocked'; waitingOn: IssueKey[]; unknown: IssueKey[] }
  | { category: 'cycle'; members: IssueKey[] }
  | { category: 'held'; kind: HoldKind; reason: string }
  | { category: 'epic'; closable: boolean; openChildren: IssueKey[] }
  | { category: 'running' }
  | { category: 'done' };

export interface ClassifyOptions {
  /** Issues a worker is on right now (dispatched … reviewed). */
  running?: ReadonlySet<IssueKey>;
  /** Open issues whose work is integrated and only wait to be closed. */
  done?: ReadonlySet<IssueKey>;
  /** Holds the run decided (stalled, gave up), with the sentence to show. */
  runHolds?: ReadonlyMap<IssueKey, { kind: RunHoldKind; reason: string }>;
  /** Which gate decides readiness: execution (blitz, fleet) or planning (plan-blitz). */
  gate?: GateKind;
}

export interface UnknownBlocker {
  key: IssueKey;
  /** The open issues that name it. */
  namedBy: IssueKey[];
}

export interface Classified {
  /** Every issue's verdict, iterated in key order. */
  byKey: ReadonlyMap<IssueKey, Classification>;
  cycles: Cycle[];
  unknownBlockers: UnknownBlocker[];
  counts: Record<Category, number>;
}

export const untrustedReason =
  'its author does not have write permission; someone with write permission must add (or re-add) the label `blitz/approved`';

// The verdicts without details, shared by every issue they describe (never mutated).
const done: Classification = { category: 'done' };
const ready: Classification = { category: 'ready' };
const running: Classification = { category: 'running' };

/** What classify works from: the graph on ids, which issues are open, and each cycle by its members. */
interface Pass {
  g: PlanGraph;
  opts: ClassifyOptions;
  planning: boolean;
  open: Uint8Array;
  /** Index into `cycles` of the cycle an issue is in, -1 when none. */
  cycleOf: Int32Array;
  cycles: Cycle[];
  unknownNamers: Map<IssueKey, IssueKey[]>;
}

/** Blockers of an issue that names one outside the graph: by key, as the forge gave them. */
const outsideBlockers = (p: Pass, k: IssueKey): { allClosed: boolean } => {
  let allClosed = true;
  for (const b of p.g.blockers.get(k) ?? []) {
    const state = stateOf(p.g, b);
    if (state === 'closed') continue;
    allClosed = false;
    if (state !== 'unknown') continue;
    const xs = p.unknownNamers.get(b);
    if (xs) xs.push(k);
    else p.unknownNamers.set(b, [k]);
  }
  return { allClosed };
};

/** `v`'s verdict; undefined for `blocked` by issues of the graph only (see blockedInGraph). */
const classifyOne = (p: Pass, v: number): Classification | undefined => {
  const { g, opts } = p;
  const { list, start, to, outside } = g.index;
  const issue = list[v]!;
  const k = g.keys[v]!;
  if (issue.state === 'closed' || opts.done?.has(k)) return done;
  if (p.planning && hasLabel(issue, planLabels.planApproved)) return done;
  // Each blocker's state is read once here; when all are closed, both gates are open without asking.
  let allClosed = true;
  if (outside[v]) allClosed = outsideBlockers(p, k).allClosed;
  else for (let e = start[v]!; e < start[v + 1]! && allClosed; e++) allClosed = p.open[to[e]!] === 0;
  const subs = g.subIssues.size === 0 ? undefined : g.subIssues.get(k);
  if (isEpic(issue, subs?.length ?? 0)) {
    const openChildren = epicChildren(g, k)
      .filter((ch) => stateOf(g, ch) !== 'closed')
      .sort(compareKeys);
    return { category: 'epic', closable: epicClosable(g, k), openChildren };
  }
  if (opts.running?.has(k)) return running;
  const hold = holdReason(issue);
  if (hold !== undefined) return { category: 'held', kind: 'label', reason: hold };
  if (!issue.authorTrusted && !hasLabel(issue, planLabels.approved))
    return { category: 'held', kind: 'untrusted', reason: untrustedReason };
  const runHold = opts.runHolds?.get(k);
  if (runHold) return { category: 'held', kind: runHold.kind, reason: runHold.reason };
  const c = p.cycleOf[v]!;
  if (c >= 0) return { category: 'cycle', members: p.cycles[c]!.members };
  if (allClosed) return ready;
  if (outside[v]) {
    const gate = gateFor(opts.gate ?? 'execution', g, k);
    return gate.open ? ready : { category: 'blocked', waitingOn: gate.waitingOn, unknown: gate.unknown };
  }
  // Every blocker is an issue of the graph: the gate on ids, as gates.ts says it by key. Whether
  // anything waits is decided now; the verdict with its list is made when someone reads it.
  for (let e = start[v]!; e < start[v + 1]!; e++) if (waits(p, to[e]!)) return undefined;
  return ready;
};

/** Blocker `w` (an issue of the graph) keeps the gate shut. */
const waits = (p: Pass, w: number): boolean =>
  p.open[w] === 1 && !(p.planning && hasLabel(p.g.index.list[w]!, planLabels.planApproved));

/** The `blocked` verdict of `v`, all of whose blockers are issues of the graph. */
const blockedInGraph = (p: Pass, v: number): Classification => {
  const { start, to } = p.g.index;
  const waitingOn: IssueKey[] = [];
  for (let e = start[v]!; e < start[v + 1]!; e++) if (waits(p, to[e]!)) waitingOn.push(p.g.keys[to[e]!]!);
  return { category: 'blocked', waitingOn, unknown: [] };
};

/** A category's index in `categories`, without searching the list. */
const codeOf = (c: Category): number => {
  switch (c) {
    case 'ready':
      return 0;
    case 'blocked':
      return 1;
    case 'cycle':
      return 2;
    case 'held':
      return 3;
    case 'epic':
      return 4;
    case 'running':
      return 5;
    case 'done':
      return 6;
  }
};
const blockedCode = codeOf('blocked');

/** Verdicts by key; the category of each is known without making its verdict. */
class Verdicts extends KeyedView<Classification> {
  constructor(
    private readonly order: readonly IssueKey[],
    ids: KeyIds,
    verdicts: (Classification | undefined)[],
    make: (v: number) => Classification,
    private readonly categoryOf: Uint8Array,
  ) {
    super(order, ids, verdicts, make);
  }

  keysIn(category: Category): IssueKey[] {
    const code = codeOf(category);
    const out: IssueKey[] = [];
    for (let v = 0; v < this.categoryOf.length; v++)
      if (this.categoryOf[v] === code) out.push(this.order[v]!);
    return out;
  }
}

export const classify = (g: PlanGraph, opts: ClassifyOptions = {}): Classified => {
  const { ids, list, start, to } = g.index;
  const n = list.length;
  const open = new Uint8Array(n);
  for (let v = 0; v < n; v++) if (list[v]!.state === 'open') open[v] = 1;
  const cycleOf = new Int32Array(n).fill(-1);
  const cycles = findCyclesById(open, start, to).map((members, c): Cycle => {
    for (const v of members) cycleOf[v] = c;
    return { members: members.map((v) => g.keys[v]!) };
  });
  const pass: Pass = {
    g,
    opts,
    planning: opts.gate === 'planning',
    open,
    cycleOf,
    cycles,
    unknownNamers: new Map(),
  };
  const verdicts: (Classification | undefined)[] = [];
  const categoryOf = new Uint8Array(n);
  const tally = new Int32Array(categories.length);
  for (let v = 0; v < n; v++) {
    const c = classifyOne(pass, v);
    verdicts.push(c);
    const code = c === undefined ? blockedCode : codeOf(c.category);
    categoryOf[v] = code;
    tally[code]!++;
  }
  const counts = Object.fromEntries(categories.map((c, i) => [c, tally[i]!])) as Record<Category, number>;
  const unknownBlockers = [...pass.unknownNamers]
    .map(([key, namedBy]) => ({ key, namedBy }))
    .sort((a, b) => compareKeys(a.key, b.key));
  const byKey = new Verdicts(g.keys, ids, verdicts, (v) => blockedInGraph(pass, v), categoryOf);
  return { byKey, cycles, unknownBlockers, counts };
};

export const keysIn = (c: Classified, category: Category): IssueKey[] => {
  if (c.byKey instanceof Verdicts) return c.byKey.keysIn(category);
  const out: IssueKey[] = [];
  c.byKey.forEach((v, k) => {
    if (v.category === category) out.push(k);
  });
  return out;
};

const list = (xs: readonly IssueKey[]): string => xs.join(', ');

/** One sentence saying why `k` is (not) ready. */
export const explain = (c: Classified, k: IssueKey): string => {
  const x = c.byKey.get(k);
  if (!x) return `${k} is not an issue of this milestone.`;
  switch (x.category) {
    case 'ready':
      return `${k} is ready: every blocker is closed.`;
    case 'done':
      return `${k} is done.`;
    case 'running':
      return `${k} is not ready because a worker is already on it.`;
    case 'epic':
      if (x.closable)
        return `${k} is an epic and is never dispatched; all its children are closed, so it can close.`;
      if (x.openChildren.length === 0)
        return `${k} is an epic and is never dispatched; it has no children, so it is not closed automatically.`;
      return `${k} is an epic and is never dispatched; it closes when ${list(x.openChildren)} are closed.`;
    case 'held':
      return `${k} is held: ${x.reason}.`;
    case 'cycle':
      return `${k} is not ready because it is in a dependency cycle with ${list(x.members.filter((m) => m !== k)) || 'itself'}.`;
    case 'blocked': {
      const parts: string[] = [];
      if (x.waitingOn.length > 0) parts.push(`it is blocked by open ${list(x.waitingOn)}`);
      if (x.unknown.length > 0) parts.push(`its blocker ${list(x.unknown)} cannot be found or read`);
      return `${k} is not ready because ${parts.join(' and ')}.`;
    }
  }
};
