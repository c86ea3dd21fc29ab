import { describe, expect, it } from 'vitest';
import { planRunEnd } from './plan-waves.ts';
import { activeRunStates, canTransitionRun, isTerminalRunState } from './states.ts';

describe('run state machine', () => {
  it('walks the happy path', () => {
    const path = ['planning', 'running', 'integrating', 'gating', 'shipping', 'done'] as const;
    for (let i = 1; i < path.length; i++) expect(canTransitionRun(path[i - 1]!, path[i]!)).toBe(true);
    expect(isTerminalRunState('done')).toBe(true);
    expect(isTerminalRunState('running')).toBe(false);
  });
  it('refuses to leave a terminal state or skip to shipping', () => {
    expect(canTransitionRun('done', 'running')).toBe(false);
    expect(canTransitionRun('cancelled', 'planning')).toBe(false);
    expect(canTransitionRun('planning', 'shipping')).toBe(false);
  });
  it('an unclear integration review waits for a person, then runs on or is cancelled', () => {
    expect(canTransitionRun('gating', 'review_unclear')).toBe(true);
    expect(canTransitionRun('running', 'review_unclear')).toBe(true);
    expect(canTransitionRun('review_unclear', 'running')).toBe(true);
    expect(canTransitionRun('review_unclear', 'cancelled')).toBe(true);
    expect(canTransitionRun('review_unclear', 'shipping')).toBe(false);
    expect(canTransitionRun('review_unclear', 'done')).toBe(false);
  });
  it('every working state may pause, and a paused run goes back to any of them; a blocked one never pauses', () => {
    for (const s of activeRunStates) {
      expect(canTransitionRun(s, 'paused')).toBe(true);
      expect(canTransitionRun('paused', s)).toBe(true);
    }
    expect(canTransitionRun('blocked', 'paused')).toBe(false);
    expect(canTransitionRun('paused', 'blocked')).toBe(false);
    expect(canTransitionRun('paused', 'review_unclear')).toBe(false);
    expect(canTransitionRun('gating', 'done')).toBe(false);
    // A blitz with no smoke check to gate ships straight from running.
    expect(canTransitionRun('running', 'shipping')).toBe(true);
  });
  it('a running plan run (or fleet) ends in the state planRunEnd keeps, done included', () => {
    for (const stop of ['done', 'blocked', 'paused'] as const)
      expect(canTransitionRun('running', planRunEnd(stop, 'why').state)).toBe(true);
  });
});
