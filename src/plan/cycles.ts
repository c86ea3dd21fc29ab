// Cycle detection: Tarjan's strongly connected components, iterative so that a 10,000-issue chain
// does not blow the call stack. A cycle is an SCC of size > 1, or one issue blocked by itself.
import { compareKeys } from './graph.ts';
import type { IssueKey } from './types.ts';

export interface Cycle {
  /** Members, sorted by key. */
  members: IssueKey[];
}

/**
 * Cycles on integer ids: nodes `0 … n-1` where `include[v]` is 1, successors of `v` in
 * `to[start[v]] … to[start[v + 1] - 1]` (edges to excluded nodes are ignored). Each cycle's members
 * come out ascending, and cycles ordered by their first member.
 */
export const findCyclesById = (include: Uint8Array, start: Int32Array, to: Int32Array): number[][] => {
  const n = include.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  let sp = 0;
  // Each frame is a node and the position of its next successor to look at.
  const frameNode = new Int32Array(n);
  const frameNext = new Int32Array(n);
  let fp = 0;
  const cycles: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1 || !include[root]) continue;
    // Ids fall along every edge of a path that has no edge to an equal or higher id, so a cycle has
    // such an edge: walking from its nodes finds every cycle, and each walk still sees whole
    // components (all it can reach). A milestone mostly blocked by older issues walks a fraction.
    let up = false;
    for (let e = start[root]!; e < start[root + 1]! && !up; e++) up = to[e]! >= root;
    if (!up) continue;
    index[root] = low[root] = counter++;
    stack[sp++] = root;
    onStack[root] = 1;
    frameNode[fp] = root;
    frameNext[fp++] = start[root]!;
    while (fp > 0) {
      const v = frameNode[fp - 1]!;
      const next = frameNext[fp - 1]!;
      if (next < start[v + 1]!) {
        frameNext[fp - 1] = next + 1;
        const w = to[next]!;
        if (!include[w]) continue;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack[sp++] = w;
          onStack[w] = 1;
          frameNode[fp] = w;
          frameNext[fp++] = start[w]!;
        } else if (onStack[w] && index[w]! < low[v]!) low[v] = index[w]!;
        continue;
      }
      fp--;
      if (fp > 0) {
        const parent = frameNode[fp - 1]!;
        if (low[v]! < low[parent]!) low[parent] = low[v]!;
      }
      if (low[v] !== index[v]) continue;
      // v is the root of a component: everything above it on the stack belongs to it.
      let from = sp - 1;
      while (stack[from] !== v) from--;
      const size = sp - from;
      let selfLoop = false;
      if (size === 1) for (let e = start[v]!; e < start[v + 1]! && !selfLoop; e++) selfLoop = to[e] === v;
      if (size > 1 || selfLoop) cycles.push(Array.from(stack.subarray(from, sp)).sort((a, b) => a - b));
      for (let i = from; i < sp; i++) onStack[stack[i]!] = 0;
      sp = from;
    }
  }
  return cycles.sort((a, b) => a[0]! - b[0]!);
};

/**
 * Cycles among `nodes` following `successors` (edges to nodes outside `nodes` are ignored).
 * Output is sorted (members within a cycle, cycles by first member), so it does not depend on the
 * order of `nodes`.
 */
export const findCycles = (
  nodes: readonly IssueKey[],
  successors: (k: IssueKey) => readonly IssueKey[],
  /** The caller vouches that `nodes` is sorted by compareKeys and has no repeats. */
  sortedUnique = false,
): Cycle[] => {
  // Ids in key order, so that sorting ids sorts the keys.
  let ordered = true;
  if (!sortedUnique)
    for (let i = 1; i < nodes.length && ordered; i++) ordered = compareKeys(nodes[i - 1]!, nodes[i]!) < 0;
  const keys = ordered ? nodes : [...new Set(nodes)].sort(compareKeys);
  const n = keys.length;
  const id = new Map<IssueKey, number>();
  for (let i = 0; i < n; i++) id.set(keys[i]!, i);
  const start = new Int32Array(n + 1);
  const to: number[] = [];
  for (let i = 0; i < n; i++) {
    start[i] = to.length;
    for (const w of successors(keys[i]!)) {
      const j = id.get(w);
      if (j !== undefined) to.push(j);
    }
  }
  start[n] = to.length;
  return findCyclesById(new Uint8Array(n).fill(1), start, Int32Array.from(to)).map((ids) => ({
    members: ids.map((i) => keys[i]!),
  }));
};
