// Cycle detection: Tarjan's strongly connected components, iterative so that a 10,000-issue chain
// does not blow the call stack. A cycle is an SCC of size > 1, or one issue blocked by itself.
import { compareKeys } from './graph.ts';
import type { IssueKey } from './types.ts';

export interface Cycle {
  /** Members, sorted by key. */
  members: IssueKey[];
}

/**
 * Cycles among `nodes` following `successors` (edges to nodes outside `nodes` are ignored).
 * Output is sorted (members within a cycle, cycles by first member), so it does not depend on the
 * order of `nodes`.
 */
export const findCycles = (
  nodes: readonly IssueKey[],
  successors: (k: IssueKey) => readonly IssueKey[],
): Cycle[] => {
  const inSet = new Set(nodes);
  const index = new Map<IssueKey, number>();
  const low = new Map<IssueKey, number>();
  const onStack = new Set<IssueKey>();
  const stack: IssueKey[] = [];
  const cycles: Cycle[] = [];
  let next = 0;

  // Each frame is a node and the position of the next successor to look at.
  const frames: { k: IssueKey; succ: readonly IssueKey[]; i: number }[] = [];
  const open = (k: IssueKey): void => {
    index.set(k, next);
    low.set(k, next);
    next++;
    stack.push(k);
    onStack.add(k);
    frames.push({ k, succ: successors(k), i: 0 });
  };

  for (const root of [...nodes].sort(compareKeys)) {
    if (index.has(root)) continue;
    open(root);
    while (frames.length > 0) {
      const f = frames[frames.length - 1]!;
      if (f.i < f.succ.length) {
        const w = f.succ[f.i++]!;
        if (!inSet.has(w)) continue;
        if (!index.has(w)) open(w);
        else if (onStack.has(w)) low.set(f.k, Math.min(low.get(f.k)!, index.get(w)!));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.k, Math.min(low.get(parent.k)!, low.get(f.k)!));
      if (low.get(f.k) !== index.get(f.k)) continue;
      const members: IssueKey[] = [];
      let w: IssueKey;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        members.push(w);
      } while (w !== f.k);
      if (members.length > 1 || f.succ.includes(f.k)) cycles.push({ members: members.sort(compareKeys) });
    }
  }
  return cycles.sort((a, b) => compareKeys(a.members[0]!, b.members[0]!));
};
