import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import type { Action } from './snapshot.ts';
import { actionIssue, failureCause, waitReason } from './wait-reason.ts';

const merge: Action = { type: 'merge', issue: 'acme/app#3', pr: 12 };
const notFound = new AppError('not_found', 'Not Found');

describe('why an issue waits', () => {
  it('says which action failed and the forge answer, from the error code', () => {
    expect(waitReason(merge, notFound)).toBe(
      'merging PR #12: the forge answered 404 Not Found (Not Found); retried on the next pass',
    );
    expect(waitReason({ type: 'open_pr', issue: 'acme/app#3' }, new Error('boom\nstack'))).toBe(
      'opening its PR: it failed (boom); retried on the next pass',
    );
    expect(waitReason(merge, new AppError('forge_error', 'x'.repeat(500))).length).toBeLessThan(250);
  });

  it('names a cause from the code alone, never the message', () => {
    expect(failureCause(new AppError('forge_unavailable', 'Something went wrong: secret'))).toBe(
      'the forge is unavailable',
    );
    expect(failureCause(new Error('boom'))).toBe('it failed');
  });

  it('keeps why an issue waits through a notice about it: a notice does nothing to the issue', () => {
    expect(actionIssue(merge)).toBe('acme/app#3');
    const notice: Action = {
      type: 'issue_notice',
      event: 'needs_person',
      issue: 'acme/app#3',
      key: 'k',
      message: 'm',
    };
    expect(actionIssue(notice)).toBeUndefined();
  });
});
