import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idealListSchedule, type ScheduleTask } from './ideal-schedule.ts';

const t = (id: string, blockedBy: string[] = [], work = 10): ScheduleTask => ({ id, blockedBy, work });
const ok = (tasks: ScheduleTask[], cap: number) => {
  const r = idealListSchedule(tasks, cap);
  if (!r.ok) throw new Error(`unexpected ${r.error.code}`);
  return r.value;
};

describe('idealListSchedule', () => {
  it('a chain takes the sum of its work whatever the cap', () => {
    const s = ok([t('a'), t('b', ['a']), t('c', ['b'])], 5);
    expect(s.makespan).toBe(30);
    expect([...s.starts]).toEqual([
      ['a', 0],
      ['b', 10],
      ['c', 20],
    ]);
    expect(s.criticalPath).toBe(30);
  });

  it('a fan-out wider than the cap goes in rounds of the cap', () => {
    const leaves = Array.from({ length: 5 }, (_, i) => t(`l${i}`, ['root']));
    expect(ok([t('root'), ...leaves], 2).makespan).toBe(10 + 3 * 10);
    expect(ok([t('root'), ...leaves], 5).makespan).toBe(20);
    expect(ok([t('root'), ...leaves], 2).lowerBound).toBe(30);
  });

  it('starts the issue with the longest chain behind it first', () => {
    // With one session: x heads a chain of three, y and z are alone. x first keeps the chain moving.
    const s = ok([t('z'), t('y'), t('x'), t('x2', ['x']), t('x3', ['x2'])], 2);
    expect(s.starts.get('x')).toBe(0);
    expect(s.makespan).toBe(30);
  });

  it('an epic takes no session and is done when its children are', () => {
    const s = ok([t('a'), t('b'), t('epic', ['a', 'b'], 0), t('after', ['epic'])], 1);
    expect(s.starts.get('epic')).toBe(20);
    expect(s.starts.get('after')).toBe(20);
    expect(s.makespan).toBe(30);
  });

  it('a blocker outside the graph is taken as done; a repeated one counts once', () => {
    expect(ok([t('a', ['elsewhere']), t('b', ['a', 'a'])], 1).makespan).toBe(20);
  });

  it('refuses a cycle, naming what is on it, and a cap under one', () => {
    expect(idealListSchedule([t('a', ['b']), t('b', ['a']), t('c')], 2)).toEqual({
      ok: false,
      error: { code: 'cycle', ids: ['a', 'b'] },
    });
    expect(idealListSchedule([t('a')], 0)).toEqual({ ok: false, error: { code: 'bad_cap', cap: 0 } });
  });

  it('never beats the lower bound, never idles a session while work is ready, and respects every blocker', () => {
    const graph = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.array(fc.nat(30), { maxLength: 3 })), {
        minLength: 1,
        maxLength: 30,
      })
      .map((rows) =>
        // Blockers only on earlier ids: acyclic by construction.
        rows.map(([w, bs], i) =>
          t(
            `t${String(i).padStart(2, '0')}`,
            bs.filter((b) => b < i).map((b) => `t${String(b).padStart(2, '0')}`),
            w * 5,
          ),
        ),
      );
    fc.assert(
      fc.property(graph, fc.integer({ min: 1, max: 6 }), (tasks, cap) => {
        const s = ok(tasks, cap);
        expect(s.makespan).toBeGreaterThanOrEqual(s.lowerBound - 1e-9);
        const byId = new Map(tasks.map((x) => [x.id, x]));
        const end = (id: string) => s.starts.get(id)! + byId.get(id)!.work;
        for (const x of tasks)
          for (const b of x.blockedBy) expect(s.starts.get(x.id)!).toBeGreaterThanOrEqual(end(b));
        // Greedy: at each start time, a ready task waits only while every session is busy.
        for (const x of tasks) {
          if (x.work === 0) continue;
          const readyAt = Math.max(0, ...x.blockedBy.map(end));
          const wait = s.starts.get(x.id)! - readyAt;
          if (wait <= 0) continue;
          const busy = tasks.filter(
            (y) => y.work > 0 && s.starts.get(y.id)! <= readyAt && end(y.id) > readyAt,
          );
          expect(busy.length).toBe(cap);
        }
      }),
    );
  });
});
