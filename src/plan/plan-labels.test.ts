import { describe, expect, it } from 'vitest';
import { issue } from '../../test/support/plan-arbitraries.ts';
import { holdUnplanned, parsePlanSize, planBody, sizeOf, unplannedLine } from './plan-labels.ts';

const labelled = (...names: string[]) => issue(1, { labels: names.map((name) => ({ name })) });

describe('sizes', () => {
  it('reads the size label, case-insensitively, the largest when there are two', () => {
    expect(sizeOf(labelled('size/xs'))).toBe('XS');
    expect(sizeOf(labelled('size/S', 'size/L'))).toBe('L');
    expect(sizeOf(labelled('bug'))).toBeUndefined();
  });

  it('reads the SIZE line a sizing planner writes, and leaves it out of the plan shown', () => {
    expect(parsePlanSize('SIZE: M\n\n# Plan')).toBe('M');
    expect(parsePlanSize('size: xs\n1. edit')).toBe('XS');
    expect(parsePlanSize('SIZE: XL\n# Plan')).toBeUndefined();
    expect(parsePlanSize('# Plan without a size')).toBeUndefined();
    expect(planBody('SIZE: S\n\n# Plan\n1. do it')).toBe('# Plan\n1. do it');
  });
});

describe('blitz over plans', () => {
  it('holds M and L issues without an approved plan, and leaves the others alone', () => {
    const out = holdUnplanned([
      issue(1, { labels: [{ name: 'size/M' }] }),
      issue(2, { labels: [{ name: 'size/L' }, { name: 'plan/approved' }] }),
      issue(3, { labels: [{ name: 'size/S' }] }),
      issue(4, { labels: [{ name: 'size/L' }, { name: 'hold', description: 'legal' }] }),
      issue(5),
    ]);
    expect(out.map((i) => i.labels.find((l) => l.name === 'hold')?.description)).toEqual([
      'needs an approved plan first (size M): run `/plan-blitz` on it',
      undefined,
      undefined,
      'legal',
      undefined,
    ]);
    expect(unplannedLine(out)).toContain('#1 (M) has no approved plan');
    expect(unplannedLine(out)).not.toContain('#4');
    expect(unplannedLine([issue(9)])).toBeUndefined();
  });
});
