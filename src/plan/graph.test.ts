import { describe, expect, it } from 'vitest';
import { issue, k } from '../../test/support/plan-arbitraries.ts';
import { buildGraph, dependentsOf, stateOf } from './graph.ts';

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
    expect(dependentsOf(g).get(k(2))).toEqual([k(10)]);
    expect(stateOf(g, 'other/lib#7')).toBe('closed');
    expect(stateOf(g, 'other/lib#8')).toBe('unknown');
  });
});
