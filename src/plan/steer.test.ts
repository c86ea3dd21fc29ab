import { describe, expect, it } from 'vitest';
import { decideSteer, holdOf, type SteerFacts, type SteerIssueFacts } from './steer.ts';

const running: SteerFacts = { runState: 'running' };
const issue = (over: Partial<SteerIssueFacts> = {}): SteerIssueFacts => ({
  ref: '#12',
  state: 'failed',
  closed: false,
  skipped: false,
  workerRunning: false,
  ...over,
});
const retry = (i: SteerIssueFacts, f: SteerFacts = running) =>
  decideSteer({ name: 'blitz-issue', action: 'retry', issue: i }, f);

describe('decideSteer: /blitz retry', () => {
  it.each(['failed', 'stalled', 'bounced', 'held'] as const)('retries an issue that is %s', (state) => {
    const d = retry(issue({ state, ...(state === 'held' ? { hold: 'failures' as const } : {}) }));
    expect(d).toMatchObject({ ok: true, effect: { type: 'retry', issue: '#12' } });
    expect(d.reply).toContain('fresh attempt');
  });

  it('says a PR hold gets its worker another round on the PR, not a fresh attempt', () => {
    const d = retry(issue({ state: 'held', hold: 'pr' }));
    expect(d).toMatchObject({ ok: true, effect: { type: 'retry', issue: '#12' } });
    expect(d.reply).toContain('pull request');
    expect(d.reply).not.toContain('fresh attempt');
  });

  it('gives an issue held at its per-issue cap a new allowance, by retry or unhold', () => {
    const d = retry(issue({ state: 'failed', hold: 'cap' }));
    expect(d).toMatchObject({ ok: true, effect: { type: 'retry', issue: '#12' } });
    expect(d.reply).toContain('new allowance');
    const u = decideSteer(
      { name: 'blitz-issue', action: 'unhold', issue: issue({ state: 'failed', hold: 'cap' }) },
      running,
    );
    expect(u).toMatchObject({ ok: true, effect: { type: 'unhold', removeLabel: false } });
  });

  it('refuses /blitz unhold on a PR hold and names /blitz retry', () => {
    const d = decideSteer(
      { name: 'blitz-issue', action: 'unhold', issue: issue({ state: 'held', hold: 'pr' }) },
      running,
    );
    expect(d).toMatchObject({ ok: false });
    expect(d.reply).toContain('/blitz retry #12');
  });

  it('takes a skipped issue back into the run', () => {
    expect(retry(issue({ state: 'ready', skipped: true }))).toMatchObject({
      ok: true,
      effect: { type: 'unskip' },
    });
  });

  it.each<[string, Partial<SteerIssueFacts>, RegExp]>([
    ['a running worker', { state: 'working', workerRunning: true }, /worker running now.*\/blitz tell #12/],
    ['a hold label', { state: 'held', hold: 'label' }, /`\/blitz unhold #12` lifts it/],
    ['an untrusted author', { state: 'held', hold: 'untrusted' }, /blitz\/approved/],
    ['a ready issue', { state: 'ready' }, /is ready, not failed or held/],
    // In words, not the state's name (`pr_open`).
    ['an issue with its PR open', { state: 'pr_open' }, /is PR open, not failed or held/],
    ['a closed issue', { state: 'closed', closed: true }, /already closed/],
    ['an issue outside the run', { state: undefined }, /not part of this run/],
  ])('refuses %s and changes nothing', (_what, over, reply) => {
    const d = retry(issue(over));
    expect(d.ok).toBe(false);
    expect(d.reply).toMatch(reply);
    expect('effect' in d).toBe(false);
  });

  it('refuses on a run that is done or cancelled', () => {
    for (const [runState, words] of [
      ['done', 'finished'],
      ['cancelled', 'cancelled'],
    ] as const) {
      expect(retry(issue(), { runState })).toEqual({
        ok: false,
        reply: `This run is ${words}, so nothing changed; start a new one with \`/blitz\`.`,
      });
    }
  });
});

describe('decideSteer: /blitz skip and /blitz unhold', () => {
  it('skips an idle issue, and stops the worker of a running one', () => {
    expect(
      decideSteer({ name: 'blitz-issue', action: 'skip', issue: issue({ state: 'ready' }) }, running),
    ).toMatchObject({
      ok: true,
      effect: { type: 'skip', cancelWorker: false },
    });
    const d = decideSteer(
      { name: 'blitz-issue', action: 'skip', issue: issue({ state: 'working', workerRunning: true }) },
      running,
    );
    expect(d).toMatchObject({ ok: true, effect: { type: 'skip', cancelWorker: true } });
    expect(d.reply).toContain('/blitz retry #12');
  });

  it('does not skip twice, nor a merged issue', () => {
    expect(
      decideSteer({ name: 'blitz-issue', action: 'skip', issue: issue({ skipped: true }) }, running).ok,
    ).toBe(false);
    expect(
      decideSteer({ name: 'blitz-issue', action: 'skip', issue: issue({ state: 'merged' }) }, running).ok,
    ).toBe(false);
  });

  it('lifts a label hold by removing the label, and a failure hold by clearing it', () => {
    const unhold = (i: SteerIssueFacts) =>
      decideSteer({ name: 'blitz-issue', action: 'unhold', issue: i }, running);
    expect(unhold(issue({ state: 'held', hold: 'label' }))).toMatchObject({
      ok: true,
      effect: { type: 'unhold', removeLabel: true },
    });
    expect(unhold(issue({ state: 'held', hold: 'stalled' }))).toMatchObject({
      ok: true,
      effect: { type: 'unhold', removeLabel: false },
    });
    expect(unhold(issue({ state: 'ready' }))).toEqual({
      ok: false,
      reply: '#12 is not held, so nothing changed.',
    });
    expect(unhold(issue({ state: 'held', hold: 'untrusted' })).ok).toBe(false);
  });
});

describe('decideSteer: /blitz tell', () => {
  it('nudges a running worker now, and keeps the message for the next attempt otherwise', () => {
    const tell = (i: SteerIssueFacts) =>
      decideSteer({ name: 'blitz-tell', issue: i, message: 'use the parser' }, running);
    expect(tell(issue({ state: 'working', workerRunning: true }))).toMatchObject({
      ok: true,
      effect: { type: 'tell', message: 'use the parser', deliver: 'nudge' },
    });
    expect(tell(issue({ state: 'failed' }))).toMatchObject({ ok: true, effect: { deliver: 'next_attempt' } });
    expect(tell(issue({ closed: true, state: 'closed' })).ok).toBe(false);
  });
});

describe('decideSteer: /blitz review and /blitz accept-review', () => {
  const review = (action: 'review' | 'accept-review', f: SteerFacts) =>
    decideSteer({ name: 'blitz-review', action }, f);

  it('accepts only an unclear review', () => {
    expect(
      review('accept-review', { runState: 'integrating', review: { verdict: 'unclear' } }),
    ).toMatchObject({
      ok: true,
      effect: { type: 'accept_review' },
    });
    expect(
      review('accept-review', { runState: 'integrating', review: { verdict: 'blocking' } }),
    ).toMatchObject({
      ok: false,
      reply: expect.stringContaining('is blocking, not unclear'),
    });
    expect(review('accept-review', running).reply).toContain('No integration review has run yet');
  });

  it('re-runs the review unless one is running now', () => {
    expect(review('review', { runState: 'running', review: { verdict: 'minor' } })).toMatchObject({
      ok: true,
      effect: { type: 'rerun_review' },
    });
    expect(review('review', { runState: 'running', review: { running: true } }).ok).toBe(false);
  });
});

describe('the hold an issue is under (holdOf)', () => {
  const failedTimes = (n: number) => ({
    key: 'o/r#12',
    state: 'failed' as const,
    attempts: Array.from({ length: n }, () => ({
      entry: 'fake',
      tier: 'execution' as const,
      outcome: 'unsolved' as const,
    })),
    branchPushed: false,
    reviewPosted: false,
  });
  const none = { labelHeld: false, prHeld: false, workerRunning: false };

  it('names the label first, then a held PR, a stall, and the failures limit', () => {
    expect(holdOf({ ...none, labelHeld: true, prHeld: true })).toBe('label');
    expect(holdOf({ ...none, prHeld: true, progress: failedTimes(5) })).toBe('pr');
    expect(holdOf({ ...none, progress: { ...failedTimes(0), state: 'stalled' } })).toBe('stalled');
    expect(holdOf({ ...none, progress: failedTimes(3) })).toBe('failures');
    expect(holdOf({ ...none, progress: failedTimes(2) })).toBeUndefined();
    expect(holdOf({ ...none, progress: failedTimes(2), maxAttemptsPerIssue: 2 })).toBe('failures');
  });

  it('counts failures from the last retry, and holds at the cap only when no worker runs', () => {
    expect(holdOf({ ...none, progress: { ...failedTimes(4), countFrom: 2 } })).toBeUndefined();
    const spent = {
      ...failedTimes(1),
      state: 'ready' as const,
      usage: { tokens: 10, attempts: 1, sessions: 1 },
    };
    const issueCaps = { maxAttempts: 5, maxTokens: 5 };
    expect(holdOf({ ...none, progress: spent, issueCaps })).toBe('cap');
    expect(holdOf({ ...none, progress: spent, issueCaps, workerRunning: true })).toBeUndefined();
  });
});
