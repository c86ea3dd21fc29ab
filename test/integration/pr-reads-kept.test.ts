// The PR feedback loop's reads kept past a reconcile call (src/ship/pr-reads-kept.ts), counted
// on the contract-checked fake Gitea through the real adapter: Gitea sends no commit-status webhook,
// so a PR waiting on CI is polled, with a backoff per head instead of on every call. Each "call" here is
// what reconcile.ts does for one PR: a fresh per-call memo, the kept reads over it, the gate's read
// (readPrFacts) and `settled`. Time is the test's clock; calls come every half second.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultRepoConfig, type RepoConfig } from '../../src/config/repo-config.ts';
import type { AttemptRecord } from '../../src/runner/types.ts';
import type { PrFacts } from '../../src/ship/pr-facts.ts';
import { readPrFacts } from '../../src/ship/pr-feedback-forge.ts';
import { createKeptPrReads, type KeptPrReads } from '../../src/ship/pr-reads-kept.ts';
import { readsPerCall } from '../../src/ship/pr-reads-per-call.ts';
import type { PrFeedbackState } from '../../src/store/run-store.ts';
import { type GiteaHarness, startGiteaHarness } from '../support/fake-gitea/setup.ts';
import { attempt } from '../support/store-suite-fixtures.ts';
import type { MemoryGit } from '../support/world.ts';
import { checksOf } from '../support/world-checks.ts';

const app = { owner: 'acme', name: 'app' };
const ci: RepoConfig['ci'] = { ...defaultRepoConfig().ci, wait: 'always', timeoutMinutes: 60 };
let h: GiteaHarness;
let t: number;
let kept: KeptPrReads;
let pr: number;

beforeEach(async () => {
  h = await startGiteaHarness();
  t = Date.parse('2026-12-07T12:00:00Z');
  kept = createKeptPrReads(() => t);
  (h.repo.git as MemoryGit).commit('m1/1-a', 'main');
  pr = (
    await h.world.openPull(h.repo, {
      head: 'm1/1-a',
      base: 'blitz/m1',
      title: '#1: a',
      body: '',
      author: 'blitz-bot',
    })
  ).number;
});
afterEach(async () => {
  await h.fake.close();
  h.fake.assertNoViolations();
});

const head = () => h.repo.issues.get(pr)!.pull!.headSha;
const git = () => h.repo.git as MemoryGit;
const status = (sha: string, state: 'pending' | 'success' | 'failure') =>
  checksOf(h.world).addStatus(h.repo, {
    sha,
    context: 'ci/test',
    state,
    description: '',
    targetUrl: null,
    creator: 'ci-bot',
  });

/** One reconcile call's gate of the PR, at the test's time. */
const call = async (
  stamp = '',
  opts: { ci?: RepoConfig['ci']; state?: PrFeedbackState; attempt?: AttemptRecord } = {},
): Promise<PrFacts> => {
  const ref = { repo: app, number: pr };
  const forge = kept.over(
    readsPerCall(h.forge, new Map(), () => stamp),
    () => stamp,
  );
  const facts = await readPrFacts({
    forge,
    repo: app,
    pr,
    branch: 'm1/1-a',
    state: opts.state,
    attempt: opts.attempt,
    ci: opts.ci ?? ci,
    now: new Date(t),
    writer: async () => true,
  });
  kept.settled(ref, facts);
  return facts;
};

/** Calls every half second for `seconds`; the decisions seen. */
const calls = async (seconds: number, stamp = ''): Promise<string[]> => {
  const seen: string[] = [];
  for (let i = 0; i < seconds * 2; i++) {
    seen.push((await call(stamp)).decision.kind);
    t += 500;
  }
  return seen;
};

const reads = () => ({
  pr: h.fake.count('repoGetPullRequest'),
  status: h.fake.count('repoGetCombinedStatusByRef'),
  reviews: h.fake.count('repoListPullReviews'),
});

