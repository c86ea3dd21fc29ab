import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BuildFact,
  fleetMergeStep,
  type MergeAttempt,
  type MergeFacts,
  type MergePr,
  type MergeStep,
  maxConflictResumes,
} from './fleet-merge.ts';

const openPr = (over: Partial<MergePr> = {}): MergePr => ({
  merged: false,
  state: 'open',
  head: { ref: 'blitz/1', sha: 'h1' },
  base: { ref: 'main' },
  mergeState: 'clean',
  mergeable: true,
  ...over,
});
const solved: MergeAttempt = { outcome: 'solved', launchedAt: 't1', remote: false, conflictFiles: ['a.ts'] };
const facts = (over: Partial<MergeFacts> = {}): MergeFacts => ({
  requested: true,
  pr: openPr(),
  attempt: solved,
  ticket: { resolving: false, conflictResumes: 0 },
  ...over,
});
/** A worker resumed on a conflict that has finished since (its launchedAt moved on). */
const resolved = (over: Partial<MergeFacts> = {}): MergeFacts =>
  facts({ ticket: { resolving: true, resumeSentAt: 't0', conflictResumes: 1 }, ...over });

describe('a fleet merge’s next step (fleetMergeStep)', () => {
  it('does nothing without a person’s word, and reads the PR first with one', () => {
    expect(fleetMergeStep(facts({ requested: false }))).toEqual({ step: 'none' });
    expect(fleetMergeStep(facts({ pr: undefined }))).toEqual({ step: 'read', fact: 'pr' });
  });

  it('squashes a clean PR at the gated head, and waits for a head pushed since the gate read it', () => {
    expect(fleetMergeStep(facts({ gatedHead: 'h1' }))).toEqual({ step: 'squash' });
    expect(fleetMergeStep(facts())).toEqual({ step: 'squash' });
    expect(fleetMergeStep(facts({ gatedHead: 'h0' }))).toEqual({ step: 'none' });
    expect(fleetMergeStep(facts({ pr: openPr({ mergeable: null, mergeState: 'unknown' }) }))).toEqual({
      step: 'none',
    });
  });

  it('records a PR merged without the bot at its merge commit, and notes one closed unmerged', () => {
    expect(fleetMergeStep(facts({ pr: openPr({ merged: true, mergeCommitSha: 'm1' }) }))).toEqual({
      step: 'record_merged',
      sha: 'm1',
    });
    expect(fleetMergeStep(facts({ pr: openPr({ merged: true }) }))).toEqual({
      step: 'record_merged',
      sha: 'h1',
    });
    expect(fleetMergeStep(facts({ pr: openPr({ state: 'closed' }) }))).toEqual({
      step: 'note',
      note: 'the PR was closed without merging',
    });
  });

  it('updates a branch that is behind, and notes a merge the forge blocks', () => {
    expect(fleetMergeStep(facts({ pr: openPr({ mergeState: 'behind' }) }))).toEqual({
      step: 'update_branch',
      note: 'brought up to date with main',
    });
    expect(fleetMergeStep(facts({ pr: openPr({ mergeState: 'blocked' }) }))).toEqual({
      step: 'note',
      note: 'the forge blocks the merge (branch protection or required checks)',
    });
  });

  it('resumes the worker on a conflict up to the cap, then withdraws the merge for a person', () => {
    const dirty = openPr({ mergeState: 'dirty', mergeable: false });
    expect(fleetMergeStep(facts({ pr: dirty }))).toEqual({
      step: 'resume_worker',
      base: 'main',
      note: 'conflicts with main: its worker is merging `main` in (try 1 of 2)',
    });
    const withdraw = {
      step: 'withdraw',
      note: 'still conflicts with main; a person has to merge the base in',
    };
    expect(fleetMergeStep(facts({ pr: dirty, ticket: { resolving: false, conflictResumes: 2 } }))).toEqual(
      withdraw,
    );
    expect(fleetMergeStep(facts({ pr: dirty, attempt: undefined }))).toEqual(withdraw);
  });

  it('waits while a worker runs, and stops on a conflict resume that failed on its host', () => {
    expect(fleetMergeStep(facts({ attempt: { ...solved, outcome: undefined } }))).toEqual({ step: 'none' });
    const sent = facts({ ticket: { resolving: true, resumeSentAt: 't1', conflictResumes: 1 } });
    expect(fleetMergeStep(sent)).toEqual({ step: 'read', fact: 'resume_job' });
    expect(fleetMergeStep({ ...sent, resumeJob: { failed: false } })).toEqual({ step: 'none' });
    expect(fleetMergeStep({ ...sent, resumeJob: { failed: true, error: 'no worktree' } })).toEqual({
      step: 'end_resolving',
      problem: 'the worker could not be resumed on its runner: no worktree',
    });
    expect(fleetMergeStep({ ...sent, resumeNotSent: 'queue down' })).toEqual({
      step: 'end_resolving',
      problem: 'the worker could not be resumed to merge the base in: queue down',
    });
  });

  it('checks a resolution: the outcome, then markers here, then the build', () => {
    expect(
      fleetMergeStep(resolved({ attempt: { ...solved, outcome: 'unsolved', failureSummary: 'gave up' } })),
    ).toEqual({
      step: 'end_resolving',
      conflictFiles: ['a.ts'],
      problem: 'merge stopped, the worker did not resolve it: gave up',
    });
    expect(fleetMergeStep(resolved())).toEqual({ step: 'read', fact: 'markers' });
    expect(fleetMergeStep(resolved({ markers: ['a.ts'] }))).toEqual({
      step: 'end_resolving',
      conflictFiles: ['a.ts'],
      problem: 'conflict markers are left in a.ts',
    });
    expect(fleetMergeStep(resolved({ markers: [] }))).toEqual({ step: 'read', fact: 'build' });
    // A remote attempt's host checked the markers itself: straight to the build.
    expect(fleetMergeStep(resolved({ attempt: { ...solved, remote: true } }))).toEqual({
      step: 'read',
      fact: 'build',
    });
    const built = (build: BuildFact) => fleetMergeStep(resolved({ markers: [], build }));
    expect(built({ state: 'pending' })).toEqual({ step: 'none' });
    expect(built({ state: 'none' })).toEqual({ step: 'end_resolving', conflictFiles: ['a.ts'] });
    expect(built({ state: 'done', exitCode: 0, timedOut: false })).toEqual({
      step: 'end_resolving',
      conflictFiles: ['a.ts'],
    });
    for (const b of [
      { state: 'done', exitCode: 1, timedOut: false },
      { state: 'done', exitCode: 0, timedOut: true },
    ] as const)
      expect(built(b)).toMatchObject({ problem: 'the tests failed after the base was merged in' });
    expect(built({ state: 'missing', reason: 'not_run' })).toMatchObject({
      problem: `the build after the base merge did not run on the attempt's runner`,
    });
    expect(built({ state: 'missing', reason: 'no_result' })).toMatchObject({
      problem: `the attempt's runner sent no build result`,
    });
  });
});

