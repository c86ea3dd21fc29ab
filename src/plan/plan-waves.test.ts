import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseSnapshot, graphArb, issue, k } from '../../test/support/plan-arbitraries.ts';
import { nextActions } from './next-actions.ts';
import type { MemberRead } from './plan-member.ts';
import { maxWaveSize, planRunEnd } from './plan-waves.ts';
import type { Action, RunSnapshot } from './snapshot.ts';
import { isTerminalRunState } from './states.ts';
import type { PlanIssue } from './types.ts';

const plan = (issues: PlanIssue[], over: Partial<RunSnapshot> = {}) =>
  baseSnapshot(issues, { kind: 'plan', options: { maxSessions: 2, dryRun: false, maxWaves: 3 }, ...over });
const approved = { labels: [{ name: 'plan/approved' }] };
const draft = { labels: [{ name: 'plan/draft' }] };
const types = (xs: Action[]) => xs.map((a) => (a.type === 'stop' ? `stop:${a.state}` : a.type));
const one = <T extends Action['type']>(xs: Action[], t: T) => {
  const found = xs.filter((a): a is Extract<Action, { type: T }> => a.type === t);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const wave = (snap: RunSnapshot) => one(nextActions('running', snap), 'start_wave');
const stopOf = (snap: RunSnapshot) => one(nextActions('running', snap), 'stop');

describe('plan-blitz waves (nextActions, kind plan)', () => {
  it('does not plan an issue whose blocker has only a draft plan, and plans it once the blocker is approved', () => {
    const chain = (first: Partial<PlanIssue>) => [issue(1, first), issue(2, { blockedBy: [k(1)] })];
    expect(wave(plan(chain(draft))).members).toEqual([k(1)]);
    expect(wave(plan(chain(approved))).members).toEqual([k(2)]);
  });

  it('takes at most eight issues per wave, whatever the worker limit', () => {
    const many = Array.from({ length: 11 }, (_, i) => issue(i + 1));
    expect(wave(plan(many)).members).toHaveLength(maxWaveSize);
  });

  it('reports a cycle, leaves its members and their dependents out, and plans the rest', () => {
    const got = nextActions(
      'running',
      plan([
        issue(1, { blockedBy: [k(2)] }),
        issue(2, { blockedBy: [k(1)] }),
        issue(3, { blockedBy: [k(1)] }),
        issue(4),
      ]),
    );
    expect(types(got)).toEqual(['report_cycle', 'start_wave']);
    expect(one(got, 'report_cycle').members).toEqual([k(1), k(2)]);
    expect(one(got, 'start_wave').members).toEqual([k(4)]);
    // The wave (or the stop) says which cycles the run leaves out now: its dashboard lists those.
    expect(one(got, 'start_wave').cycles).toEqual([[k(1), k(2)]]);
    const stuck = nextActions(
      'running',
      plan([issue(1, { blockedBy: [k(2)] }), issue(2, { blockedBy: [k(1)] })]),
    );
    expect(one(stuck, 'stop').cycles).toEqual([[k(1), k(2)]]);
    expect(one(nextActions('running', plan([issue(4)])), 'start_wave').cycles).toEqual([]);
  });

  it('skips held issues and lists them with the reason', () => {
    const held = issue(1, { labels: [{ name: 'hold', description: 'waiting on legal' }] });
    const w = wave(plan([held, issue(2)]));
    expect(w.held).toEqual([{ key: k(1), reason: 'waiting on legal' }]);
    expect(w.members).toEqual([k(2)]);
  });

  it('keeps an issue that is not a candidate as a blocker, never as a member', () => {
    const issues = [issue(1), issue(2, { blockedBy: [k(1)] })];
    // #1 is not targeted, and #2 still waits for it: leaving #1 out satisfies no gate.
    expect(stopOf(plan(issues, { planRun: { targets: [k(2)], finished: [] } }))).toMatchObject({
      state: 'done',
      reason: 'the next wave is empty',
    });
    // Landed in an earlier wave, or execution-ready: likewise.
    expect(stopOf(plan(issues, { planRun: { finished: [k(1)] } })).reason).toBe('the next wave is empty');
    const ready = [issue(1, { labels: [{ name: 'plan/ready' }] }), issue(3)];
    expect(wave(plan(ready)).members).toEqual([k(3)]);
  });

  it('stops after a wave that approved, readied and closed nothing, and says what is left', () => {
    const s = stopOf(
      plan([issue(1)], { waves: { completed: 1, last: { approved: 0, executionReady: 0, closed: 0 } } }),
    );
    expect(s).toMatchObject({ state: 'blocked', reason: 'wave 1 approved, readied and closed nothing' });
    expect(s.remaining).toEqual(['#1 can be planned by another `/plan-blitz`']);
  });

  it('an all-S wave that readied issues does not stop the run', () => {
    const snap = plan([issue(1)], {
      waves: { completed: 1, last: { approved: 0, executionReady: 2, closed: 0 } },
    });
    expect(wave(snap).members).toEqual([k(1)]);
  });

  it('stops when the waves are used up and names what is left', () => {
    const snap = plan([issue(1)], {
      waves: { completed: 3, last: { approved: 1, executionReady: 0, closed: 0 } },
    });
    expect(stopOf(snap)).toMatchObject({ state: 'done', reason: `waves exhausted; still to plan: ${k(1)}` });
  });

  it('a cycle left out turns a finished run into a blocked one, naming it', () => {
    const s = stopOf(plan([issue(1, { blockedBy: [k(2)] }), issue(2, { blockedBy: [k(1)] })]));
    expect(s).toMatchObject({
      state: 'blocked',
      reason: 'the next wave is empty; cycle not planned: #1 ↔ #2',
    });
  });

  it('parks when the budget probe allows no session', () => {
    const park = { verdict: 'park' as const, recommendedMaxSessions: 0, preferMedium: false };
    expect(stopOf(plan([issue(1)], { budget: park })).state).toBe('paused');
  });

  it('a budget park says when the probe said the limit lifts, and that the run goes on by itself', () => {
    const resetAt = '2026-12-04T06:20:00.000Z';
    const park = { verdict: 'park' as const, recommendedMaxSessions: 0, preferMedium: false, resetAt };
    expect(stopOf(plan([issue(1)], { budget: park }))).toMatchObject({
      state: 'paused',
      cause: { kind: 'budget_park' },
      reason:
        'the budget probe says park until 2026-12-04 06:20 UTC; the run goes on by itself once the probe allows work',
    });
    const { resetAt: _r, ...unnamed } = park;
    expect(stopOf(plan([issue(1)], { budget: unnamed })).reason).toBe(
      'the budget probe says park; the run goes on by itself once the probe allows work',
    );
  });

  it('a dry run posts the first wave and the holds, then stops done', () => {
    const held = issue(1, { labels: [{ name: 'hold', description: 'legal' }] });
    const got = nextActions(
      'running',
      plan([held, issue(2), issue(3, { blockedBy: [k(2)] })], {
        options: { maxSessions: 2, dryRun: true, maxWaves: 3 },
      }),
    );
    expect(types(got)).toEqual(['post_plan', 'stop:done']);
    const p = one(got, 'post_plan');
    expect(p.wave).toEqual([k(2)]);
    expect(p.held).toEqual([{ key: k(1), reason: 'legal' }]);
    expect(p.explanations.join(' ')).toContain(k(3));
  });

  it('with a wave in flight, steps the members not landed, and lands the wave once all have', () => {
    const read = (n: number): MemberRead => ({
      key: k(n),
      open: true,
      size: 'S',
      state: 'queued',
      attempts: [],
      dispatches: 0,
      firstTries: 0,
    });
    const inFlight = (landed: string[]) =>
      plan([issue(1), issue(2)], {
        planRun: {
          finished: [],
          wave: { members: [k(1), k(2)], landed, facts: [read(1), read(2)] },
          sessions: { limit: 2, running: 0, runnerRetries: 0 },
        },
      });
    expect(nextActions('running', inFlight([k(1)]))).toEqual([
      {
        type: 'advance_member',
        issue: k(2),
        facts: { ...read(2), executionOpen: true },
        ops: [
          { op: 'enter', phase: 'planning' },
          { op: 'attempt', phase: 'planning' },
        ],
      },
    ]);
    expect(nextActions('running', inFlight([k(1), k(2)]))).toEqual([{ type: 'land_wave' }]);
  });

  it('starts members in wave order while slots are free, none while the forge is spent', () => {
    const read = (n: number): MemberRead => ({
      key: k(n),
      open: true,
      state: 'queued',
      attempts: [],
      dispatches: 0,
      firstTries: 0,
    });
    const inFlight = (running: number, over: Partial<RunSnapshot> = {}) =>
      plan([issue(1), issue(2), issue(3)], {
        planRun: {
          finished: [],
          wave: { members: [k(1), k(2), k(3)], landed: [], facts: [read(1), read(2), read(3)] },
          sessions: { limit: 2, running, runnerRetries: 0 },
        },
        ...over,
      });
    const started = (snap: RunSnapshot) =>
      nextActions('running', snap).flatMap((a) => (a.type === 'advance_member' ? [a.issue] : []));
    expect(started(inFlight(0))).toEqual([k(1), k(2)]);
    expect(started(inFlight(1))).toEqual([k(1)]);
    expect(started(inFlight(2))).toEqual([]);
    expect(started(inFlight(0, { forgeSpent: true }))).toEqual([]);
  });

  it('enters running from planning first, and does nothing while paused', () => {
    expect(types(nextActions('planning', plan([issue(1)])))).toEqual(['set_state', 'start_wave']);
    expect(nextActions('paused', plan([issue(1)]))).toEqual([]);
  });

  it('a wave is at most eight open issues the run may plan, never a finished one, and it is chosen or the run stops', () => {
    fc.assert(
      fc.property(graphArb({ dag: false }), fc.array(fc.integer({ min: 1, max: 12 })), (issues, done) => {
        const finished = done.map(k);
        const got = nextActions('running', plan(issues, { planRun: { finished } }));
        const starts = got.filter((a) => a.type === 'start_wave');
        const stops = got.filter((a) => a.type === 'stop');
        expect(starts.length + stops.length).toBe(1);
        for (const s of starts) {
          expect(s.members.length).toBeGreaterThan(0);
          expect(s.members.length).toBeLessThanOrEqual(maxWaveSize);
          for (const m of s.members) {
            expect(finished).not.toContain(m);
            expect(issues.find((i) => k(i.number) === m)?.state).toBe('open');
          }
        }
      }),
    );
  });

  it('keeps a stop a person has to look at as done, saying blocked, and a budget park as paused', () => {
    expect(planRunEnd('blocked', 'wave 2 approved, readied and closed nothing')).toEqual({
      state: 'done',
      reason: 'blocked: wave 2 approved, readied and closed nothing',
      headline: 'stopped (a person has to look)',
    });
    expect(planRunEnd('done', 'the next wave is empty')).toEqual({
      state: 'done',
      reason: 'the next wave is empty',
      headline: 'finished',
    });
    expect(planRunEnd('paused', 'the budget probe says park')).toEqual({
      state: 'paused',
      reason: 'the budget probe says park',
      headline: 'paused',
    });
  });

  it('ends every stop a plan run reaches for good (never `blocked`), but a budget park', () => {
    fc.assert(
      fc.property(graphArb({ dag: false }), fc.integer({ min: 0, max: 3 }), (issues, completed) => {
        const snap = plan(issues, {
          waves: { completed, last: { approved: 0, executionReady: 0, closed: 0 } },
        });
        for (const a of nextActions('running', snap)) {
          if (a.type !== 'stop') continue;
          const end = planRunEnd(a.state, a.reason);
          expect(isTerminalRunState(end.state)).toBe(a.state !== 'paused');
          expect(end.reason.startsWith('blocked: ')).toBe(a.state === 'blocked');
        }
      }),
    );
  });
});
