import { describe, expect, it } from 'vitest';
import { blockedNumbersOf } from './file-findings.ts';

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
