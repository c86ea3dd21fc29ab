// PlanIndex: the classification kept up to date under small changes (an issue closing, a blocked-by
// edge added or removed) without rebuilding everything. Built once from the same inputs as
// classify(); after any sequence of changes it agrees with classify() run from scratch on the
// changed inputs (a property test holds it to that). Cycles are recomputed only where they can
// change: inside the cycle an edge was removed from, or along the paths a new edge closes.
import { AppError } from '../errors.ts';
import type { Category, ClassifyOptions } from './classify.ts';
import type { Cycle } from './cycles.ts';
import { findCycles } from './cycles.ts';
import { isEpic } from './epics.ts';
import { compareKeys } from './graph.ts';
import { holdReason } from './holds.ts';
import type { ExternalBlocker, IssueKey, PlanIssue } from './types.ts';
import { hasLabel, keyOf, planLabels } from './types.ts';

export interface CategoryChange {
  key: IssueKey;
  from: Category;
  to: Category;
}

type Fixed = 'done' | 'epic' | 'running' | 'held' | undefined;

export class PlanIndex {
  private readonly state = new Map<IssueKey, 'open' | 'closed' | 'unknown'>();
  private readonly isIssue = new Set<IssueKey>();
  private readonly blockers = new Map<IssueKey, Set<IssueKey>>();
  private readonly dependents = new Map<IssueKey, Set<IssueKey>>();
  private readonly unresolved = new Map<IssueKey, number>();
  /** Categories that edges cannot change (done, epic, running, held). */
  private readonly fixed = new Map<IssueKey, Fixed>();
  private readonly cycleOf = new Map<IssueKey, Set<IssueKey>>();
  private readonly category = new Map<IssueKey, Category>();
  private readonly opts: ClassifyOptions;

  constructor(
    issues: readonly PlanIssue[],
    external: readonly ExternalBlocker[] = [],
    opts: ClassifyOptions = {},
  ) {
    if (opts.gate === 'planning')
      throw new AppError(
        'bad_request',
        'PlanIndex follows the execution gate only; use classify() for plan-blitz.',
      );
    this.opts = opts;
    for (const b of external) this.state.set(b.key, b.state);
    const subCount = new Map<IssueKey, number>();
    const bump = (k: IssueKey, by = 1): void => void subCount.set(k, (subCount.get(k) ?? 0) + by);
    for (const i of issues) {
      const k = keyOf(i);
      this.isIssue.add(k);
      this.state.set(k, i.state);
      bump(k, new Set(i.children).size);
    }
    // A parent link counts as a sub-issue unless the parent already lists that child.
    const listed = new Map(issues.map((i) => [keyOf(i), new Set(i.children)]));
    for (const i of issues)
      if (i.parent !== undefined && !listed.get(i.parent)?.has(keyOf(i))) bump(i.parent);
    for (const i of issues) {
      const k = keyOf(i);
      this.fixed.set(k, this.fixedCategory(i, subCount.get(k) ?? 0));
      this.blockers.set(k, new Set());
      this.unresolved.set(k, 0);
    }
    for (const i of issues) for (const b of i.blockedBy) this.link(keyOf(i), b);
    const open = [...this.isIssue].filter((k) => this.state.get(k) === 'open');
    for (const c of findCycles(open, (k) => [...this.blockers.get(k)!])) this.setCycle(c.members);
    for (const k of this.isIssue) this.category.set(k, this.compute(k));
  }

  private fixedCategory(i: PlanIssue, subs: number): Fixed {
    const k = keyOf(i);
    if (i.state === 'closed' || this.opts.done?.has(k)) return 'done';
    if (isEpic(i, subs)) return 'epic';
    if (this.opts.running?.has(k)) return 'running';
    if (holdReason(i) !== undefined) return 'held';
    if (!i.authorTrusted && !hasLabel(i, planLabels.approved)) return 'held';
    if (this.opts.runHolds?.has(k)) return 'held';
    return undefined;
  }

  private stateOf(k: IssueKey): 'open' | 'closed' | 'unknown' {
    return this.state.get(k) ?? 'unknown';
  }

  private link(a: IssueKey, b: IssueKey): boolean {
    const bs = this.blockers.get(a)!;
    if (bs.has(b)) return false;
    bs.add(b);
    const ds = this.dependents.get(b);
    if (ds) ds.add(a);
    else this.dependents.set(b, new Set([a]));
    if (this.stateOf(b) !== 'closed') this.unresolved.set(a, this.unresolved.get(a)! + 1);
    return true;
  }

  private setCycle(members: readonly IssueKey[]): void {
    const set = new Set(members);
    for (const m of members) this.cycleOf.set(m, set);
  }

  private compute(k: IssueKey): Category {
    const f = this.fixed.get(k);
    if (f !== undefined) return f;
    if (this.cycleOf.has(k)) return 'cycle';
    return this.unresolved.get(k)! > 0 ? 'blocked' : 'ready';
  }

