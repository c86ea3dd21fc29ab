// The integer-indexed pass (buildGraph + classify + orderForDispatch) against the string-keyed
// reference it replaced (test/support/plan-reference.ts), on random graphs that mix repositories,
// repeats, external and unknown blockers, sub-issues, holds, epics and every classify option.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceClassify, referenceGraph } from '../../test/support/plan-reference.ts';
import type { ClassifyOptions, RunHoldKind } from './classify.ts';
import { categories, classify, keysIn } from './classify.ts';
import { findCycles } from './cycles.ts';
import { buildGraph, compareKeys } from './graph.ts';
import type { ExternalBlocker, IssueKey, PlanIssue } from './types.ts';
import { issueKey } from './types.ts';
import { compareForDispatch, nextWave, orderForDispatch } from './wave.ts';

// `q/r#1` and the odd numbers are not what a forge sends; they hold the key → id tables to keys
// that look alike (`a/b#01`, `q/r#1#2`) and to numbers only the Map can index.
const repos = ['a/b', 'a/bc', 'z/y', 'q/r#1'] as const;
/** Mostly one repository and a few numbers, so that blockers usually name issues of the list. */
const repoArb = fc.oneof({ weight: 6, arbitrary: fc.constant('a/b') }, fc.constantFrom(...repos));
const numberArb = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 10 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -2, 1.5, 2 ** 53 + 2, 10_000_000) },
);
const keyArb = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(repoArb, numberArb).map(([r, n]) => issueKey(r, n)) },
  { weight: 1, arbitrary: fc.constantFrom('ext/lib#1', 'ext/lib#2') },
  { weight: 1, arbitrary: fc.constantFrom('a/b#01', 'a/b#', 'q/r#1#02', '#3', 'a/b#3#', 'z/y#1e+21') },
);

const labelArb = fc.constantFrom(
  { name: 'bug' },
  { name: 'bug' },
  { name: 'hold', description: 'waiting' },
  { name: 'HOLD' },
  { name: 'plan/approved' },
  { name: 'blitz/approved' },
  { name: 'priority/high' },
  { name: 'P3' },
);

/** One in `n` draws is the rare value, the rest the plain one. */
const rarely = <T>(n: number, plain: T, rare: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ weight: n - 1, arbitrary: fc.constant(plain) }, { weight: 1, arbitrary: rare });

const issueArb = fc.record({
  repo: repoArb,
  number: numberArb,
  title: rarely(5, 'Fix it', fc.constantFrom('Epic: all of it', 'epics are not it')),
  body: rarely(4, 'Change `src/a.ts`.', fc.constantFrom('- [ ] #2\n- [x] a/b#3', 'hold: legal says wait')),
  labels: fc.array(labelArb, { maxLength: 2 }),
  state: fc.constantFrom('open' as const, 'open' as const, 'closed' as const),
  authorTrusted: rarely(4, true, fc.constant(false)),
  createdAt: fc.constantFrom('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'),
  blockedBy: fc.array(keyArb, { maxLength: 5 }),
  parent: rarely(6, undefined, keyArb),
  children: rarely(6, [], fc.array(keyArb, { maxLength: 2 })),
});

const externalArb = fc.array(
  fc.record({ key: keyArb, state: fc.constantFrom('open' as const, 'closed' as const, 'unknown' as const) }),
  { maxLength: 4 },
);

const withoutUndefined = (i: PlanIssue): PlanIssue => {
  const { parent, ...rest } = i;
  return parent === undefined ? rest : i;
};

const optionsArb = (keys: fc.Arbitrary<IssueKey>) =>
  fc.record({
    running: fc.array(keys, { maxLength: 3 }),
    done: fc.array(keys, { maxLength: 3 }),
    holds: fc.array(fc.tuple(keys, fc.constantFrom<RunHoldKind>('stalled', 'gave_up', 'capped')), {
      maxLength: 2,
    }),
    planning: fc.boolean(),
  });

const toOptions = (o: {
  running: IssueKey[];
  done: IssueKey[];
  holds: [IssueKey, RunHoldKind][];
  planning: boolean;
}): ClassifyOptions => ({
  running: new Set(o.running),
  done: new Set(o.done),
  runHolds: new Map(o.holds.map(([k, kind]) => [k, { kind, reason: `it is ${kind}` }])),
  gate: o.planning ? 'planning' : 'execution',
});

