import { describe, expect, it } from 'vitest';
import { parseBlitzConfig } from '../config/blitz-config.ts';
import { reviewerOrder } from './reviewers.ts';

const roster = (entries: object[]) => parseBlitzConfig(JSON.stringify({ roster: entries })).roster;
const cmd = { command: ['node', 'r.mjs'], resume: ['node', 'r.mjs'] };
const names = (o: { entry: { name: string } }[]) => o.map((r) => r.entry.name);

describe('reviewerOrder', () => {
  it('puts a reviewer of another tool first for a claude author, even when a claude reviewer is cheaper', () => {
    const r = roster([
      { name: 'claude-review', tool: 'claude', roles: ['review'], tiers: ['execution'] },
      { name: 'codex-review', tool: 'codex', roles: ['review'], tiers: ['execution'] },
    ]);
    expect(names(reviewerOrder(r, { name: 'worker', tool: 'claude' }))).toEqual([
      'codex-review',
      'claude-review',
    ]);
  });

  it('never lists the author entry or entries without the review role', () => {
    const r = roster([
      { name: 'worker', tool: 'custom', ...cmd, roles: ['fleet', 'review'], tiers: ['execution'] },
      { name: 'author-only', tool: 'codex', roles: ['fleet'], tiers: ['execution'] },
      { name: 'local', tool: 'ollama', model: 'qwen', roles: ['review'], tiers: ['execution'] },
    ]);
    expect(names(reviewerOrder(r, { name: 'worker', tool: 'custom' }))).toEqual(['local']);
  });

  it('orders same-distance reviewers by cost, so fallback goes to the next cheapest', () => {
    const r = roster([
      { name: 'b', tool: 'custom', ...cmd, roles: ['review'], tiers: ['execution'], costRank: 2 },
      { name: 'a', tool: 'custom', ...cmd, roles: ['review'], tiers: ['execution'], costRank: 1 },
    ]);
    expect(names(reviewerOrder(r, { name: 'w', tool: 'claude' }))).toEqual(['a', 'b']);
  });

  it("uses the planner's built-in default only when the roster has no reviewer at all", () => {
    const order = reviewerOrder([], { name: 'w', tool: 'claude' });
    expect(order).toHaveLength(1);
    expect(order[0]!.entry.tool).toBe('codex');
  });
});