describe('a PR waiting on CI, on Gitea', () => {
  it('is read at 0, 2, 6, 14 and 30 s over a minute of calls (120 calls), then every 30 s', async () => {
    status(head(), 'pending');
    const seen = await calls(60);
    expect(new Set(seen)).toEqual(new Set(['wait']));
    // Without the kept reads: 120 of each (tried: every call read the PR, its status and its reviews).
    expect(reads()).toEqual({ pr: 5, status: 5, reviews: 5 });
    await calls(60);
    expect(reads()).toEqual({ pr: 7, status: 7, reviews: 7 });
  });

  it('merges at the first read after its CI lands, at most the backoff later; never on a kept read', async () => {
    status(head(), 'pending');
    await calls(10); // reads at 0, 2 and 6 s; kept until 14 s
    status(head(), 'success');
    const before = reads().status;
    const seen = await calls(4); // 10 … 13.5 s: still the kept read
    expect(new Set(seen)).toEqual(new Set(['wait']));
    expect(reads().status).toBe(before);
    expect((await call()).decision.kind).toBe('merge'); // 14 s
    expect(reads().status).toBe(before + 1);
    // A PR that may merge is read on every call: nothing merges on what an earlier call saw.
    await call();
    await call();
    expect(reads().pr).toBe(6);
  });

  it('starts the backoff again on a new head, seen at its webhook or at the worker’s stamp', async () => {
    status(head(), 'pending');
    await calls(20); // reads at 0, 2, 6, 14 s; kept until 30 s
    expect(reads().pr).toBe(4);
    git().commit('m1/1-a');
    status(head(), 'pending');
    // Gitea's `pull_request` synchronized webhook.
    kept.observe({ kind: 'pr-synchronized', repo: app, number: pr });
    await calls(10); // the new head: 20, 22, 26 s
    expect(reads().pr).toBe(7);
    // The worker pushed again and its attempt ended: the stamp moved, no webhook needed.
    git().commit('m1/1-a');
    status(head(), 'pending');
    await calls(1, 'attempt-1:solved:0');
    expect(reads().pr).toBe(8);
    // A webhook about another PR, or about another repository's PR of that number, drops nothing.
    kept.observe({ kind: 'review-changed', repo: app, number: pr + 1 });
    kept.observe({ kind: 'review-changed', repo: { owner: 'acme', name: 'other' }, number: pr });
    await call('attempt-1:solved:0');
    expect(reads().pr).toBe(8);
  });

  it('reads a review at its webhook, and resumes the worker with it at once', async () => {
    status(head(), 'pending');
    await calls(1);
    expect(reads().reviews).toBe(1);
    checksOf(h.world).addReview(h.repo, {
      pull: pr,
      author: 'wendy',
      state: 'CHANGES_REQUESTED',
      body: 'Please rename it.',
      commitSha: head(),
    });
    kept.observe({ kind: 'review-changed', repo: app, number: pr });
    const facts = await call();
    expect(reads().reviews).toBe(2);
    expect(facts.decision).toMatchObject({ kind: 'resume', parts: ['review'] });
  });

  it('is read again when the settle window ends, whatever the backoff', async () => {
    // `auto`: no check within settleSeconds means no CI; a kept "nothing yet" must not outlive it.
    const auto: RepoConfig['ci'] = { ...ci, wait: 'auto', settleSeconds: 5 };
    const state = { fixAttempts: 0, head: { sha: head(), seenAt: new Date(t).toISOString() } };
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      seen.push((await call('', { ci: auto, state })).decision.kind);
      if (i === 8) status(head(), 'pending'); // CI starts at 4 s
      t += 500;
    }
    // Reads at 0 and 2 s, then at 5 s (the settle window's end, before the backoff's 6 s): CI had
    // started by then, so the PR still waits instead of merging without CI (tried: kept to 6 s, the
    // kept empty read at 5 and 5.5 s said "no CI" and merged).
    expect(reads().status).toBe(3);
    expect(seen).toEqual(Array(12).fill('wait'));
  });
});

describe('a PR waiting on its worker, on Gitea', () => {
  it('is read again at its worker’s stamp, and only every 30 s while the stamp stands', async () => {
    status(head(), 'pending');
    const live = attempt('attempt-1');
    const seen: string[] = [];
    for (let i = 0; i < 120; i++) {
      seen.push((await call('attempt-1:live:1', { attempt: live })).decision.kind);
      t += 500;
    }
    expect(new Set(seen)).toEqual(new Set(['wait']));
    // A minute of calls: read at 0 and 30 s (tried: waiting on CI's backoff, at 0, 2, 6, 14 and 30 s).
    expect(reads().pr).toBe(2);
    // The session ended (its stamp moved): read at once.
    await call('attempt-1:solved:1', { attempt: { ...live, outcome: 'solved' } });
    expect(reads().pr).toBe(3);
  });
});
