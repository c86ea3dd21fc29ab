// The ideal list schedule of a milestone's dependency graph: what the graph allows with a session cap
// and a per-issue work time, with no overhead at all (a worker starts the instant its last blocker is
// done, and its issue is done the instant its work is). The scale bench divides a run's wall-clock time
// by this makespan (`scale.makespan_ratio`): the part of a run that is the orchestrator's, not the
// graph's. Greedy list scheduling, highest level first (the longest chain of work still behind an
// issue), ties by id: a free session never idles while an issue is ready. Epics (work 0) take no
// session and are done the instant their children are, as the bot closes them.

export interface ScheduleTask {
  id: string;
  /** Blockers by id; one that is not a task here is outside the graph and taken as done. */
  blockedBy: readonly string[];
  /** Work time (any unit); 0 for a tracking issue that no worker takes (an epic). */
  work: number;
}

export interface IdealSchedule {
  /** When the last task is done (the unit of `work`), 0 for no tasks. */
  makespan: number;
  /** When each task starts. */
  starts: ReadonlyMap<string, number>;
  /** The longest chain of work (a lower bound whatever the cap). */
  criticalPath: number;
  /** max(critical path, total work / cap): no schedule is shorter. */
  lowerBound: number;
}

export type IdealScheduleError = { code: 'cycle'; ids: string[] } | { code: 'bad_cap'; cap: number };

/** The ideal list schedule of `tasks` with at most `cap` working at once. */
export const idealListSchedule = (
  tasks: readonly ScheduleTask[],
  cap: number,
): { ok: true; value: IdealSchedule } | { ok: false; error: IdealScheduleError } => {
  if (!Number.isInteger(cap) || cap < 1) return { ok: false, error: { code: 'bad_cap', cap } };
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const blockers = new Map(tasks.map((t) => [t.id, t.blockedBy.filter((b) => byId.has(b) && b !== t.id)]));
  const dependents = new Map<string, string[]>(tasks.map((t) => [t.id, []]));
  for (const [id, bs] of blockers) for (const b of bs) dependents.get(b)!.push(id);

  // Topological order (Kahn); what is left over sits on a cycle.
  const waiting = new Map([...blockers].map(([id, bs]) => [id, new Set(bs).size]));
  const order: string[] = [];
  const queue = [...waiting].filter(([, n]) => n === 0).map(([id]) => id);
  const seenEdge = new Set<string>();
  while (queue.length > 0) {
    const id = queue.shift()!;
    order.push(id);
    for (const d of dependents.get(id)!) {
      if (seenEdge.has(`${id}>${d}`)) continue;
      seenEdge.add(`${id}>${d}`);
      const n = waiting.get(d)! - 1;
      waiting.set(d, n);
      if (n === 0) queue.push(d);
    }
  }
  if (order.length < tasks.length) {
    const placed = new Set(order);
    return {
      ok: false,
      error: { code: 'cycle', ids: tasks.map((t) => t.id).filter((id) => !placed.has(id)) },
    };
  }

  // Level: the work of the longest chain from a task to the end of the graph, the task's own included.
  const level = new Map<string, number>();
  for (const id of [...order].reverse())
    level.set(id, byId.get(id)!.work + Math.max(0, ...dependents.get(id)!.map((d) => level.get(d)!)));
  const criticalPath = Math.max(0, ...level.values());
  const total = tasks.reduce((s, t) => s + t.work, 0);

  const starts = new Map<string, number>();
  const done = new Map<string, number>();
  const left = new Map([...blockers].map(([id, bs]) => [id, new Set(bs).size]));
  const ready = new Set([...left].filter(([, n]) => n === 0).map(([id]) => id));
  const running: { id: string; end: number }[] = [];
  let now = 0;
  const finish = (id: string, at: number) => {
    done.set(id, at);
    for (const d of new Set(dependents.get(id)!)) {
      const n = left.get(d)! - 1;
      left.set(d, n);
      if (n === 0) ready.add(d);
    }
  };
  const byPriority = (a: string, b: string) => level.get(b)! - level.get(a)! || (a < b ? -1 : a > b ? 1 : 0);
  while (done.size < tasks.length) {
    // Tasks without work (epics) are done at once and may free others; then the free sessions fill.
    for (let again = true; again; ) {
      again = false;
      for (const id of [...ready]) {
        if (byId.get(id)!.work > 0) continue;
        ready.delete(id);
        starts.set(id, now);
        finish(id, now);
        again = true;
      }
    }
    for (const id of [...ready].sort(byPriority)) {
      if (running.length >= cap) break;
      ready.delete(id);
      starts.set(id, now);
      running.push({ id, end: now + byId.get(id)!.work });
    }
    if (running.length === 0) break;
    now = Math.min(...running.map((r) => r.end));
    for (const r of running.filter((x) => x.end === now)) {
      running.splice(running.indexOf(r), 1);
      finish(r.id, now);
    }
  }
  const makespan = Math.max(0, ...done.values());
  return {
    ok: true,
    value: { makespan, starts, criticalPath, lowerBound: Math.max(criticalPath, total / cap) },
  };
};
