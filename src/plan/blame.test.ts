import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blameStep } from './blame.ts';

/** Runs blameStep to its answer against a world where the builds at `redFrom` and later are red. */
const blame = (covers: { key: string; sha?: string }[], isRed: (sha: string) => boolean) => {
  const red = new Map<string, boolean>();
  const built: string[] = [];
  for (;;) {
    const s = blameStep(covers, red);
    if (s.kind === 'found') return { responsible: s.responsible, built };
    built.push(s.sha);
    red.set(s.sha, isRed(s.sha));
  }
};

describe('blameStep', () => {
  it('names a single merge without building', () => {
    expect(blame([{ key: 'a#1', sha: 's1' }], () => true)).toEqual({ responsible: 'a#1', built: [] });
    expect(blame([], () => true)).toEqual({ responsible: undefined, built: [] });
  });

  it('builds in merge order and stops at the first red merge', () => {
    const covers = [
      { key: 'a#1', sha: 's1' },
      { key: 'a#2', sha: 's2' },
      { key: 'a#3', sha: 's3' },
    ];
    expect(blame(covers, (s) => s !== 's1')).toEqual({ responsible: 'a#2', built: ['s1', 's2'] });
  });

  it('names none when every merge builds green, and skips merges without a commit', () => {
    const covers = [{ key: 'a#1' }, { key: 'a#2', sha: 's2' }];
    expect(blame(covers, () => false)).toEqual({ responsible: undefined, built: ['s2'] });
  });

  it('over any history: the answer is the first merge whose build is red, each commit built at most once', () => {
    const arb = fc.array(
      fc.record({ sha: fc.option(fc.constantFrom('s1', 's2', 's3', 's4')), red: fc.boolean() }),
      {
        minLength: 2,
        maxLength: 6,
      },
    );
    fc.assert(
      fc.property(arb, (xs) => {
        const covers = xs.map((x, i) => (x.sha ? { key: `a#${i}`, sha: x.sha } : { key: `a#${i}` }));
        // A commit's build is red when its first appearance says so.
        const redOf = new Map<string, boolean>();
        for (const x of xs) if (x.sha && !redOf.has(x.sha)) redOf.set(x.sha, x.red);
        const got = blame(covers, (s) => redOf.get(s)!);
        const first = covers.find((c) => c.sha !== undefined && redOf.get(c.sha));
        expect(got.responsible).toBe(first?.key);
        expect(new Set(got.built).size).toBe(got.built.length);
      }),
    );
  });
});
