import { describe, expect, it } from 'vitest';
import { checkReadiness, type ReadinessIssue } from './readiness.ts';

const issue = (
  number: number,
  state: 'open' | 'closed',
  kind: 'workable' | 'epic' = 'workable',
): ReadinessIssue => ({
  number,
  title: `issue ${number}`,
  kind,
  state,
});
const allClosed = [issue(1, 'closed'), issue(2, 'closed'), issue(3, 'closed', 'epic')];
const green = { state: 'green', sha: 'abc1234def' } as const;

describe('checkReadiness', () => {
  it('is ready when every issue and epic is closed and build and smoke are green on the head', () => {
    expect(
      checkReadiness({ issues: allClosed, build: green, smoke: green, integrationHead: 'abc1234def' }),
    ).toEqual({
      ready: true,
    });
  });

  it('lists open workable issues and open epics separately', () => {
    const res = checkReadiness({
      issues: [issue(1, 'open'), issue(2, 'closed'), issue(4, 'open'), issue(3, 'open', 'epic')],
      build: green,
      smoke: green,
    });
    expect(res).toEqual({
      ready: false,
      unmet: ['2 workable issues still open: #1, #4', '1 epic still open: #3'],
    });
  });

  it('does not count a build that never ran as green', () => {
    const res = checkReadiness({ issues: allClosed, build: { state: 'not_run' }, smoke: green });
    expect(res).toEqual({ ready: false, unmet: ['build has not run on the integration branch yet'] });
  });

  it('does not count a build that was green on an older commit', () => {
    const res = checkReadiness({
      issues: allClosed,
      build: green,
      smoke: green,
      integrationHead: 'fff0000aaa',
    });
    expect(res.ready).toBe(false);
    expect(res.ready === false && res.unmet).toEqual([
      'build was green on abc1234, not on the current head fff0000: it must run again',
      'smoke was green on abc1234, not on the current head fff0000: it must run again',
    ]);
  });

  it('reports a red smoke with its detail, a running build, and a missing smoke command', () => {
    expect(
      checkReadiness({
        issues: allClosed,
        build: { state: 'running' },
        smoke: { state: 'red', detail: 'exit 1' },
      }),
    ).toEqual({ ready: false, unmet: ['build is still running', 'smoke is red: exit 1'] });
    expect(checkReadiness({ issues: allClosed, build: green, smoke: { state: 'not_configured' } })).toEqual({
      ready: false,
      unmet: ['no smoke command is configured (set `smoke:` in blitz.yml)'],
    });
  });

  it('shortens a long list of open issues', () => {
    const issues = Array.from({ length: 8 }, (_, i) => issue(i + 1, 'open'));
    const res = checkReadiness({ issues, build: green, smoke: green });
    expect(res.ready === false && res.unmet[0]).toBe(
      '8 workable issues still open: #1, #2, #3, #4, #5 and 3 more',
    );
  });
});
