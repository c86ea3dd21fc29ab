import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { issue, k } from '../../test/support/plan-arbitraries.ts';
import { buildGraph, compareKeys, stateOf } from './graph.ts';
import { issueKey } from './types.ts';

describe('buildGraph', () => {
  it('sorts and deduplicates blockers, keeps cross-repo keys, and merges sub-issue links from both sides', () => {
    const g = buildGraph(
      [
        issue(10, { blockedBy: [k(2), 'other/lib#7', k(2)] }),
        issue(2, { children: [k(3)] }),
        issue(3, { parent: k(2) }),
        issue(4, { parent: k(2) }),
      ],
      [{ key: 'other/lib#7', state: 'closed' }],
    );
    expect(g.keys).toEqual([k(2), k(3), k(4), k(10)]);
    expect(g.blockers.get(k(10))).toEqual([k(2), 'other/lib#7']);
    expect(g.subIssues.get(k(2))).toEqual([k(3), k(4)]);
    expect(stateOf(g, 'other/lib#7')).toBe('closed');
    expect(stateOf(g, 'other/lib#8')).toBe('unknown');
  });

  it('orders keys and blocker lists exactly as a plain sort by compareKeys with repeats dropped, whatever the input order', () => {
    const repo = fc.constantFrom('a/b', 'a/bc', 'z/y', 'a/b-c');
    const key = fc.tuple(repo, fc.integer({ min: 1, max: 2000 })).map(([r, n]) => issueKey(r, n));
    const reference = (xs: readonly string[]) => [...new Set(xs)].sort(compareKeys);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            r: repo,
            n: fc.integer({ min: 1, max: 2000 }),
            blockedBy: fc.array(key, { maxLength: 40 }),
          }),
          { maxLength: 30 },
        ),
        (specs) => {
          const issues = specs.map((x) => ({ ...issue(x.n, { blockedBy: x.blockedBy }), repo: x.r }));
          const g = buildGraph(issues);
          expect(g.keys).toEqual(reference(issues.map((i) => issueKey(i.repo, i.number))));
          for (const i of issues) {
            const last = issues.findLast((j) => j.repo === i.repo && j.number === i.number)!;
            expect(g.blockers.get(issueKey(i.repo, i.number))).toEqual(reference(last.blockedBy));
          }
        },
      ),
    );
  });
});
