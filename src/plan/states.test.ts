import { describe, expect, it } from 'vitest';
import { isAppError } from '../errors.ts';
import { canTransitionIssue, canTransitionRun, transitionIssue, transitionRun } from './states.ts';

describe('run state machine', () => {
  it('walks the happy path', () => {
    const path = ['planning', 'running', 'integrating', 'gating', 'shipping', 'done'] as const;
    for (let i = 1; i < path.length; i++) expect(transitionRun(path[i - 1]!, path[i]!)).toBe(path[i]);
  });
  it('refuses to leave a terminal state or skip to shipping', () => {
    expect(canTransitionRun('done', 'running')).toBe(false);
    expect(canTransitionRun('cancelled', 'planning')).toBe(false);
    expect(canTransitionRun('planning', 'shipping')).toBe(false);
    try {
      transitionRun('done', 'running');
      expect.unreachable();
    } catch (err) {
      expect(isAppError(err, 'conflict')).toBe(true);
    }
  });
  it('an unclear integration review waits for a person, then runs on or is cancelled', () => {
    expect(canTransitionRun('gating', 'review_unclear')).toBe(true);
    expect(canTransitionRun('running', 'review_unclear')).toBe(true);
    expect(canTransitionRun('review_unclear', 'running')).toBe(true);
    expect(canTransitionRun('review_unclear', 'cancelled')).toBe(true);
    expect(canTransitionRun('review_unclear', 'shipping')).toBe(false);
    expect(canTransitionRun('review_unclear', 'done')).toBe(false);
  });
});

describe('run-issue state machine', () => {
  it('walks the happy path', () => {
    const path = [
      'blocked',
      'ready',
      'dispatched',
      'working',
      'pushed',
      'pr_open',
      'reviewed',
      'merged',
      'closed',
    ] as const;
    for (let i = 1; i < path.length; i++) expect(transitionIssue(path[i - 1]!, path[i]!)).toBe(path[i]);
  });
  it('a failed build bounces a merged issue back to ready, a stall can resume', () => {
    expect(canTransitionIssue('merged', 'bounced')).toBe(true);
    expect(canTransitionIssue('bounced', 'ready')).toBe(true);
    expect(canTransitionIssue('stalled', 'working')).toBe(true);
  });
  it('refuses illegal moves with a conflict error', () => {
    expect(canTransitionIssue('blocked', 'dispatched')).toBe(false);
    expect(canTransitionIssue('closed', 'ready')).toBe(false);
    expect(() => transitionIssue('ready', 'merged')).toThrow('cannot go from ready to merged');
  });
});