const prArb: fc.Arbitrary<MergePr> = fc.record(
  {
    merged: fc.boolean(),
    state: fc.constantFrom('open' as const, 'closed' as const),
    mergeCommitSha: fc.constantFrom('m1', undefined),
    head: fc.record({ ref: fc.constant('blitz/1'), sha: fc.constantFrom('h1', 'h2') }),
    base: fc.constant({ ref: 'main' }),
    mergeState: fc.constantFrom('clean', 'behind', 'dirty', 'blocked', 'unstable', 'unknown'),
    mergeable: fc.constantFrom(true, false, null),
  },
  { requiredKeys: ['merged', 'state', 'head', 'base', 'mergeState', 'mergeable'] },
);
const attemptArb: fc.Arbitrary<MergeAttempt> = fc.record(
  {
    outcome: fc.constantFrom('solved', 'unsolved', 'environment_failure', 'stalled', 'cancelled', undefined),
    failureSummary: fc.constantFrom('why', undefined),
    launchedAt: fc.constantFrom('t0', 't1'),
    remote: fc.boolean(),
    conflictFiles: fc.constantFrom([], ['a.ts']),
  },
  { requiredKeys: ['launchedAt', 'remote', 'conflictFiles'] },
);
const buildArb: fc.Arbitrary<BuildFact> = fc.oneof(
  fc.constant({ state: 'none' as const }),
  fc.constant({ state: 'pending' as const }),
  fc.record({ state: fc.constant('done' as const), exitCode: fc.constantFrom(0, 1), timedOut: fc.boolean() }),
  fc.record({
    state: fc.constant('missing' as const),
    reason: fc.constantFrom('not_run' as const, 'no_result' as const),
  }),
);
const factsArb: fc.Arbitrary<MergeFacts> = fc.record({
  requested: fc.boolean(),
  pr: fc.option(prArb, { nil: undefined }),
  attempt: fc.option(attemptArb, { nil: undefined }),
  ticket: fc.record({
    resolving: fc.boolean(),
    resumeSentAt: fc.constantFrom('t0', 't1', undefined),
    conflictResumes: fc.integer({ min: 0, max: maxConflictResumes + 1 }),
  }),
  gatedHead: fc.constantFrom('h1', 'h2', undefined),
});
/** What the world answers each read. */
const answersArb = fc.record({
  pr: prArb,
  resumeJob: fc.oneof(
    fc.constant({ failed: false as const }),
    fc.constant({ failed: true as const, error: 'gone' }),
  ),
  markers: fc.constantFrom([], ['a.ts']),
  build: buildArb,
});

