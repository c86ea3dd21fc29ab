import { describe, expect, it } from 'vitest';
import { writeProgress } from '../runs/run-writer.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { keepFeedbackState } from './pr-feedback.ts';

describe('keepFeedbackState', () => {
  const newRun = {
    id: 'r1',
    forge: 'github' as const,
    repo: 'acme/app',
    kind: 'blitz' as const,
    milestoneNumber: 1,
    milestoneTitle: 'M1',
    slug: 'm1',
    options: { maxSessions: 2 },
    state: 'running' as const,
    integrationBranch: 'blitz/m1',
  };
  const key = 'acme/app#1';
  const tell = (id: number, sent?: { attemptId: string; resumes: number }) => ({
    id,
    by: 'alice',
    text: `m${id}`,
    ...(sent ? { sent } : {}),
  });

  it('keeps what /blitz tell, the tell nudge and the review leg wrote during the pass, less what a resume carried', async () => {
    const store = openSqliteRunStore(':memory:');
    await store.createRun(newRun);
    const loaded = { fixAttempts: 0, tells: [tell(1), tell(2)] };
    // Meanwhile: the nudge marked #2 sent, a writer told #3, the review leg kept its verdict.
    await writeProgress(store, 'r1', () => ({
      prFeedback: {
        [key]: {
          fixAttempts: 0,
          tells: [tell(1), tell(2, { attemptId: 'a1', resumes: 0 }), tell(3)],
          reviewVerdict: 'clean by x',
        },
      },
    }));
    // The pass's state: a resume carried #1 (dropped), and the head moved.
    const state = { fixAttempts: 1, tells: [tell(2)], head: { sha: 'h2', seenAt: 't' } };
    const kept = await keepFeedbackState({ store }, 'r1', key, state, loaded);
    expect(kept.prFeedback?.[key]).toEqual({
      fixAttempts: 1,
      head: { sha: 'h2', seenAt: 't' },
      tells: [tell(2, { attemptId: 'a1', resumes: 0 }), tell(3)],
      reviewVerdict: 'clean by x',
    });
    await store.close();
  });
});
