import { describe, expect, it } from 'vitest';
import { withKeptReads } from './kept-reads.ts';
import type { CheckInfo, Forge, RepoRef, Review, ReviewComment } from './types.ts';

const app: RepoRef = { owner: 'acme', name: 'app' };
const pr = { repo: app, number: 7 };

const check = (over: Partial<CheckInfo> = {}): CheckInfo => ({
  name: 'test',
  status: 'completed',
  conclusion: 'success',
  summary: '',
  url: '',
  externalId: 'check_run:1',
  reporter: 'github-actions',
  ...over,
});
const own = check({ name: 'blitz', status: 'in_progress', reporter: 'blitz-bot', externalId: 'check_run:2' });

/** A forge whose feedback reads are counted, as a pass of the PR feedback loop makes them. */
const counting = (checks: () => CheckInfo[]) => {
  const calls = { checks: 0, reviews: 0, comments: 0 };
  const review: Review = {
    id: 1,
    author: 'maria',
    state: 'changes_requested',
    body: 'rename',
    commitSha: 'h1',
  };
  const comment: ReviewComment = {
    id: 3,
    reviewId: 1,
    author: 'maria',
    body: 'here',
    path: 'a.ts',
    line: 1,
    commitSha: 'h1',
  } as ReviewComment;
  const forge = {
    kind: 'github',
    botLogin: 'blitz-bot[bot]',
    listChecks: async () => {
      calls.checks++;
      return checks();
    },
    listReviews: async () => {
      calls.reviews++;
      return [review];
    },
    listReviewComments: async () => {
      calls.comments++;
      return [comment];
    },
    replyToReviewComment: async () => comment,
  } as unknown as Forge;
  return { forge, calls };
};

/** One gate of the PR: what readPrFacts reads. */
const gate = async (f: Forge, sha = 'h1') => {
  await f.listChecks!(app, sha);
  await f.listReviews!(pr);
  await f.listReviewComments!(pr);
};

describe('kept feedback reads', () => {
  it('a head whose CI finished is read once over many passes, until a checks webhook for it', async () => {
    const c = counting(() => [check(), own]);
    const kept = withKeptReads(c.forge, { now: () => 0 });
    for (let i = 0; i < 5; i++) await gate(kept);
    // Without keeping: 5 check reads. Kept: one. Reviews are read every pass (a change request must
    // stop a merge at once).
    expect(c.calls).toEqual({ checks: 1, reviews: 5, comments: 5 });
    kept.observeEvent!({ kind: 'checks-changed', repo: app, headSha: 'other' });
    await gate(kept);
    expect(c.calls.checks).toBe(1);
    kept.observeEvent!({ kind: 'checks-changed', repo: app, headSha: 'h1' });
    await gate(kept);
    expect(c.calls.checks).toBe(2);
  });

  it('a head whose CI still runs (or has not started) is read on every pass', async () => {
    let checks = [check({ status: 'in_progress', conclusion: undefined })];
    const c = counting(() => checks);
    const kept = withKeptReads(c.forge, { now: () => 0 });
    await gate(kept);
    await gate(kept);
    expect(c.calls.checks).toBe(2);
    checks = [];
    await gate(kept);
    expect(c.calls.checks).toBe(3);
    checks = [own];
    await gate(kept);
    expect(c.calls.checks).toBe(4);
  });

  it('kept checks age out (Gitea sends no status webhook: a re-run is seen at the next read after that)', async () => {
    let t = 0;
    const c = counting(() => [check()]);
    const kept = withKeptReads(c.forge, { freshMs: 60_000, now: () => t });
    await gate(kept);
    t = 59_999;
    await gate(kept);
    expect(c.calls.checks).toBe(1);
    t = 60_000;
    await gate(kept);
    expect(c.calls.checks).toBe(2);
  });
});