type Answers = typeof answersArb extends fc.Arbitrary<infer T> ? T : never;

/** Decides like merge-ticket.ts does: reads answered, a clean end of a resolution decided again. */
const run = (start: MergeFacts, answers: Answers, resumeFails: string | undefined) => {
  const f: MergeFacts = { ...start };
  const steps: MergeStep[] = [];
  for (let i = 0; i < 8; i++) {
    const s = fleetMergeStep(f);
    steps.push(s);
    if (s.step === 'read') {
      if (s.fact === 'pr') f.pr = answers.pr;
      else if (s.fact === 'resume_job') f.resumeJob = answers.resumeJob;
      else if (s.fact === 'markers') f.markers = answers.markers;
      else f.build = answers.build;
      continue;
    }
    if (s.step === 'end_resolving' && s.problem === undefined) {
      f.ticket = { ...f.ticket, resolving: false, resumeSentAt: undefined };
      continue;
    }
    if (s.step === 'resume_worker' && resumeFails !== undefined && f.resumeNotSent === undefined) {
      f.ticket = {
        resolving: true,
        resumeSentAt: f.attempt?.launchedAt,
        conflictResumes: f.ticket.conflictResumes + 1,
      };
      f.resumeNotSent = resumeFails;
      continue;
    }
    return { steps, last: s, facts: f };
  }
  throw new Error(`no step after 8 decisions: ${JSON.stringify(steps)}`);
};

describe('fleetMergeStep, for any facts', () => {
  const any = fc.tuple(factsArb, answersArb, fc.constantFrom(undefined, 'down'));

  it('ends in a step within the executor’s bound, asking for no fact twice', () => {
    fc.assert(
      fc.property(any, ([f, answers, fails]) => {
        const { steps } = run(f, answers, fails);
        const reads = steps.flatMap((s) => (s.step === 'read' ? [s.fact] : []));
        expect(new Set(reads).size).toBe(reads.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('squashes only on a person’s word, an open mergeable PR at the gated head, no worker running', () => {
    fc.assert(
      fc.property(any, ([f, answers, fails]) => {
        const { last, facts: seen } = run(f, answers, fails);
        if (last.step !== 'squash') return;
        const pr = seen.pr!;
        expect(seen.requested).toBe(true);
        expect(pr.merged).toBe(false);
        expect(pr.state).toBe('open');
        expect(pr.mergeable).toBe(true);
        expect(['behind', 'dirty', 'blocked']).not.toContain(pr.mergeState);
        if (seen.gatedHead !== undefined) expect(pr.head.sha).toBe(seen.gatedHead);
        // A worker still running, or resumed on a conflict and not yet checked, holds the merge.
        if (seen.attempt) {
          expect(seen.attempt.outcome).toBeDefined();
          expect(seen.ticket.resolving).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('does nothing without a request, and never resumes a worker past the cap or without an attempt', () => {
    fc.assert(
      fc.property(any, ([f, answers, fails]) => {
        const { steps } = run(f, answers, fails);
        if (!f.requested) expect(steps).toEqual([{ step: 'none' }]);
        for (const s of steps)
          if (s.step === 'resume_worker') {
            expect(f.attempt).toBeDefined();
            expect(f.ticket.conflictResumes).toBeLessThan(maxConflictResumes);
          }
      }),
      { numRuns: 2000 },
    );
  });

  it('records a PR merged elsewhere, whatever else holds', () => {
    fc.assert(
      fc.property(any, ([f, answers, fails]) => {
        fc.pre(f.requested && (f.pr ?? answers.pr).merged);
        expect(run(f, answers, fails).last.step).toBe('record_merged');
      }),
      { numRuns: 2000 },
    );
  });
});