describe('the integer-indexed planner pass', () => {
  it('builds the graph and classifies exactly as the string-keyed reference', () => {
    fc.assert(
      fc.property(
        fc.array(issueArb, { maxLength: 30 }).map((xs) => xs.map(withoutUndefined)),
        externalArb,
        optionsArb(keyArb),
        (issues, external: ExternalBlocker[], o) => {
          const opts = toOptions(o);
          const g = buildGraph(issues, external);
          const ref = referenceGraph(issues, external);
          expect(g.keys).toEqual(ref.keys);
          expect([...g.issues]).toEqual(ref.keys.map((k) => [k, ref.issues.get(k)]));
          expect([...g.blockers]).toEqual(ref.keys.map((k) => [k, ref.blockers.get(k)]));
          expect(new Map(g.subIssues)).toEqual(ref.subIssues);
          expect([...g.external]).toEqual([...ref.external]);

          const c = classify(g, opts);
          const want = referenceClassify(ref, opts);
          expect([...c.byKey]).toEqual(want.byKey);
          expect(c.cycles.map((x) => x.members)).toEqual(want.cycles);
          expect(c.unknownBlockers).toEqual(want.unknownBlockers);
          for (const cat of categories) {
            const keys = want.byKey.filter(([, v]) => v.category === cat).map(([k]) => k);
            expect(keysIn(c, cat)).toEqual(keys);
            expect(c.counts[cat]).toBe(keys.length);
          }
          for (const k of [...ref.keys, 'ext/lib#1', 'nowhere/x#1']) {
            expect(g.issues.has(k)).toBe(ref.issues.has(k));
            expect(c.byKey.get(k)).toEqual(want.byKey.find(([key]) => key === k)?.[1]);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('findCycles on keys agrees with classify on the same graph', () => {
    fc.assert(
      fc.property(
        fc.array(issueArb, { maxLength: 30 }).map((xs) => xs.map(withoutUndefined)),
        (issues) => {
          const g = buildGraph(issues);
          const open = g.keys.filter((k) => g.issues.get(k)!.state === 'open').reverse();
          const byKeys = findCycles(open, (k) => g.blockers.get(k) ?? []);
          expect(byKeys).toEqual(classify(g).cycles);
        },
      ),
    );
  });

  it('orders for dispatch exactly as a plain sort by compareForDispatch', () => {
    fc.assert(
      fc.property(
        fc.array(issueArb, { maxLength: 30 }).map((xs) => xs.map(withoutUndefined)),
        (issues) => {
          const g = buildGraph(issues);
          const keys = [...g.keys].reverse();
          const want = [...keys].sort((a, b) => compareForDispatch(g.issues.get(a)!, g.issues.get(b)!, a, b));
          expect(orderForDispatch(g.issues, keys)).toEqual(want);
          expect(want.every((k, i) => i === 0 || compareKeys(k, want[i - 1]!) !== 0)).toBe(true);
        },
      ),
    );
  });

  it('reads a blocker list or a verdict the same before anything iterates the pass', () => {
    fc.assert(
      fc.property(
        fc.array(issueArb, { maxLength: 30 }).map((xs) => xs.map(withoutUndefined)),
        externalArb,
        optionsArb(keyArb),
        (issues, external: ExternalBlocker[], o) => {
          const opts = toOptions(o);
          const ref = referenceGraph(issues, external);
          const want = referenceClassify(ref, opts);
          // A fresh pass read by key, last key first: nothing was made by an earlier iteration.
          const g = buildGraph(issues, external);
          const c = classify(g, opts);
          for (const k of [...ref.keys].reverse()) {
            expect(g.blockers.get(k)).toEqual(ref.blockers.get(k));
            expect(c.byKey.get(k)).toEqual(want.byKey.find(([key]) => key === k)?.[1]);
          }
          // Read twice, a value is the same object: it is made once and kept.
          for (const k of ref.keys) {
            expect(g.blockers.get(k)).toBe(g.blockers.get(k));
            expect(c.byKey.get(k)).toBe(c.byKey.get(k));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('fills a wave in dispatch order, however many slots it has', () => {
    fc.assert(
      fc.property(
        fc.array(issueArb, { maxLength: 30 }).map((xs) => xs.map(withoutUndefined)),
        fc.integer({ min: 0, max: 40 }),
        (issues, slots) => {
          const g = buildGraph(issues);
          const ready = [...g.keys].reverse();
          const caps = {
            maxSessions: slots,
            budget: { verdict: 'ok' as const, recommendedMaxSessions: slots, preferMedium: false },
            machineLimit: slots,
            contended: false,
          };
          const wave = nextWave({ issues: g.issues, ready, running: [], caps });
          expect(wave.map((m) => m.key)).toEqual(orderForDispatch(g.issues, ready).slice(0, slots));
        },
      ),
    );
  });
});
