import { describe, expect, it } from 'vitest';
import { baseSnapshot, issue, k } from '../../test/support/plan-arbitraries.ts';
import { findingsFirst } from './findings-first.ts';
import { nextActions } from './next-actions.ts';
import type { Action } from './snapshot.ts';

const dispatched = (xs: Action[]) => xs.flatMap((a) => (a.type === 'dispatch' ? [a.issue] : []));

describe('findingsFirst', () => {
  it('moves the findings to the front and keeps each group in its order', () => {
    expect(findingsFirst([k(1), k(2), k(3), k(4)], new Set([k(4), k(2)]))).toEqual([k(2), k(4), k(1), k(3)]);
  });

  it('leaves the order alone with no findings', () => {
    expect(findingsFirst([k(3), k(1)], new Set())).toEqual([k(3), k(1)]);
  });
});

describe('nextActions: integration-review findings first (seed 000 §3.5)', () => {
  // Issues 1 and 2 are older and one is labelled high priority: without the rule they take both slots.
  const issues = [issue(1, { labels: [{ name: 'p1' }] }), issue(2), issue(7), issue(8)];
  const machine = { limit: 2, contended: false };

  it('dispatches the findings the review filed before any unrelated new issue', () => {
    const snap = baseSnapshot(issues, { machine, reviewFindings: [k(8), k(7)] });
    expect(dispatched(nextActions('running', snap))).toEqual([k(7), k(8)]);
  });

  it('fills the slots the findings leave with the rest in dispatch order', () => {
    const snap = baseSnapshot(issues, { machine, reviewFindings: [k(8)] });
    expect(dispatched(nextActions('running', snap))).toEqual([k(8), k(1)]);
  });

  it('without findings the dispatch order stands', () => {
    expect(dispatched(nextActions('running', baseSnapshot(issues, { machine })))).toEqual([k(1), k(2)]);
  });

  it('a finding that is not ready yet takes no slot', () => {
    const blocked = [...issues.slice(0, 3), issue(8, { blockedBy: [k(7)] })];
    const snap = baseSnapshot(blocked, { machine, reviewFindings: [k(8)] });
    expect(dispatched(nextActions('running', snap))).toEqual([k(1), k(2)]);
  });
});
