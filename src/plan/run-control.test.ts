import { describe, expect, it } from 'vitest';
import type { RunProgress, RunRecord } from '../store/run-store.ts';
import { gatesAfterResume, runControlOf } from './run-control.ts';

const run = (state: RunRecord['state'], progress: RunProgress = {}) => ({ state, progress });

describe('gatesAfterResume', () => {
  it('clears the red build, smoke and ship that blocked the run, and their counts', () => {
    expect(
      gatesAfterResume({
        build: { status: 'failed', covers: ['acme/app#1'], failures: 3, tail: 'x' },
        smoke: 'failed',
        smokeGate: { failures: 3, tail: 'y' },
        ship: { status: 'failed', path: 'deploy', reasons: ['r'] },
      }),
    ).toEqual({
      build: { status: 'none', covers: [], failures: 0 },
      smoke: 'none',
      smokeGate: { failures: 0 },
      ship: undefined,
    });
  });

  it('runs again a check that passed only because no command was configured (one may be now)', () => {
    expect(
      gatesAfterResume({
        build: { status: 'passed', covers: [], failures: 0, notConfigured: true },
        smoke: 'passed',
        smokeGate: { failures: 0, notConfigured: true },
      }),
    ).toEqual({
      build: { status: 'none', covers: [], failures: 0 },
      smoke: 'none',
      smokeGate: { failures: 0 },
    });
  });

  it('leaves green or running gates alone', () => {
    expect(
      gatesAfterResume({ build: { status: 'passed', covers: [], failures: 0 }, smoke: 'running' }),
    ).toEqual({});
  });
});

describe('runControlOf', () => {
  it('pauses a working run, remembering the state it left; a paused run is left as it is', () => {
    expect(runControlOf(run('gating', { wave: 2 }), 'pause')).toEqual({
      outcome: 'paused',
      patch: { state: 'paused', progress: { wave: 2, pausedFrom: 'gating' } },
    });
    expect(runControlOf(run('paused'), 'pause')).toEqual({ outcome: 'paused' });
  });

  it('resumes a paused run where its pause came from, and a blocked one with its red gates cleared', () => {
    expect(runControlOf(run('paused', { pausedFrom: 'gating', wave: 2 }), 'resume')).toEqual({
      outcome: 'resumed',
      patch: { state: 'gating', progress: { wave: 2 } },
    });
    expect(runControlOf(run('paused'), 'resume')).toEqual({
      outcome: 'resumed',
      patch: { state: 'running', progress: {} },
    });
    const red = { build: { status: 'failed' as const, covers: [], failures: 2 }, wave: 3 };
    expect(runControlOf(run('blocked', red), 'resume')).toEqual({
      outcome: 'resumed',
      patch: { state: 'running', progress: { wave: 3, build: { status: 'none', covers: [], failures: 0 } } },
    });
    expect(runControlOf(run('running'), 'resume')).toEqual({ outcome: 'resumed' });
  });

  it('does not pause a blocked run (the table has no blocked → paused), nor touch a run that ended', () => {
    expect(runControlOf(run('blocked', { reason: 'red' }), 'pause')).toEqual({ outcome: 'blocked' });
    for (const end of ['done', 'cancelled'] as const)
      for (const action of ['pause', 'resume', 'cancel'] as const)
        expect(runControlOf(run(end), action)).toEqual({ outcome: 'ended' });
  });

  it('pauses a run waiting on an unclear review to resume into running (the next pass asks again)', () => {
    expect(runControlOf(run('review_unclear'), 'pause')).toEqual({
      outcome: 'paused',
      patch: { state: 'paused', progress: { pausedFrom: 'running' } },
    });
  });

  it('does not take a resume for an answer to an unclear integration review', () => {
    expect(runControlOf(run('review_unclear'), 'resume')).toEqual({ outcome: 'review_unclear' });
  });

  it('cancels whatever the state, saying a person did', () => {
    expect(runControlOf(run('blocked', { wave: 1 }), 'cancel')).toEqual({
      outcome: 'cancelled',
      patch: { state: 'cancelled', progress: { wave: 1, reason: 'cancelled by a person' } },
    });
  });
});
