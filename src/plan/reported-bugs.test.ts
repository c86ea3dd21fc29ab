import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../runner/types.ts';
import { blockedNumbersOf, bugBlocks, reportStatusOf } from './reported-bugs.ts';

describe('blockedNumbersOf', () => {
  const open = new Set([3, 4, 12]);
  it('reads the open milestone issues a bug line says it blocks', () => {
    expect(blockedNumbersOf('the cart total rounds wrong; blocks #12', open)).toEqual([12]);
    expect(blockedNumbersOf('Blocking #4, #3 and #12 until fixed', open)).toEqual([3, 4, 12]);
  });

  it('ignores numbers that are not open issues of the milestone, or not named as blocked', () => {
    expect(blockedNumbersOf('blocks #99', open)).toEqual([]);
    expect(blockedNumbersOf('see #12 for context', open)).toEqual([]);
    expect(blockedNumbersOf('nothing here', open)).toEqual([]);
  });
});

describe('reportStatusOf', () => {
  it('reads the keyword a STATUS line opens with, in any case, and nothing else', () => {
    expect(reportStatusOf('blocked — the API key is missing')).toBe('blocked');
    expect(reportStatusOf('  Partial: two of three')).toBe('partial');
    expect(reportStatusOf('DONE')).toBe('done');
    expect(reportStatusOf('not blocked')).toBeUndefined();
    expect(reportStatusOf('blockedish')).toBeUndefined();
    expect(reportStatusOf(undefined)).toBeUndefined();
  });
});

describe('bugBlocks', () => {
  const open = new Set([3, 7, 12]);
  const attempt = (
    outcome: AttemptRecord['outcome'],
    status: string | undefined,
    issue = 7,
  ): Pick<AttemptRecord, 'outcome' | 'finalReport' | 'issue'> => ({
    outcome,
    issue: { repo: { owner: 'o', name: 'r' }, number: issue },
    finalReport: { uncertainties: [], outOfScopeBugs: [], ...(status ? { status } : {}) },
  });

  it('adds the worker’s own issue after the named ones when the worker stopped blocked', () => {
    expect(bugBlocks('blocks #12 and #3', attempt('unsolved', 'blocked — needs #12'), open)).toEqual([
      3, 12, 7,
    ]);
    expect(bugBlocks('blocks #7', attempt('stalled', 'blocked'), open)).toEqual([7]);
  });

  it('not the worker’s issue when it solved it, is still working, did not say blocked, or it is not open', () => {
    expect(bugBlocks('blocks #12', attempt('solved', 'blocked'), open)).toEqual([12]);
    expect(bugBlocks('blocks #12', attempt(undefined, 'blocked'), open)).toEqual([12]);
    expect(bugBlocks('blocks #12', attempt('unsolved', 'partial — blocked on CI'), open)).toEqual([12]);
    expect(bugBlocks('blocks #12', attempt('unsolved', undefined), open)).toEqual([12]);
    expect(bugBlocks('a typo', attempt('unsolved', 'blocked', 40), open)).toEqual([]);
  });
});
