// Classification: every issue of the milestone lands in exactly one category, and `explain` says
// in words why an issue is not ready. Untrusted issues (author without write permission, no label
// `blitz/approved`) are a kind of `held`, so the seven categories still partition the issues.
import type { Cycle } from './cycles.ts';
import { findCycles } from './cycles.ts';
import { epicChildren, epicClosable, isEpic } from './epics.ts';
import type { GateKind } from './gates.ts';
import { gateFor } from './gates.ts';
import type { PlanGraph } from './graph.ts';
import { compareKeys, stateOf } from './graph.ts';
import { holdReason } from './holds.ts';
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
  byKey: Map<IssueKey, Classification>;
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

const classifyOne = (
  g: PlanGraph,
  k: IssueKey,
  opts: ClassifyOptions,
  cycleOf: ReadonlyMap<IssueKey, IssueKey[]>,
  unknownNamers: Map<IssueKey, IssueKey[]>,
): Classification => {
  const issue = g.issues.get(k)!;
  const gateKind = opts.gate ?? 'execution';
  if (issue.state === 'closed' || opts.done?.has(k)) return done;
  if (gateKind === 'planning' && hasLabel(issue, planLabels.planApproved)) return done;
  // Each blocker's state is read once here; when all are closed, both gates are open without asking.
  let allClosed = true;
  for (const b of g.blockers.get(k) ?? []) {
    const state = stateOf(g, b);
    if (state === 'closed') continue;
    allClosed = false;
    if (state !== 'unknown') continue;
    const xs = unknownNamers.get(b);
    if (xs) xs.push(k);
    else unknownNamers.set(b, [k]);
  }
  if (isEpic(issue, g.subIssues.get(k)?.length ?? 0)) {
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
  const members = cycleOf.get(k);
  if (members) return { category: 'cycle', members };
  if (allClosed) return ready;
  const gate = gateFor(gateKind, g, k);
  if (!gate.open) return { category: 'blocked', waitingOn: gate.waitingOn, unknown: gate.unknown };
  return ready;
};

export const classify = (g: PlanGraph, opts: ClassifyOptions = {}): Classified => {
  const open = g.keys.filter((k) => g.issues.get(k)!.state === 'open');
  // g.keys is sorted and unique, and so is its filter: findCycles need not check it again.
  const cycles = findCycles(open, (k) => g.blockers.get(k) ?? [], true);
  const cycleOf = new Map<IssueKey, IssueKey[]>();
  for (const c of cycles) for (const m of c.members) cycleOf.set(m, c.members);

  const byKey = new Map<IssueKey, Classification>();
  const counts = Object.fromEntries(categories.map((c) => [c, 0])) as Record<Category, number>;
  const unknownNamers = new Map<IssueKey, IssueKey[]>();
  for (const k of g.keys) {
    const c = classifyOne(g, k, opts, cycleOf, unknownNamers);
    byKey.set(k, c);
    counts[c.category]++;
  }
  const unknownBlockers = [...unknownNamers]
    .map(([key, namedBy]) => ({ key, namedBy }))
    .sort((a, b) => compareKeys(a.key, b.key));
  return { byKey, cycles, unknownBlockers, counts };
};

export const keysIn = (c: Classified, category: Category): IssueKey[] =>
  [...c.byKey].filter(([, v]) => v.category === category).map(([k]) => k);

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
