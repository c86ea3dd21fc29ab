import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blitzBranchName,
  fleetBranchName,
  isSafeBranchName,
  slugify,
  worktreeDirName,
} from './branch-names.ts';

describe('branch names from hostile titles', () => {
  it('drops shell metacharacters from a title of `; rm -rf /`', () => {
    expect(blitzBranchName('m1', 7, '; rm -rf /')).toBe('m1/7-rm-rf');
  });

  it('cannot climb directories with a title of `../../etc`', () => {
    const b = blitzBranchName('m1', 8, '../../etc');
    expect(b).toBe('m1/8-etc');
    expect(worktreeDirName(b)).not.toContain('.');
  });

  it('folds accents and drops other unicode', () => {
    expect(blitzBranchName('M1 Café', 3, 'Crème brûlée 🍮 für alle')).toBe('m1-cafe/3-creme-brulee-fur-alle');
  });

  it('keeps a 500-character title to at most 60 characters', () => {
    const b = blitzBranchName('milestone-one', 12345, 'word '.repeat(100));
    expect(b.length).toBeLessThanOrEqual(60);
    expect(isSafeBranchName(b)).toBe(true);
  });

  it('falls back to the issue number for a title of only punctuation', () => {
    expect(blitzBranchName('m1', 9, '!!! ... @{} ???')).toBe('m1/9');
  });

  it('names fleet branches ticket/<n>-headless', () => {
    expect(fleetBranchName(42)).toBe('ticket/42-headless');
  });

  it('never ends in .lock, never holds .. or @{ and never starts with -', () => {
    expect(isSafeBranchName('a/b.lock')).toBe(false);
    expect(isSafeBranchName('a..b')).toBe(false);
    expect(isSafeBranchName('a@{b')).toBe(false);
    expect(isSafeBranchName('-a')).toBe(false);
    fc.assert(
      fc.property(
        fc.string({ maxLength: 600 }),
        fc.string({ maxLength: 40 }),
        fc.nat(10 ** 6),
        (title, run, n) => {
          const b = blitzBranchName(run, n + 1, title);
          return isSafeBranchName(b) && b.length <= 60;
        },
      ),
    );
  });

  it('slugify gives lowercase ascii words', () => {
    expect(slugify('Hello, World!')).toBe('hello-world');
  });
});
