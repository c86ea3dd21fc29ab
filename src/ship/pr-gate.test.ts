import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckInfo, Review } from '../forges/types.ts';
import type { CiVerdict } from './ci-verdict.ts';
import { type PrGateInput, prGate } from './pr-gate.ts';
import type { ReviewGate } from './review-gate.ts';

const failing: CheckInfo = {
  name: 'test',
  status: 'completed',
  conclusion: 'failure',
  summary: 'value.txt:1: expected ok',
  url: '',
  externalId: 'check_run:1',
};
const green: CiVerdict = { kind: 'green', passed: [{ ...failing, conclusion: 'success' }] };
const red: CiVerdict = { kind: 'red', failing: [failing] };
const clear: ReviewGate = { kind: 'clear', staleChangeRequests: [] };
const request: Review = {
  id: 5,
  author: 'maria',
  state: 'changes_requested',
  body: 'rename it',
  commitSha: 'h',
};

const base: PrGateInput = {
  ci: green,
  review: clear,
  newReview: false,
  tells: 0,
  worker: 'idle',
  fixAttempts: 0,
  maxFixAttempts: 2,
};

describe('prGate', () => {
  it('merges on green CI with no standing review, and without CI when none is awaited', () => {
    expect(prGate(base)).toMatchObject({ kind: 'merge', why: 'CI green (1 check(s))' });
    expect(prGate({ ...base, ci: { kind: 'no_ci', reason: 'none_appeared' } }).kind).toBe('merge');
  });

  it('a red head resumes the worker with the CI failure while fix attempts remain, then holds', () => {
    expect(prGate({ ...base, ci: red })).toEqual({
      kind: 'resume',
      parts: ['ci'],
      why: 'CI red; fix attempt 1 of 2',
    });
    expect(prGate({ ...base, ci: red, fixAttempts: 1 })).toMatchObject({ kind: 'resume', parts: ['ci'] });
    expect(prGate({ ...base, ci: red, fixAttempts: 2 })).toEqual({
      kind: 'hold',
      why: 'CI stayed red after 2 fix attempt(s): test',
    });
  });

  it('waits while the worker works or its resume is queued, and while held', () => {
    for (const worker of ['live', 'resume_pending'] as const)
      expect(prGate({ ...base, ci: red, newReview: true, worker }).kind).toBe('wait');
    expect(prGate({ ...base, held: 'CI stayed red' })).toEqual({ kind: 'wait', why: 'held: CI stayed red' });
  });

  it("a writer's new feedback resumes the session; CI red joins it and names the reason", () => {
    expect(prGate({ ...base, newReview: true })).toMatchObject({ kind: 'resume', parts: ['review'] });
    expect(prGate({ ...base, newReview: true, tells: 1, ci: red })).toMatchObject({
      kind: 'resume',
      parts: ['ci', 'review', 'tell'],
    });
    expect(prGate({ ...base, tells: 2 })).toMatchObject({ kind: 'resume', parts: ['tell'] });
    // Spent fix attempts do not stop people's feedback from reaching the session.
    expect(prGate({ ...base, newReview: true, ci: red, fixAttempts: 2 })).toMatchObject({
      kind: 'resume',
      parts: ['review'],
    });
  });

  it("the bot's own tell (the integration branch moved under the PR) is named as such, not as a writer's", () => {
    expect(prGate({ ...base, tells: 1, ownTells: 1 })).toEqual({
      kind: 'resume',
      parts: ['tell'],
      why: 'the integration branch changed files this PR changes',
    });
    // A person's tell beside the bot's: a writer did send one.
    expect(prGate({ ...base, tells: 2, ownTells: 1 })).toMatchObject({ why: 'a writer sent a message' });
    expect(prGate({ ...base, tells: 1 })).toMatchObject({ why: 'a writer sent a message' });
    expect(prGate({ ...base, newReview: true, tells: 1, ownTells: 1 })).toMatchObject({
      parts: ['review', 'tell'],
      why: 'a writer asked for changes',
    });
  });

  it("a writer's changes-requested review standing on the head keeps the merge waiting, even when green", () => {
    expect(prGate({ ...base, review: { kind: 'changes_requested', by: [request] } })).toEqual({
      kind: 'wait',
      why: 'changes requested by maria on the current head',
    });
  });

  it('pending CI waits until its recheck time; a timeout holds', () => {
    expect(prGate({ ...base, ci: { kind: 'pending', waitingFor: ['test'], recheckAt: 99 } })).toEqual({
      kind: 'wait',
      why: 'waiting for CI: test',
      recheckAt: 99,
      on: 'ci',
    });
    expect(prGate({ ...base, ci: { kind: 'timed_out', waitingFor: [] } })).toEqual({
      kind: 'hold',
      why: 'CI timed out: no check appeared',
    });
  });

  it('never merges a red head, a standing change request, a held PR or a busy worker', () => {
    const verdicts: CiVerdict[] = [
      green,
      red,
      { kind: 'pending', waitingFor: [], recheckAt: 1 },
      { kind: 'timed_out', waitingFor: ['x'] },
      { kind: 'no_ci', reason: 'never' },
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...verdicts),
        fc.boolean(),
        fc.boolean(),
        fc.nat(3),
        fc.constantFrom('live', 'resume_pending', 'idle'),
        fc.nat(4),
        fc.option(fc.constant('held'), { nil: undefined }),
        (ci, standing, newReview, tells, worker, fixAttempts, held) => {
          const d = prGate({
            ...base,
            ci,
            review: standing ? { kind: 'changes_requested', by: [request] } : clear,
            newReview,
            tells,
            worker: worker as PrGateInput['worker'],
            fixAttempts,
            ...(held ? { held } : {}),
          });
          if (d.kind !== 'merge') return;
          expect(['green', 'no_ci']).toContain(ci.kind);
          expect(standing || newReview || tells > 0 || worker !== 'idle' || held).toBeFalsy();
        },
      ),
    );
  });
});
