import { describe, expect, it } from 'vitest';
import { compareKeys } from './graph.ts';

describe('compareKeys', () => {
  it('orders by repo, then by number as a number', () => {
    const keys = ['b/x#1', 'a/b#10', 'a/bc#1', 'a/b#2', 'a/b#1'];
    expect([...keys].sort(compareKeys)).toEqual(['a/b#1', 'a/b#2', 'a/b#10', 'a/bc#1', 'b/x#1']);
  });
});
