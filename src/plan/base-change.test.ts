import { describe, expect, it } from 'vitest';
import {
  type BaseChangeView,
  baseChangeChecks,
  baseChangeMessage,
  baseChangesUnder,
  baseChangeTell,
} from './base-change.ts';

const a = 'o/r#1';
const b = 'o/r#2';
const c = 'o/r#3';
const view = (over: Partial<BaseChangeView> = {}): BaseChangeView => ({
  changes: [
    { issue: a, sha: 'aaaaaaa1', files: ['letters.txt', 'a.ts'], at: '2026-01-01T10:00:00.000Z' },
    { issue: c, sha: 'ccccccc3', files: ['c.ts'], at: '2026-01-01T11:00:00.000Z' },
  ],
  checked: {},
  since: { [b]: '2026-01-01T09:00:00.000Z' },
  ...over,
});

describe('the integration branch moving under an open PR', () => {
  it('compares an open PR with every merge since its work began, not its own', () => {
    expect(baseChangeChecks(view(), [{ key: b, pr: 12 }])).toEqual([
      { type: 'check_base_change', issue: b, pr: 12, shas: ['aaaaaaa1', 'ccccccc3'] },
    ]);
    expect(
      baseChangesUnder(view({ since: { [a]: '2026-01-01T09:00:00.000Z' } }), a).map((x) => x.sha),
    ).toEqual(['ccccccc3']);
  });

  it('leaves out merges from before its work began and merges it was already compared with', () => {
    expect(
      baseChangeChecks(view({ since: { [b]: '2026-01-01T10:30:00.000Z' } }), [{ key: b, pr: 12 }]),
    ).toEqual([{ type: 'check_base_change', issue: b, pr: 12, shas: ['ccccccc3'] }]);
    expect(
      baseChangeChecks(view({ checked: { [b]: ['aaaaaaa1', 'ccccccc3'] } }), [{ key: b, pr: 12 }]),
    ).toEqual([]);
    // No attempt known: nothing to compare with.
    expect(baseChangeChecks(view({ since: {} }), [{ key: b, pr: 12 }])).toEqual([]);
    expect(baseChangeChecks(undefined, [{ key: b, pr: 12 }])).toEqual([]);
  });

  it('tells only when both sides changed a file, naming the files and the merges that changed them', () => {
    const changes = view().changes;
    expect(baseChangeTell(changes, ['b.ts'])).toBeUndefined();
    expect(baseChangeTell(changes, ['letters.txt', 'b.ts', 'a.ts'])).toEqual({
      files: ['a.ts', 'letters.txt'],
      shas: ['aaaaaaa1'],
    });
    expect(baseChangeTell(changes, ['c.ts', 'a.ts'])).toEqual({
      files: ['a.ts', 'c.ts'],
      shas: ['aaaaaaa1', 'ccccccc3'],
    });
  });

  it("tells the session once per newest merge under it, naming the branch and the merges' commits", () => {
    const all = view().changes;
    const one = baseChangeMessage(all, { files: ['a.ts'], shas: ['aaaaaaa1'] }, 'blitz/m1');
    expect(one).toMatchObject({ id: -1, by: 'blitz-bot', kind: 'base_change', files: ['a.ts'] });
    expect(one.text).toContain('The integration branch `blitz/m1` changed a file you changed too');
    expect(one.text).toContain('(merge commit aaaaaaa): it is named');
    const two = baseChangeMessage(
      all,
      { files: ['a.ts', 'c.ts'], shas: ['aaaaaaa1', 'ccccccc3'] },
      'blitz/m1',
    );
    expect(two.id).toBe(-2);
    expect(two.text).toContain(
      'changed 2 files you changed too, under you (merge commit aaaaaaa, ccccccc): they are',
    );
  });
});
