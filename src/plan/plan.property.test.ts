// Properties of the planner over random graphs (DAGs, and graphs with cycles and unknown blockers).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  baseSnapshot,
  graphArb,
  issue,
  k,
  progressOf,
  simulate,
} from '../../test/support/plan-arbitraries.ts';
import { classify } from './classify.ts';
import { buildGraph, stateOf } from './graph.ts';
import { nextActions } from './next-actions.ts';
import { type Action, replanAfter } from './snapshot.ts';
import type { RunState } from './states.ts';
import type { PlanIssue } from './types.ts';
import { keyOf } from './types.ts';

const runs = { numRuns: 150 };

describe('planner properties', () => {
  it('the categories partition the issues and agree with the edges', () => {
    fc.assert(
      fc.property(graphArb({ dag: false }), (issues) => {
        const g = buildGraph(issues);
        const c = classify(g);
        expect(c.byKey.size).toBe(issues.length);
        expect(Object.values(c.counts).reduce((a, b) => a + b, 0)).toBe(issues.length);
        const inCycle = new Set(c.cycles.flatMap((x) => x.members));
        for (const [key, v] of c.byKey) {
          const blockers = g.blockers.get(key)!;
          if (v.category === 'ready') expect(blockers.every((b) => stateOf(g, b) === 'closed')).toBe(true);
          if (v.category === 'blocked') expect(blockers.some((b) => stateOf(g, b) !== 'closed')).toBe(true);
          expect(v.category === 'cycle').toBe(inCycle.has(key));
        }
      }),
      runs,
    );
  });

  it('actions the plan depends on come first, and a stop is last but for notices', () => {
    const arb = fc.record({
      issues: graphArb({ dag: false }),
      state: fc.constantFrom<RunState>('planning', 'running', 'blocked', 'gating'),
      stale: fc.boolean(),
      findings: fc.integer({ min: 0, max: 2 }),
      merged: fc.integer({ min: 0, max: 4 }),
      verdict: fc.constantFrom(undefined, 'clean' as const, 'blocking' as const, 'unclear' as const),
    });
    fc.assert(
      fc.property(arb, ({ issues, state, stale, findings, merged, verdict }) => {
        const snap = baseSnapshot(issues, {
          budgetStale: stale,
          unfiledFindings: findings,
          integrationReview: {
            mergedSince: merged,
            ...(verdict ? { last: { verdict, at: '2026-01-01T00:00:00Z', filed: 0 } } : {}),
          },
        });
        const got = nextActions(state, snap);
        const firsts = got.findIndex((a) => !replanAfter.has(a.type));
        if (firsts >= 0) expect(got.slice(firsts).every((a) => !replanAfter.has(a.type))).toBe(true);
        const stop = got.findIndex((a) => a.type === 'stop');
        if (stop >= 0) expect(got.slice(stop + 1).every((a) => a.type === 'issue_notice')).toBe(true);
        expect(got.filter((a) => a.type === 'stop').length).toBeLessThanOrEqual(1);
      }),
      runs,
    );
  });

  it('a blocked issue is never in a wave', () => {
    fc.assert(
      fc.property(graphArb({ dag: false }), fc.integer({ min: 1, max: 6 }), (issues, max) => {
        const snap = baseSnapshot(issues, { options: { maxSessions: max, dryRun: false } });
        const g = buildGraph(issues);
        for (const a of nextActions('running', snap))
          if (a.type === 'dispatch')
            expect(g.blockers.get(a.issue)!.every((b) => stateOf(g, b) === 'closed')).toBe(true);
      }),
      runs,
    );
  });

  it('over whole runs with failing workers, no issue is dispatched while in flight or blocked', () => {
    const arb = fc.record({ issues: graphArb({ dag: false }), failSeed: fc.integer({ min: 0, max: 1000 }) });
    fc.assert(
      fc.property(arb, ({ issues, failSeed }) => {
        // a worker fails on about a third of its attempts, decided from the seed, the issue and the attempt
        const fail = (key: string, attempt: number) =>
          (failSeed + Number(key.slice(9)) * 13 + attempt) % 3 === 0;
        const r = simulate(baseSnapshot(issues, { machine: { limit: 2, contended: false } }), {
          fail,
          onCall: (snap, actions) => {
            const g = buildGraph(snap.issues);
            const inFlight = new Set(
              snap.progress
                .filter((p) => !['failed', 'bounced', 'closed'].includes(p.state))
                .map((p) => p.key),
            );
            const dispatched = actions.filter((a) => a.type === 'dispatch').map((a) => a.issue);
            expect(new Set(dispatched).size).toBe(dispatched.length);
            for (const key of dispatched) {
              expect(inFlight.has(key)).toBe(false);
              expect(g.blockers.get(key)!.every((b) => stateOf(g, b) === 'closed')).toBe(true);
            }
          },
        });
        expect(r.stop).toBeDefined();
        for (const n of r.dispatches.values()) expect(n).toBeLessThanOrEqual(3);
      }),
      { numRuns: 60 },
    );
  });

  it('no issue is dispatched twice over a whole run, and every run ends', () => {
    fc.assert(
      fc.property(graphArb({ dag: false }), (issues) => {
        const r = simulate(baseSnapshot(issues, { machine: { limit: 3, contended: false } }));
        expect(r.stop).toBeDefined();
        for (const n of r.dispatches.values()) expect(n).toBe(1);
      }),
      { numRuns: 60 },
    );
  });

  it('the output does not depend on the order of the input arrays', () => {
    const states = ['dispatched', 'working', 'pushed', 'merged', 'failed'] as const;
    const arb = graphArb({ dag: false }).chain((issues) =>
      fc.record({
        issues: fc.constant(issues),
        progress: fc.array(fc.tuple(fc.integer({ min: 1, max: issues.length }), fc.constantFrom(...states)), {
          maxLength: 4,
        }),
        seed: fc.integer(),
      }),
    );
    fc.assert(
      fc.property(arb, ({ issues, progress, seed }) => {
        const uniq = new Map(
          progress.map(([n, s]) => [k(n), progressOf(k(n), { state: s, branchPushed: s === 'pushed' })]),
        );
        const snap = baseSnapshot(issues, { progress: [...uniq.values()] });
        const shuffle = <T>(xs: readonly T[]): T[] => {
          const out = [...xs];
          let s = seed;
          for (let i = out.length - 1; i > 0; i--) {
            s = (s * 1103515245 + 12345) & 0x7fffffff;
            const j = s % (i + 1);
            [out[i], out[j]] = [out[j]!, out[i]!];
          }
          return out;
        };
        const shuffled = {
          ...snap,
          issues: shuffle(snap.issues).map((i) => ({ ...i, blockedBy: shuffle(i.blockedBy) })),
          progress: shuffle(snap.progress),
        };
        expect(nextActions('running', shuffled)).toEqual(nextActions('running', snap));
      }),
      runs,
    );
  });

  it('a chain of n issues finishes in n waves', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 25 }), (n) => {
        const issues = Array.from({ length: n }, (_, i) =>
          issue(i + 1, { blockedBy: i === 0 ? [] : [k(i)] }),
        );
        const r = simulate(baseSnapshot(issues));
        const waves = r.calls.filter((c) => c.some((a: Action) => a.type === 'dispatch'));
        expect(waves).toHaveLength(n);
        expect(waves.every((c) => c.filter((a) => a.type === 'dispatch').length === 1)).toBe(true);
        expect(r.stop?.state).toBe('done');
      }),
      { numRuns: 25 },
    );
  });

  it('closing every ready issue repeatedly empties the graph unless cycles or unknown blockers remain', () => {
    fc.assert(
      fc.property(graphArb({ dag: false }), (start) => {
        let issues: PlanIssue[] = start;
        for (;;) {
          const c = classify(buildGraph(issues));
          const ready = new Set([...c.byKey].filter(([, v]) => v.category === 'ready').map(([key]) => key));
          if (ready.size === 0) break;
          issues = issues.map((i) => (ready.has(keyOf(i)) ? { ...i, state: 'closed' as const } : i));
        }
        const g = buildGraph(issues);
        const c = classify(g);
        const left = issues.filter((i) => i.state === 'open').map(keyOf);
        if (c.cycles.length === 0 && c.unknownBlockers.length === 0) expect(left).toEqual([]);
        // whatever is left waits, directly or through other open issues, on a cycle or an unknown blocker
        const stuck = new Set([
          ...c.cycles.flatMap((x) => x.members),
          ...c.unknownBlockers.flatMap((u) => u.namedBy),
        ]);
        let grew = true;
        while (grew) {
          grew = false;
          for (const key of left)
            if (!stuck.has(key) && g.blockers.get(key)!.some((b) => stuck.has(b))) {
              stuck.add(key);
              grew = true;
            }
        }
        expect(left.every((key) => stuck.has(key))).toBe(true);
      }),
      runs,
    );
  });
});
