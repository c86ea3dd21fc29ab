import { describe, expect, it } from 'vitest';
import { mergeAfterFeedback } from './merge-after-feedback.ts';
import type { Action } from './snapshot.ts';

const feedback = (issue: string): Action => ({ type: 'pr_feedback', issue, pr: 10 });
const merge = (issue: string, head?: string): Action => ({
  type: 'merge',
  issue,
  pr: 10,
  ...(head ? { head } : {}),
});

describe('mergeAfterFeedback', () => {
  it('names the merge at the gate’s head that follows its issue’s feedback in the pass', () => {
    expect(mergeAfterFeedback([feedback('a#1'), feedback('a#2'), merge('a#1', 'abc')])).toEqual({
      issue: 'a#1',
      head: 'abc',
    });
  });

  it('nothing without a merge, without the gate’s head, or without that issue’s feedback before it', () => {
    expect(mergeAfterFeedback([feedback('a#1')])).toBeUndefined();
    expect(mergeAfterFeedback([feedback('a#1'), merge('a#1')])).toBeUndefined();
    expect(mergeAfterFeedback([feedback('a#2'), merge('a#1', 'abc')])).toBeUndefined();
    expect(mergeAfterFeedback([merge('a#1', 'abc'), feedback('a#1')])).toBeUndefined();
  });

  it('nothing when an action between them ends the pass first (the merge would not run in it)', () => {
    expect(
      mergeAfterFeedback([feedback('a#1'), { type: 'probe_budget' }, merge('a#1', 'abc')]),
    ).toBeUndefined();
  });
});
