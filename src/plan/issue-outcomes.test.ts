import { describe, expect, it } from 'vitest';
import { type IssueOutcome, type IssueOutcomeKind, issuePatch } from './issue-outcomes.ts';
import { canTransitionIssue, type IssueRowState, issueRowStates } from './states.ts';

const row = (state: IssueRowState) => ({ state });

/** One outcome of every kind, and the patch it makes of a row that may take it (`ready`). */
const cases: Record<IssueOutcomeKind, { o: IssueOutcome; patch: object }> = {
  dispatched: { o: { kind: 'dispatched', attempt: 2 }, patch: { state: 'dispatched', attempts: 2 } },
  prOpened: {
    o: { kind: 'prOpened', number: 12, branch: 'blitz/m/7', lane: 'integration' },
    patch: { state: 'pr_open', prNumber: 12, branch: 'blitz/m/7' },
  },
  reviewPosted: { o: { kind: 'reviewPosted' }, patch: { state: 'reviewed', reviewPosted: true } },
  reviewNotPosted: { o: { kind: 'reviewNotPosted' }, patch: { state: 'pr_open', reviewPosted: false } },
  reviewSkipped: { o: { kind: 'reviewSkipped' }, patch: { reviewPosted: true } },
  merged: { o: { kind: 'merged', sha: 'abc' }, patch: { state: 'merged', mergedSha: 'abc' } },
  closed: { o: { kind: 'closed' }, patch: { state: 'closed' } },
  bounced: {
    o: { kind: 'bounced', feedback: 'This issue was bounced: red build.', after: 'att-3' },
    patch: {
      state: 'bounced',
      mergedSha: null,
      prNumber: null,
      reviewPosted: false,
      lastError: 'This issue was bounced: red build.',
      bouncedAfter: 'att-3',
      conflictResumes: 0,
      conflictResumeAt: null,
      conflictResumeSentAt: null,
    },
  },
  phaseEntered: {
    o: { kind: 'phaseEntered', phase: 'fixing', last: 'att-1', feedback: 'the review says' },
    patch: { state: 'fixing', bouncedAfter: 'att-1', lastError: 'the review says' },
  },
  landed: {
    o: { kind: 'landed', landing: 'parked', note: 'the endpoint is down' },
    patch: { state: 'parked', lastError: 'the endpoint is down' },
  },
};

describe('issuePatch: what an outcome makes of an issue row', () => {
  for (const [kind, c] of Object.entries(cases))
    it(`${kind} on a ready row`, () => {
      expect(issuePatch(row('ready'), c.o)).toStrictEqual(c.patch);
    });

  it('a row not written yet counts as ready', () => {
    for (const c of Object.values(cases)) expect(issuePatch(undefined, c.o)).toStrictEqual(c.patch);
  });

  it("an XS's PR ships it", () => {
    expect(
      issuePatch(row('coding'), { kind: 'prOpened', number: 4, branch: 'blitz/p/4', lane: 'xs' }),
    ).toStrictEqual({ state: 'shipping', prNumber: 4, branch: 'blitz/p/4' });
  });

  it('an unposted review sends a reviewed row back to pr_open, to be reviewed again', () => {
    expect(issuePatch(row('reviewed'), { kind: 'reviewNotPosted' })).toStrictEqual({
      state: 'pr_open',
      reviewPosted: false,
    });
  });

  it('a bounce with no attempt names none', () => {
    expect(issuePatch(row('merged'), { kind: 'bounced', feedback: 'f' })).not.toHaveProperty('bouncedAfter');
  });

  it('only the fresh phases forget the attempts before them; a phase without feedback keeps the words', () => {
    expect(issuePatch(row('coding'), { kind: 'phaseEntered', phase: 'reviewing', last: 'a' })).toStrictEqual({
      state: 'reviewing',
    });
    expect(issuePatch(row('sizing'), { kind: 'phaseEntered', phase: 'planning', last: 'a' })).toStrictEqual({
      state: 'planning',
      bouncedAfter: 'a',
    });
    expect(issuePatch(row('sizing'), { kind: 'phaseEntered', phase: 'coding' })).toStrictEqual({
      state: 'coding',
    });
    expect(issuePatch(row('coding'), { kind: 'landed', landing: 'approved' })).toStrictEqual({
      state: 'approved',
    });
  });

  it('a merged row never goes back into the pipeline: the state stays, the fields are recorded', () => {
    expect(
      issuePatch(row('merged'), { kind: 'prOpened', number: 12, branch: 'b', lane: 'integration' }),
    ).toStrictEqual({ prNumber: 12, branch: 'b' });
    expect(issuePatch(row('merged'), { kind: 'reviewNotPosted' })).toStrictEqual({ reviewPosted: false });
    expect(issuePatch(row('merged'), { kind: 'reviewPosted' })).toStrictEqual({ reviewPosted: true });
    expect(issuePatch(row('merged'), { kind: 'dispatched', attempt: 3 })).toStrictEqual({ attempts: 3 });
    expect(issuePatch(row('merged'), { kind: 'prOpened', number: 1, branch: 'b', lane: 'xs' })).toStrictEqual(
      { prNumber: 1, branch: 'b' },
    );
  });

  it('a merged row moves on by a close or a bounce, and a merge seen again changes its sha only', () => {
    expect(issuePatch(row('merged'), { kind: 'closed' })).toStrictEqual({ state: 'closed' });
    expect(issuePatch(row('merged'), cases.bounced.o)).toStrictEqual(cases.bounced.patch);
    expect(issuePatch(row('merged'), { kind: 'merged', sha: 'def' })).toStrictEqual({
      state: 'merged',
      mergedSha: 'def',
    });
  });

  it('a closed row is neither merged again nor reopened into the pipeline', () => {
    expect(issuePatch(row('closed'), { kind: 'merged', sha: 'abc' })).toStrictEqual({ mergedSha: 'abc' });
    expect(issuePatch(row('closed'), { kind: 'reviewPosted' })).toStrictEqual({ reviewPosted: true });
    expect(issuePatch(row('closed'), { kind: 'dispatched', attempt: 1 })).toStrictEqual({ attempts: 1 });
    expect(
      issuePatch(row('closed'), { kind: 'prOpened', number: 2, branch: 'b', lane: 'integration' }),
    ).toStrictEqual({ prNumber: 2, branch: 'b' });
    expect(issuePatch(row('closed'), { kind: 'closed' })).toStrictEqual({ state: 'closed' });
  });
});

describe('the issue-row table', () => {
  it('forbids exactly the moves back from merged and closed', () => {
    const forbidden = issueRowStates.flatMap((from) =>
      issueRowStates.filter((to) => !canTransitionIssue(from, to)).map((to) => `${from}>${to}`),
    );
    const pipeline = ['ready', 'dispatched', 'working', 'pushed', 'pr_open', 'reviewed', 'shipping'];
    expect(forbidden.sort()).toStrictEqual(
      [...pipeline.map((s) => `merged>${s}`), ...[...pipeline, 'merged'].map((s) => `closed>${s}`)].sort(),
    );
  });
});
