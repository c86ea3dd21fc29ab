import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { graphArb, issue, k } from '../../test/support/plan-arbitraries.ts';
import { classify } from './classify.ts';
import { buildGraph } from './graph.ts';
import { PlanIndex } from './plan-index.ts';
import type { ExternalBlocker, PlanIssue } from './types.ts';
import { keyOf } from './types.ts';

type Op =
  | { op: 'close'; n: number }
  | { op: 'add'; a: number; b: number }
  | { op: 'remove'; a: number; b: number };

const full = (issues: PlanIssue[], external: ExternalBlocker[]) => {
  const c = classify(buildGraph(issues, external));
  return { categories: new Map([...c.byKey].map(([key, v]) => [key, v.category])), cycles: c.cycles };
};

/** Applies an op to the plain inputs, the way the tracker would change. */
const applyPlain = (
  issues: PlanIssue[],
  external: ExternalBlocker[],
  o: Op,
): [PlanIssue[], ExternalBlocker[]] => {
  if (o.op === 'close') {
    if (issues.some((i) => keyOf(i) === k(o.n)))
      return [issues.map((i) => (keyOf(i) === k(o.n) ? { ...i, state: 'closed' } : i)), external];
    return [issues, [...external.filter((e) => e.key !== k(o.n)), { key: k(o.n), state: 'closed' }]];
  }
  const blockedBy = (i: PlanIssue) =>
    o.op === 'add' ? [...new Set([...i.blockedBy, k(o.b)])] : i.blockedBy.filter((b) => b !== k(o.b));
  return [issues.map((i) => (keyOf(i) === k(o.a) ? { ...i, blockedBy: blockedBy(i) } : i)), external];
};

const opArb = (n: number) =>
  fc.oneof(
    fc.record({ op: fc.constant('close' as const), n: fc.integer({ min: 1, max: n + 2 }) }),
    fc.record({
      op: fc.constant('add' as const),
      a: fc.integer({ min: 1, max: n }),
      b: fc.integer({ min: 1, max: n + 2 }),
    }),
    fc.record({
      op: fc.constant('remove' as const),
      a: fc.integer({ min: 1, max: n }),
      b: fc.integer({ min: 1, max: n + 2 }),
    }),
  );

describe('PlanIndex', () => {
  it('after any sequence of changes agrees with a full recomputation', () => {
    const arb = graphArb({ dag: false }).chain((issues) =>
      fc.record({ issues: fc.constant(issues), ops: fc.array(opArb(issues.length), { maxLength: 25 }) }),
    );
    fc.assert(
      fc.property(arb, ({ issues: start, ops }) => {
        let issues = start;
        let external: ExternalBlocker[] = [];
        const index = new PlanIndex(issues, external);
        expect(index.categories()).toEqual(full(issues, external).categories);
        for (const o of ops) {
          const before = index.categories();
          const changes =
            o.op === 'close'
              ? index.closeIssue(k(o.n))
              : o.op === 'add'
                ? index.addEdge(k(o.a), k(o.b))
                : index.removeEdge(k(o.a), k(o.b));
          [issues, external] = applyPlain(issues, external, o);
          const want = full(issues, external);
          expect(index.categories()).toEqual(want.categories);
          expect(index.cycles()).toEqual(want.cycles);
          // the reported changes are exactly the categories that moved
          const moved = [...want.categories].filter(([key, c]) => before.get(key) !== c).map(([key]) => key);
          expect(changes.map((c) => c.key).sort()).toEqual(moved.sort());
        }
      }),
      { numRuns: 300 },
    );
  });

  it('closing a blocker readies its dependent and reports the change', () => {
    const index = new PlanIndex([issue(1), issue(2, { blockedBy: [k(1)] })]);
    expect(index.closeIssue(k(1))).toEqual([
      { key: k(1), from: 'ready', to: 'done' },
      { key: k(2), from: 'blocked', to: 'ready' },
    ]);
    expect(index.ready()).toEqual([k(2)]);
  });

  it('an edge closing a loop turns its members into a cycle, removing it undoes that', () => {
    const index = new PlanIndex([issue(1), issue(2, { blockedBy: [k(1)] }), issue(3, { blockedBy: [k(2)] })]);
    index.addEdge(k(1), k(3));
    expect(index.cycles()).toEqual([{ members: [k(1), k(2), k(3)] }]);
    index.removeEdge(k(2), k(1));
    expect(index.cycles()).toEqual([]);
    expect(index.categoryOf(k(2))).toBe('ready');
  });
});
