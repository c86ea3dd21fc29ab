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
  /** The caller vouches that `nodes` is sorted by compareKeys and has no repeats. */
  sortedUnique = false,
): Cycle[] => {
  // Work on integer ids: the string maps of a textbook version cost more than the algorithm.
  let ordered = true;
  if (!sortedUnique)
    for (let i = 1; i < nodes.length && ordered; i++) ordered = compareKeys(nodes[i - 1]!, nodes[i]!) < 0;
  const keys = ordered ? nodes : [...new Set(nodes)].sort(compareKeys);
  const n = keys.length;
  const id = new Map<IssueKey, number>();
  for (let i = 0; i < n; i++) id.set(keys[i]!, i);
  const succStart = new Int32Array(n + 1);
  const succList: number[] = [];
  const selfLoop = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    succStart[i] = succList.length;
    for (const w of successors(keys[i]!)) {
      const j = id.get(w);
      if (j === undefined) continue;
      if (j === i) selfLoop[i] = 1;
      succList.push(j);
    }
  }
  succStart[n] = succList.length;

  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  // Each frame is a node and the position of its next successor to look at.
  const frameNode: number[] = [];
  const frameNext: number[] = [];
  const cycles: Cycle[] = [];
  let counter = 0;
  const open = (v: number): void => {
    index[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = 1;
    frameNode.push(v);
    frameNext.push(succStart[v]!);
  };

  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    open(root);
    while (frameNode.length > 0) {
      const top = frameNode.length - 1;
      const v = frameNode[top]!;
      const next = frameNext[top]!;
      if (next < succStart[v + 1]!) {
        frameNext[top] = next + 1;
        const w = succList[next]!;
        if (index[w] === -1) open(w);
        else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      frameNode.pop();
      frameNext.pop();
      if (frameNode.length > 0) {
        const parent = frameNode[frameNode.length - 1]!;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] !== index[v]) continue;
      const members: IssueKey[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        onStack[w] = 0;
        members.push(keys[w]!);
      } while (w !== v);
      if (members.length > 1 || selfLoop[v]) cycles.push({ members: members.sort(compareKeys) });
    }
  }
  return cycles.sort((a, b) => compareKeys(a.members[0]!, b.members[0]!));
};
