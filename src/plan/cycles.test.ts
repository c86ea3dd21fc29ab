import { describe, expect, it } from 'vitest';
import { findCycles } from './cycles.ts';

const adj = (edges: Record<string, string[]>) => (k: string) => edges[k] ?? [];

describe('findCycles', () => {
  it('finds a ring of 10,000 issues without overflowing the stack', () => {
    const n = 10_000;
    const keys = Array.from({ length: n }, (_, i) => `a/b#${i + 1}`);
    const next = (k: string) => [`a/b#${(Number(k.slice(4)) % n) + 1}`];
    const cycles = findCycles(keys, next);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]!.members).toHaveLength(n);
  });

  it('finds nothing in a 10,000-issue chain', () => {
    const n = 10_000;
    const keys = Array.from({ length: n }, (_, i) => `a/b#${i + 1}`);
    expect(findCycles(keys, (k) => (k === 'a/b#1' ? [] : [`a/b#${Number(k.slice(4)) - 1}`]))).toEqual([]);
  });

  it('reports each SCC larger than one and each self-loop, not acyclic parts', () => {
    const edges = {
      'a/b#1': ['a/b#2'],
      'a/b#2': ['a/b#1', 'a/b#3'],
      'a/b#3': [],
      'a/b#4': ['a/b#4'],
      'a/b#5': ['a/b#1'],
    };
    expect(findCycles(Object.keys(edges), adj(edges))).toEqual([
      { members: ['a/b#1', 'a/b#2'] },
      { members: ['a/b#4'] },
    ]);
  });

  it('ignores edges leaving the node set', () => {
    const edges = { 'a/b#1': ['a/b#2'], 'a/b#2': ['a/b#1'] };
    expect(findCycles(['a/b#1'], adj(edges))).toEqual([]);
  });
});
