import { describe, expect, it } from 'vitest';
import type { Permission, Review } from '../forges/types.ts';
import { reviewGate } from './review-gate.ts';

const permissions = new Map<string, Permission>([
  ['wendy', 'write'],
  ['ada', 'admin'],
  ['rita', 'read'],
]);
let seq = 0;
const review = (
  author: string,
  state: Review['state'],
  commitSha = 'head',
  extra: Partial<Review> = {},
): Review => {
  seq += 1;
  return {
    id: seq,
    author,
    state,
    body: '',
    commitSha,
    submittedAt: `2026-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
    ...extra,
  };
};
const gate = (reviews: Review[]) =>
  reviewGate({ reviews, headSha: 'head', permissions, botLogin: 'blitz-bot[bot]' });

describe('reviewGate', () => {
  it('a writer’s changes request on the current head holds the merge', () => {
    const r = review('wendy', 'changes_requested');
    expect(gate([r])).toEqual({ kind: 'changes_requested', by: [r] });
  });

  it('after the worker pushed, the request is stale and the merge proceeds; asking again holds it again', () => {
    const old = review('wendy', 'changes_requested', 'older');
    expect(gate([old])).toEqual({ kind: 'clear', staleChangeRequests: [old] });
    expect(gate([old, review('wendy', 'changes_requested')]).kind).toBe('changes_requested');
    expect(gate([review('ada', 'changes_requested', 'head', { stale: true })]).kind).toBe('clear');
  });

  it('a read-only user’s or unknown user’s changes request never holds the merge', () => {
    expect(gate([review('rita', 'changes_requested'), review('mallory', 'changes_requested')]).kind).toBe(
      'clear',
    );
  });

  it('a later approval or dismissal replaces a request; a later comment does not', () => {
    expect(gate([review('wendy', 'changes_requested'), review('wendy', 'approved')]).kind).toBe('clear');
    expect(gate([review('wendy', 'changes_requested'), review('wendy', 'dismissed')]).kind).toBe('clear');
    expect(gate([review('wendy', 'changes_requested'), review('wendy', 'commented')]).kind).toBe(
      'changes_requested',
    );
  });
});
