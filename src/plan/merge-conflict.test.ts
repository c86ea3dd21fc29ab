import { describe, expect, it } from 'vitest';
import {
  afterRefusedMerge,
  beforeMerge,
  conflictResumeLeaseMs,
  conflictResumeState,
  maxConflictResumes,
  type ResolutionFacts,
  refusalOf,
} from './merge-conflict.ts';

const base = { resumes: 0, session: true, base: 'blitz/m1' };

const resolution = (over: Partial<ResolutionFacts> = {}): ResolutionFacts => ({
  ...base,
  worker: 'ended',
  solved: true,
  conflictFiles: [],
  remote: false,
  ...over,
});

describe('refusalOf', () => {
  it('tells a moved head, a conflict with the base and anything else apart by kind', () => {
    const clean = { mergeState: 'clean', mergeable: true } as const;
    expect(refusalOf('conflict', 'Head branch was modified', clean)).toEqual({ why: 'moved' });
    expect(refusalOf('unmergeable', 'not mergeable', { mergeState: 'dirty', mergeable: false })).toEqual({
      why: 'conflict',
    });
    // Gitea shows only `mergeable`.
    expect(refusalOf('unmergeable', 'x', { mergeState: 'unknown', mergeable: false })).toEqual({
      why: 'conflict',
    });
    expect(refusalOf('unmergeable', 'protected branch', { mergeState: 'blocked', mergeable: true })).toEqual({
      why: 'other',
      message: 'protected branch',
    });
  });
});

describe('afterRefusedMerge', () => {
  it('a conflict resumes the session that wrote the work, counting the try', () => {
    expect(afterRefusedMerge({ why: 'conflict' }, base, 7)).toEqual({
      step: 'resume_conflict',
      base: 'blitz/m1',
      attempt: 1,
      note: 'its PR #7 conflicts with blitz/m1: its worker is merging `blitz/m1` in (try 1 of 2)',
    });
    expect(afterRefusedMerge({ why: 'conflict' }, { ...base, resumes: 1 }, 7)).toMatchObject({
      step: 'resume_conflict',
      attempt: 2,
    });
  });

  it(`gives the work up only after ${maxConflictResumes} tries, or with no session to resume`, () => {
    expect(afterRefusedMerge({ why: 'conflict' }, { ...base, resumes: maxConflictResumes }, 7)).toEqual({
      step: 'give_up',
      reason: 'its PR #7 conflicts with blitz/m1, and its worker did not resolve it in 2 tries',
    });
    expect(afterRefusedMerge({ why: 'conflict' }, { ...base, session: false }, 7)).toEqual({
      step: 'give_up',
      reason: 'its PR #7 conflicts with blitz/m1, and no worker session is left to resolve it',
    });
  });

  it('a moved head is merged again; any other refusal gives the work up with the forge’s words', () => {
    expect(afterRefusedMerge({ why: 'moved' }, base, 7)).toEqual({ step: 'again' });
    expect(afterRefusedMerge({ why: 'other', message: 'PR #7 cannot be merged' }, base, 7)).toEqual({
      step: 'give_up',
      reason: 'its PR #7 could not be merged into blitz/m1: PR #7 cannot be merged',
    });
  });
});

describe('beforeMerge', () => {
  it('waits while the session runs or its conflict resume has not started', () => {
    expect(beforeMerge(resolution({ worker: 'live' }))).toEqual({ step: 'wait' });
    expect(beforeMerge(resolution({ worker: 'pending', resumes: 1 }))).toEqual({ step: 'wait' });
  });

  it('merges at once when no conflict was resolved this pass', () => {
    expect(beforeMerge(resolution())).toEqual({ step: 'merge' });
    expect(beforeMerge(resolution({ conflictFiles: ['a.txt'] }))).toEqual({ step: 'merge' });
  });

  it('after a conflict resume, reads the conflicted files for markers and merges only when none is left', () => {
    const resolved = resolution({ resumes: 1, conflictFiles: ['letters.txt', 'b.txt'] });
    expect(beforeMerge(resolved)).toEqual({ step: 'read_markers' });
    expect(beforeMerge({ ...resolved, markers: [] })).toEqual({ step: 'merge' });
    expect(beforeMerge({ ...resolved, markers: ['letters.txt'] })).toEqual({
      step: 'resume_conflict',
      base: 'blitz/m1',
      attempt: 2,
      note: 'conflict markers are left in letters.txt: its worker is merging `blitz/m1` in (try 2 of 2)',
      files: ['letters.txt'],
    });
    expect(beforeMerge({ ...resolved, resumes: 2, markers: ['letters.txt'] })).toEqual({
      step: 'give_up',
      reason: 'conflict markers are left in letters.txt, and its worker did not resolve it in 2 tries',
    });
  });

  it('a remote session was checked for markers by its own supervisor; one that did not end solved is a try spent', () => {
    const remote = resolution({ resumes: 1, conflictFiles: ['letters.txt'], remote: true });
    expect(beforeMerge(remote)).toEqual({ step: 'merge' });
    expect(beforeMerge({ ...remote, solved: false })).toMatchObject({ step: 'resume_conflict', attempt: 2 });
    expect(beforeMerge({ ...remote, solved: false, resumes: 2 })).toMatchObject({ step: 'give_up' });
  });
});

describe('conflictResumeState', () => {
  const sentAt = '2026-12-07T06:00:00.000Z';
  const at = (ms: number) => new Date(Date.parse(sentAt) + ms).toISOString();
  const queued = { launchedAt: 'L1', resumeAt: 'L1', sentAt };

  it('is started once the session relaunched, or when no resume was sent', () => {
    expect(conflictResumeState({ ...queued, launchedAt: 'L2', now: at(0) })).toBe('started');
    expect(conflictResumeState({ launchedAt: 'L1', now: at(0) })).toBe('started');
  });

  it('is pending within its lease, and lapsed after it (a job dropped, failed or lost with its host)', () => {
    expect(conflictResumeState({ ...queued, now: at(conflictResumeLeaseMs) })).toBe('pending');
    expect(conflictResumeState({ ...queued, now: at(conflictResumeLeaseMs + 1) })).toBe('lapsed');
  });

  it('is lapsed when the time it was sent is not known (a row from before it was kept)', () => {
    expect(conflictResumeState({ launchedAt: 'L1', resumeAt: 'L1', now: at(0) })).toBe('lapsed');
  });

  it('a lapsed resume is a spent try: the next one is sent, and out of tries the work is given up', () => {
    expect(beforeMerge(resolution({ worker: 'lapsed', resumes: 1 }))).toEqual({
      step: 'resume_conflict',
      base: 'blitz/m1',
      attempt: 2,
      note: `its worker's conflict resume did not start within 30 minutes: its worker is merging \`blitz/m1\` in (try 2 of ${maxConflictResumes})`,
    });
    expect(beforeMerge(resolution({ worker: 'lapsed', resumes: maxConflictResumes }))).toEqual({
      step: 'give_up',
      reason: `its worker's conflict resume did not start within 30 minutes, and its worker did not resolve it in ${maxConflictResumes} tries`,
    });
  });
});
