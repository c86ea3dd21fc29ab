import { describe, expect, it } from 'vitest';
import { issue, k } from '../../test/support/plan-arbitraries.ts';
import { parentsClosableBy } from './epics.ts';

describe('parentsClosableBy (close on merge)', () => {
  const epic = issue(10, { title: 'Epic: checkout', blockedBy: [k(1), k(2)] });

  it('closes an epic whose last open child just closed', () => {
    // #1 closed outside the open list; #2 is the child that just closed.
    expect(parentsClosableBy([epic], [{ key: k(1), state: 'closed' }], k(2))).toEqual([k(10)]);
  });

  it('keeps it open while another child is open or unknown', () => {
    expect(parentsClosableBy([epic, issue(1)], [], k(2))).toEqual([]);
    expect(parentsClosableBy([epic], [{ key: k(1), state: 'unknown' }], k(2))).toEqual([]);
    expect(parentsClosableBy([epic], [], k(2))).toEqual([]);
  });

  it('only epics that list the child, and only epics', () => {
    expect(parentsClosableBy([epic], [{ key: k(1), state: 'closed' }], k(3))).toEqual([]);
    const plain = issue(11, { title: 'Checkout page', blockedBy: [k(2)] });
    expect(parentsClosableBy([plain], [], k(2))).toEqual([]);
    const withSubIssues = issue(12, { title: 'Tracking', children: [k(2)] });
    expect(parentsClosableBy([withSubIssues], [], k(2))).toEqual([k(12)]);
  });
});
