import { describe, expect, it } from 'vitest';
import { openingReports } from './opening-reports.ts';
import type { ProgressReport } from './types.ts';

const waiting: ProgressReport = { state: 'in_progress', title: 'CI green', summary: '', waiting: true };

describe('openingReports', () => {
  it('leaves only the first waiting report after an opening one unsent, per head', () => {
    const o = openingReports();
    expect(o.send('a', waiting)).toBe(true);
    o.sent('a', 'in_progress');
    expect(o.send('a', waiting)).toBe(true);
    o.sent('a', 'queued');
    o.sent('b', 'queued');
    expect(o.send('a', waiting)).toBe(false);
    expect(o.send('a', waiting)).toBe(true);
    expect(o.send('b', { ...waiting, waiting: false })).toBe(true);
    expect(o.send('b', waiting)).toBe(true);
  });

  it('forgets the oldest head past its bound', () => {
    const o = openingReports(2);
    for (const head of ['a', 'b', 'c']) o.sent(head, 'queued');
    expect(o.send('a', waiting)).toBe(true);
    expect(o.send('b', waiting)).toBe(false);
    expect(o.send('c', waiting)).toBe(false);
  });
});
