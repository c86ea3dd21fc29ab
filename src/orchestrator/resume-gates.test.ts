import { describe, expect, it } from 'vitest';
import { gatesAfterResume } from './resume-gates.ts';

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

  it('leaves green or running gates alone', () => {
    expect(
      gatesAfterResume({ build: { status: 'passed', covers: [], failures: 0 }, smoke: 'running' }),
    ).toEqual({});
  });
});
