import { describe, expect, it } from 'vitest';
import { baseSnapshot, issue, k, progressOf } from '../../test/support/plan-arbitraries.ts';
import { nextActions } from './next-actions.ts';
import type { Action, RunSnapshot } from './snapshot.ts';
import { planLabels } from './types.ts';

const types = (xs: Action[]) => xs.map((a) => (a.type === 'stop' ? `stop:${a.state}` : a.type));
const ofType = <T extends Action['type']>(xs: Action[], t: T) =>
  xs.filter((a): a is Extract<Action, { type: T }> => a.type === t);

const sha = 'abc1234'.padEnd(40, '0');
const merged = (n: number) =>
  progressOf(k(n), { state: 'merged', pr: { number: n, merged: true }, reviewPosted: true });
/** Two merged issues whose build stayed red after the honest attempts. */
const redBuild = (over: Partial<RunSnapshot> = {}) =>
  baseSnapshot([issue(1), issue(2)], {
    progress: [merged(1), merged(2)],
    build: { status: 'failed', covers: [k(1), k(2)], failures: 3, sha },
    ...over,
  });
/** Every issue closed, the build green, the smoke red past its allowance. */
const redSmoke = (over: Partial<RunSnapshot> = {}) =>
  baseSnapshot([issue(1, { state: 'closed' })], {
    build: { status: 'passed', covers: [], failures: 0, sha },
    smoke: 'failed',
    smokeGate: { configured: true, failures: 3, maxFailures: 3, sha },
    ...over,
  });

describe('nextActions: the blocker issue of a red gate (seed 000 §8, B55)', () => {
  it('a red build that stops the run files one blocker issue, blocking the merges it holds up', () => {
    const got = nextActions('integrating', redBuild());
    expect(types(got)).toEqual(['notify', 'file_gate_blocker', 'stop:blocked']);
    expect(ofType(got, 'file_gate_blocker')[0]).toEqual({
      type: 'file_gate_blocker',
      cause: 'build',
      reason: 'the build failed 3 times in a row on the integration branch',
      command: '/blitz resume',
      blocks: [k(1), k(2)],
      sha,
    });
  });

  it('a red smoke or a failed ship at the gate files one too, blocking nothing left open', () => {
    const smoke = ofType(nextActions('gating', redSmoke()), 'file_gate_blocker')[0];
    expect(smoke).toMatchObject({ cause: 'smoke', blocks: [], sha });
    const ship = nextActions('shipping', redSmoke({ smoke: 'passed', ship: 'failed' }));
    expect(types(ship)).toEqual(['notify', 'file_gate_blocker', 'stop:blocked']);
    expect(ofType(ship, 'file_gate_blocker')[0]).toMatchObject({ cause: 'ship', blocks: [] });
  });

  it('files nothing more while the run keeps its blocker issue for that gate', () => {
    const kept = redBuild({ gateBlocker: { cause: 'build', issue: k(9) } });
    expect(types(nextActions('integrating', kept))).not.toContain('file_gate_blocker');
    // Blocked already with the same reason: nothing at all is written again.
    const again = { ...kept, stopCause: { kind: 'gate_red', gate: 'build', failures: 3 } as const };
    expect(types(nextActions('blocked', again))).toEqual(['notify']);
  });

  it('a blocker whose filing did not finish is filed on the next blocked pass, the stop not repeated', () => {
    const snap = redBuild({
      gateBlocker: { cause: 'build' },
      stopCause: { kind: 'gate_red', gate: 'build', failures: 3 },
    });
    expect(types(nextActions('blocked', snap))).toEqual(['notify', 'file_gate_blocker']);
  });

  it('a stop that is not a red gate files no blocker issue', () => {
    const stuck = baseSnapshot([issue(1, { labels: [{ name: planLabels.hold }] })]);
    const got = nextActions('running', stuck);
    expect(types(got)).toContain('stop:blocked');
    expect(types(got)).not.toContain('file_gate_blocker');
  });

  it('closes the blocker issue first once its gate is green again, and the run goes on', () => {
    const green = redBuild({
      gateBlocker: { cause: 'build', issue: k(9) },
      build: { status: 'passed', covers: [k(1), k(2)], failures: 0, sha: 'd'.repeat(40) },
    });
    const got = nextActions('running', green);
    expect(got[0]).toEqual({ type: 'close_gate_blocker', cause: 'build', issue: k(9), sha: 'd'.repeat(40) });
    expect(ofType(got, 'close_issue').map((a) => a.issue)).toEqual([k(1), k(2)]);
    // Still red: it stays open.
    expect(
      types(nextActions('blocked', redBuild({ gateBlocker: { cause: 'build', issue: k(9) } }))),
    ).not.toContain('close_gate_blocker');
  });

  it("the run's own blocker issue, held in the milestone, is never dispatched and holds no gate up", () => {
    const blocker = issue(9, { labels: [{ name: planLabels.hold }] });
    const snap = baseSnapshot([issue(1, { state: 'closed' }), blocker], {
      gateBlocker: { cause: 'smoke', issue: k(9) },
      build: { status: 'passed', covers: [], failures: 0, sha },
    });
    const got = nextActions('blocked', snap);
    expect(types(got)).toContain('run_smoke');
    expect(ofType(got, 'dispatch')).toEqual([]);
    // Without it the held issue stops the run: the test can fail.
    expect(types(nextActions('running', { ...snap, gateBlocker: undefined }))).not.toContain('run_smoke');
  });
});