  private refresh(keys: Iterable<IssueKey>, changes: CategoryChange[]): CategoryChange[] {
    for (const k of keys) {
      if (!this.isIssue.has(k)) continue;
      const from = this.category.get(k)!;
      const to = this.compute(k);
      if (from === to) continue;
      this.category.set(k, to);
      changes.push({ key: k, from, to });
    }
    return changes.sort((x, y) => compareKeys(x.key, y.key));
  }

  /** Recomputes the cycles among `members` (a former cycle) after it lost a node or an edge. */
  private resplit(members: Iterable<IssueKey>): IssueKey[] {
    const open = [...members].filter((m) => this.state.get(m) === 'open');
    const touched = [...members];
    for (const m of touched) this.cycleOf.delete(m);
    for (const c of findCycles(open, (k) => [...this.blockers.get(k)!])) this.setCycle(c.members);
    return touched;
  }

  /** Nodes reachable from `from` along `next`, among open issues. */
  private reach(from: IssueKey, next: Map<IssueKey, Set<IssueKey>>): Set<IssueKey> {
    const seen = new Set<IssueKey>([from]);
    const stack = [from];
    while (stack.length > 0) {
      for (const n of next.get(stack.pop()!) ?? []) {
        if (seen.has(n) || this.state.get(n) !== 'open' || !this.isIssue.has(n)) continue;
        seen.add(n);
        stack.push(n);
      }
    }
    return seen;
  }

  /**
   * Whether a path b →* a exists among open issues (so the edge a → b closes a loop). Searches
   * forward from b and backward from a in turns and stops when either side runs out: the cost is
   * about twice the smaller of the two reaches, not the larger.
   */
  private closesLoop(a: IssueKey, b: IssueKey): boolean {
    if (a === b) return true;
    type Side = { stack: IssueKey[]; seen: Set<IssueKey>; next: Map<IssueKey, Set<IssueKey>> };
    const sides: [Side, Side] = [
      { stack: [b], seen: new Set([b]), next: this.blockers },
      { stack: [a], seen: new Set([a]), next: this.dependents },
    ];
    for (;;) {
      for (const [i, side] of sides.entries()) {
        const other = sides[1 - i]!;
        const node = side.stack.pop();
        if (node === undefined) return false;
        for (const n of side.next.get(node) ?? []) {
          if (side.seen.has(n) || this.state.get(n) !== 'open' || !this.isIssue.has(n)) continue;
          if (other.seen.has(n)) return true;
          side.seen.add(n);
          side.stack.push(n);
        }
      }
    }
  }

  /** An issue (or an external blocker) closed. */
  closeIssue(k: IssueKey): CategoryChange[] {
    const was = this.stateOf(k);
    if (was === 'closed') return [];
    this.state.set(k, 'closed');
    const touched: IssueKey[] = [k];
    if (this.isIssue.has(k)) this.fixed.set(k, 'done');
    for (const d of this.dependents.get(k) ?? []) {
      this.unresolved.set(d, this.unresolved.get(d)! - 1);
      touched.push(d);
    }
    const cycle = this.cycleOf.get(k);
    if (cycle) touched.push(...this.resplit(cycle));
    return this.refresh(touched, []);
  }

  /** `a` is now blocked by `b`. */
  addEdge(a: IssueKey, b: IssueKey): CategoryChange[] {
    if (!this.isIssue.has(a) || !this.link(a, b)) return [];
    const touched: IssueKey[] = [a];
    if (this.state.get(a) === 'open' && this.state.get(b) === 'open' && this.isIssue.has(b)) {
      if (this.closesLoop(a, b)) {
        const fromB = this.reach(b, this.blockers);
        const toA = this.reach(a, this.dependents);
        const members = [...fromB].filter((m) => toA.has(m));
        for (const m of members) this.cycleOf.delete(m);
        this.setCycle(members.sort(compareKeys));
        touched.push(...members);
      }
    }
    return this.refresh(touched, []);
  }

  /** `a` is no longer blocked by `b`. */
  removeEdge(a: IssueKey, b: IssueKey): CategoryChange[] {
    const bs = this.blockers.get(a);
    if (!bs?.delete(b)) return [];
    this.dependents.get(b)!.delete(a);
    if (this.stateOf(b) !== 'closed') this.unresolved.set(a, this.unresolved.get(a)! - 1);
    const touched: IssueKey[] = [a];
    const cycle = this.cycleOf.get(a);
    if (cycle?.has(b)) touched.push(...this.resplit(cycle));
    return this.refresh(touched, []);
  }

  categoryOf(k: IssueKey): Category | undefined {
    return this.category.get(k);
  }

  categories(): Map<IssueKey, Category> {
    return new Map([...this.category].sort(([x], [y]) => compareKeys(x, y)));
  }

  ready(): IssueKey[] {
    return [...this.category]
      .filter(([, c]) => c === 'ready')
      .map(([k]) => k)
      .sort(compareKeys);
  }

  cycles(): Cycle[] {
    const seen = new Set<Set<IssueKey>>(this.cycleOf.values());
    return [...seen]
      .map((s) => ({ members: [...s].sort(compareKeys) }))
      .sort((x, y) => compareKeys(x.members[0]!, y.members[0]!));
  }
}
