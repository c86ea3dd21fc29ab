import { describe, expect, it } from 'vitest';
import { keptGraph } from './kept-graph.ts';
import type { DashboardIssue } from './types.ts';

const issue = (number: number, state: DashboardIssue['state'], blockedBy: number[]): DashboardIssue => ({
  number,
  title: `#${number}`,
  state,
  attempts: 1,
  blockedBy,
});

describe('keptGraph', () => {
  it('keeps the edges of an issue the dashboard now draws closed without them', () => {
    const before = keptGraph([
      issue(1, 'working', []),
      issue(2, 'blocked', [1]),
      issue(3, 'blocked', [1, 2]),
    ]);
    const after = keptGraph([issue(1, 'closed', []), issue(2, 'closed', []), issue(3, 'closed', [])], before);
    expect(after.map((g) => [g.number, g.blockedBy])).toEqual([
      [1, []],
      [2, [1]],
      [3, [1, 2]],
    ]);
  });

  it('takes the edges an open issue is drawn with, even fewer than before (a dependency removed)', () => {
    const before = keptGraph([issue(1, 'working', []), issue(2, 'blocked', [1])]);
    expect(keptGraph([issue(1, 'working', []), issue(2, 'ready', [])], before)[1]?.blockedBy).toEqual([]);
  });
});
