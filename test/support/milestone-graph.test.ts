import { describe, expect, it } from 'vitest';
import { isEpic } from '../../src/plan/epics.ts';
import { idealListSchedule } from '../../src/plan/ideal-schedule.ts';
import { milestoneGraph } from './milestone-graph.ts';

const plan = (issue: { title: string; body?: string }) =>
  ({ title: issue.title, body: issue.body ?? '' }) as Parameters<typeof isEpic>[0];

describe('milestoneGraph', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(milestoneGraph({ issues: 100, seed: 7 })).toEqual(milestoneGraph({ issues: 100, seed: 7 }));
    expect(milestoneGraph({ issues: 100, seed: 8 })).not.toEqual(milestoneGraph({ issues: 100, seed: 7 }));
  });

  it.each([20, 100])(
    '%i issues: acyclic, a few epics the planner takes for epics, at most 20 ready at once',
    (n) => {
      const g = milestoneGraph({ issues: n, seed: 38 });
      expect(g.issues).toHaveLength(n);
      expect(g.issues.map((i) => i.number)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      for (const i of g.issues) for (const b of i.blockedBy ?? []) expect(Number(b)).toBeLessThan(i.number!);
      expect(g.epics.length).toBeGreaterThanOrEqual(1);
      expect(g.epics.length).toBeLessThanOrEqual(Math.ceil(n / 25));
      for (const e of g.epics) expect(isEpic(plan(g.issues[e - 1]!), 0)).toBe(true);
      for (const i of g.issues.filter((x) => !g.epics.includes(x.number!)))
        expect(isEpic(plan(i), 0)).toBe(false);
      // Chains and fan-outs: some issue blocks several, and the graph is deeper than two layers.
      const blocks = new Map<number, number>();
      for (const i of g.issues)
        for (const b of i.blockedBy ?? []) blocks.set(Number(b), (blocks.get(Number(b)) ?? 0) + 1);
      expect(Math.max(...blocks.values())).toBeGreaterThan(1);
      expect(g.layers.length).toBeGreaterThan(2);
      // Unbounded sessions: the most started at one instant is the widest the graph gets.
      const s = idealListSchedule(
        g.issues.map((i) => ({
          id: String(i.number),
          blockedBy: (i.blockedBy ?? []).map(String),
          work: g.epics.includes(i.number!) ? 0 : 1,
        })),
        1000,
      );
      if (!s.ok) throw new Error(s.error.code);
      const at = new Map<number, number>();
      for (const [id, t] of s.value.starts)
        if (!g.epics.includes(Number(id))) at.set(t, (at.get(t) ?? 0) + 1);
      const widest = Math.max(...at.values());
      expect(widest).toBeLessThanOrEqual(20);
      if (n === 100) expect(widest).toBeGreaterThanOrEqual(12);
    },
  );
});
