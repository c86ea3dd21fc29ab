import { describe, expect, it } from 'vitest';
import { baseSnapshot, issue, k } from '../../../test/support/plan-arbitraries.ts';
import type { RunSnapshot } from '../../plan/snapshot.ts';
import type { PlanIssue } from '../../plan/types.ts';
import { decideWave, maxWaveSize, withExcluded } from './plan-wave.ts';

const plan = (issues: PlanIssue[], over: Partial<RunSnapshot> = {}) =>
  baseSnapshot(issues, { kind: 'plan', options: { maxSessions: 2, dryRun: false, maxWaves: 3 }, ...over });
const approved = { labels: [{ name: 'plan/approved' }] };
const draft = { labels: [{ name: 'plan/draft' }] };
const members = (d: ReturnType<typeof decideWave>) => (d.next.kind === 'wave' ? d.next.members : d.next);

describe('decideWave', () => {
  it('does not plan an issue whose blocker has only a draft plan, and plans it once the blocker is approved', () => {
    const chain = (first: Partial<PlanIssue>) => [issue(1, first), issue(2, { blockedBy: [k(1)] })];
    expect(members(decideWave(plan(chain(draft))))).toEqual([k(1)]);
    expect(members(decideWave(plan(chain(approved))))).toEqual([k(2)]);
  });

  it('takes at most eight issues per wave, whatever the worker limit', () => {
    const many = Array.from({ length: 11 }, (_, i) => issue(i + 1));
    expect(members(decideWave(plan(many)))).toHaveLength(maxWaveSize);
  });

  it('reports a cycle, leaves its members and their dependents out, and plans the rest', () => {
    const d = decideWave(
      plan([
        issue(1, { blockedBy: [k(2)] }),
        issue(2, { blockedBy: [k(1)] }),
        issue(3, { blockedBy: [k(1)] }),
        issue(4),
      ]),
    );
    expect(d.cycles).toEqual([[k(1), k(2)]]);
    expect(members(d)).toEqual([k(4)]);
    expect(d.waiting.join(' ')).toContain(k(3));
  });

  it('skips held issues and lists them with the reason', () => {
    const held = issue(1, { labels: [{ name: 'hold', description: 'waiting on legal' }] });
    const d = decideWave(plan([held, issue(2)]));
    expect(d.held).toEqual([{ key: k(1), reason: 'waiting on legal' }]);
    expect(members(d)).toEqual([k(2)]);
  });

  it('keeps an excluded issue as a blocker but never as a candidate', () => {
    const snap = withExcluded(plan([issue(1), issue(2, { blockedBy: [k(1)] })]), new Set([k(1)]));
    // #1 is not planned (not targeted), and #2 still waits for it: exclusion satisfies no gate.
    expect(members(decideWave(snap))).toEqual({
      kind: 'stop',
      state: 'done',
      reason: 'the next wave is empty',
    });
  });

  it('stops after a wave that approved, readied and closed nothing', () => {
    const d = decideWave(
      plan([issue(1)], { waves: { completed: 1, last: { approved: 0, executionReady: 0, closed: 0 } } }),
    );
    expect(d.next).toEqual({
      kind: 'stop',
      state: 'blocked',
      reason: 'wave 1 approved, readied and closed nothing',
    });
  });

  it('an all-S wave that readied issues does not stop the run', () => {
    const d = decideWave(
      plan([issue(1)], { waves: { completed: 1, last: { approved: 0, executionReady: 2, closed: 0 } } }),
    );
    expect(members(d)).toEqual([k(1)]);
  });

  it('stops when the waves are used up and names what is left', () => {
    const d = decideWave(
      plan([issue(1)], { waves: { completed: 3, last: { approved: 1, executionReady: 0, closed: 0 } } }),
    );
    expect(d.next).toEqual({
      kind: 'stop',
      state: 'done',
      reason: `waves exhausted; still to plan: ${k(1)}`,
    });
  });
});
