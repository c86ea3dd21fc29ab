import { describe, expect, it } from 'vitest';
import { retryJobOf } from '../remote-runner/requeue-retry.ts';
import { type AttemptRecord, asClaimed, expectedBaseSha } from './types.ts';

const sha = 'a'.repeat(40);

describe("a job's base sha", () => {
  it('is trusted only as a full lowercase sha, on the first try', () => {
    expect(expectedBaseSha({ baseSha: sha, retry: 0 })).toBe(sha);
    expect(expectedBaseSha({ baseSha: 'b'.repeat(64), retry: 0 })).toBe('b'.repeat(64));
    for (const bad of [
      undefined,
      '',
      sha.slice(1),
      `${sha}0`,
      sha.toUpperCase(),
      `${sha}\n`,
      `--upload-pack=${sha}`,
      'HEAD',
      `${'g'.repeat(40)}`,
    ])
      expect(expectedBaseSha({ ...(bad === undefined ? {} : { baseSha: bad }), retry: 0 })).toBeUndefined();
    expect(expectedBaseSha({ baseSha: sha, retry: 1 })).toBeUndefined();
  });

  it('is dropped from a redelivered job and from a retry', () => {
    const job = { kind: 'attempt' as const, baseSha: sha, retry: 0 };
    expect(asClaimed(job, 0)).toBe(job);
    expect(asClaimed(job, 1)).toEqual({ kind: 'attempt', retry: 0 });
    expect(asClaimed({ kind: 'cancel', attemptId: 'x' }, 2)).toEqual({ kind: 'cancel', attemptId: 'x' });
    const retried = retryJobOf({ job: { baseSha: sha, retry: 0 }, failureSummary: 'no' } as AttemptRecord);
    expect(retried).toEqual({ retry: 1, failureFeedback: 'no' });
  });
});
