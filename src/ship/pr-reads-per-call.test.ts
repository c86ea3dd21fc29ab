import { describe, expect, it } from 'vitest';
import type { Forge, PullRequest } from '../forges/types.ts';
import { keepOpenedPulls, readsPerCall, workerStamps } from './pr-reads-per-call.ts';

const app = { owner: 'acme', name: 'app' };

/** A forge whose feedback reads are counted (the first checks read fails once). */
const counting = () => {
  const calls = { checks: 0, reviews: 0, comments: 0 };
  const forge = {
    kind: 'github',
    botLogin: 'blitz-bot[bot]',
    listChecks: async () => {
      calls.checks++;
      if (calls.checks === 1) throw new Error('forge unavailable');
      return [];
    },
    listReviews: async () => {
      calls.reviews++;
      return [];
    },
    listReviewComments: async () => {
      calls.comments++;
      return [];
    },
  } as unknown as Forge;
  return { forge, calls };
};

describe('readsPerCall', () => {
  it('reads a head’s checks and a PR’s reviews once per call, a failed read again, a new call afresh', async () => {
    const c = counting();
    const call = readsPerCall(c.forge, new Map());
    await expect(call.listChecks!(app, 'h1')).rejects.toThrow('forge unavailable');
    for (let pass = 0; pass < 4; pass++) {
      await call.listChecks!(app, 'h1');
      await call.listReviews!({ repo: app, number: 7 });
      await call.listReviewComments!({ repo: app, number: 7 });
    }
    await call.listChecks!(app, 'h2');
    expect(c.calls).toEqual({ checks: 3, reviews: 1, comments: 1 });
    const next = readsPerCall(c.forge, new Map());
    await next.listReviews!({ repo: app, number: 7 });
    expect(c.calls.reviews).toBe(2);
  });

  it('hands the call’s feedback read the PR the call opened; another PR, or the next call, reads its own', async () => {
    const pull = (number: number) =>
      ({ ref: { repo: app, number }, head: { ref: 'b', sha: 'h1' } }) as PullRequest;
    const given: (PullRequest | undefined)[] = [];
    const forge = {
      kind: 'gitea',
      botLogin: 'blitz-bot',
      openPullRequest: async () => pull(9),
      readPullFeedback: async (ref: { number: number }, opts?: { pull?: PullRequest }) => {
        given.push(opts?.pull);
        return { pull: opts?.pull ?? pull(ref.number), checks: [], reviews: [], comments: [] };
      },
    } as unknown as Forge;
    const memo = new Map<string, Promise<unknown>>();
    const call = readsPerCall(forge, memo);
    const opened = await keepOpenedPulls(forge, memo).openPullRequest(app, {
      head: 'b',
      base: 'main',
      title: 't',
      body: '',
    });
    await call.readPullFeedback!({ repo: app, number: 9 });
    await call.readPullFeedback!({ repo: app, number: 9 });
    await call.readPullFeedback!({ repo: app, number: 10 });
    await readsPerCall(forge, new Map()).readPullFeedback!({ repo: app, number: 9 });
    expect(given).toEqual([opened, undefined, undefined]);
  });

  it('reads a PR again within the call once its worker started, resumed or ended since the read', async () => {
    // The worker's resume pushes h2 and then ends: a pass that sees it ended must see h2.
    let head = 'h1';
    const forge = {
      kind: 'github',
      botLogin: 'blitz-bot[bot]',
      readPullFeedback: async (ref: { number: number }) => ({
        pull: { ref: { repo: app, number: ref.number }, head: { ref: 'b', sha: head } },
        checks: [],
        reviews: [],
        comments: [],
      }),
    } as unknown as Forge;
    const issue = { repo: app, number: 3 };
    const attempt = { id: 'a1', issue, outcome: 'solved' as const, feedbackResumes: 0 };
    const progress = [{ key: 'acme/app#3', pr: { number: 9, merged: false } }];
    const memo = new Map<string, Promise<unknown>>();
    const pass = async (a: typeof attempt | Omit<typeof attempt, 'outcome'>) => {
      const stamps = workerStamps(progress, [a]);
      const call = readsPerCall(forge, memo, (ref) => stamps.get(ref.number) ?? '');
      return (await call.readPullFeedback!({ repo: app, number: 9 })).pull.head.sha;
    };
    expect(await pass(attempt)).toBe('h1');
    // Resumed: live, the same head read again once.
    const { outcome: _o, ...live } = { ...attempt, feedbackResumes: 1 };
    head = 'h2';
    expect(await pass(live)).toBe('h2');
    head = 'h3';
    // A tick's stall check writes the attempt too: not a new phase, the call's read stands.
    expect(
      await pass({ ...live, stallFingerprint: { logSize: 1, head: 'h3', remote: 'h3' } } as typeof live),
    ).toBe('h2');
    // Ended (after its push): read again.
    expect(await pass({ ...attempt, feedbackResumes: 1 })).toBe('h3');
  });
});
