import { describe, expect, it } from 'vitest';
import { decideExit, decideStopped, type ExitFacts } from './attempt-exit.ts';

const facts = (over: Partial<ExitFacts> = {}): ExitFacts => ({
  exit: { exitCode: 0 },
  canResume: true,
  branchMoved: true,
  markers: [],
  nudges: 0,
  maxNudges: 2,
  worktree: '/w/acme/app/issue-1',
  ...over,
});

describe('decideExit', () => {
  it('resumes a worker that vanished without an exit file, or ends it unsolved when it cannot resume', () => {
    expect(decideExit(facts({ exit: undefined }))).toEqual({ kind: 'resume' });
    expect(decideExit(facts({ exit: undefined, canResume: false }))).toMatchObject({
      kind: 'finish',
      outcome: 'unsolved',
      withExit: false,
    });
  });

  it('nudges a clean exit that pushed nothing, until the nudges are spent', () => {
    expect(decideExit(facts({ branchMoved: false }))).toEqual({ kind: 'nudge' });
    expect(decideExit(facts({ branchMoved: false, nudges: 2 }))).toEqual({
      kind: 'stalled',
      summary: 'Stalled after 2 nudge(s); a person has to look at /w/acme/app/issue-1.',
    });
    expect(decideStopped(facts({ canResume: false }))).toMatchObject({ kind: 'stalled' });
  });

  it('never calls a branch with conflict markers solved', () => {
    expect(decideExit(facts({ markers: ['src/a.ts'] }))).toEqual({
      kind: 'finish',
      outcome: 'unsolved',
      summary: 'Conflict markers left in src/a.ts.',
      withExit: true,
    });
  });

  it('leaves any other exit to the classification', () => {
    expect(decideExit(facts())).toEqual({ kind: 'classify' });
    expect(decideExit(facts({ exit: { exitCode: 1 }, branchMoved: false }))).toEqual({ kind: 'classify' });
    // Markers only count on a clean exit.
    expect(decideExit(facts({ exit: { exitCode: 1 }, markers: ['x'] }))).toEqual({ kind: 'classify' });
  });
});
