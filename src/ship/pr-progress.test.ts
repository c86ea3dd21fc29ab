import { describe, expect, it } from 'vitest';
import type { PrFacts } from './pr-facts.ts';
import { holdSentence, progressReport, queuedReport, workerPhase } from './pr-progress.ts';

const asked = { attemptId: 'a1', resumes: 0, head: 'h1', commentIds: [] };

describe('workerPhase', () => {
  it('a live session is live; an asked resume not yet carried out is pending; after it, idle', () => {
    expect(workerPhase({ id: 'a1', outcome: undefined }, asked)).toBe('live');
    expect(workerPhase({ id: 'a1', outcome: 'solved' }, asked)).toBe('resume_pending');
    expect(workerPhase({ id: 'a1', outcome: 'solved', feedbackResumes: 1 }, asked)).toBe('idle');
    // A new attempt (a bounce) is not the one the resume was asked for.
    expect(workerPhase({ id: 'a2', outcome: 'solved' }, asked)).toBe('idle');
    expect(workerPhase({ id: 'a1', outcome: 'solved' }, undefined)).toBe('idle');
  });
});

const facts = (decision: PrFacts['decision'], over: Partial<PrFacts> = {}): PrFacts => ({
  head: 'abc',
  state: { fixAttempts: 1 },
  ci: { kind: 'green', passed: [] },
  review: { kind: 'clear', staleChangeRequests: [] },
  checks: [],
  worker: 'idle',
  decision,
  ...over,
});

describe('progressReport', () => {
  it('completes only with the review leg’s verdict and a green build, naming both and the status page', () => {
    const verdict = { state: { fixAttempts: 1, reviewVerdict: 'clean by codex-mini' } };
    expect(
      progressReport(facts({ kind: 'merge', why: 'CI green (2 check(s))' }, verdict), 'https://b/runs/r1'),
    ).toEqual({
      state: 'success',
      title: 'ready to merge: review clean by codex-mini; CI green (2 check(s))',
      summary: [
        '- Review leg: clean by codex-mini',
        "- Build (the repository's CI): CI green (0 checks)",
        '- Reviews by people: no change request standing on this head',
        '- CI fix attempts: 1',
        '- Status page: https://b/runs/r1',
      ].join('\n'),
      detailsUrl: 'https://b/runs/r1',
    });
    // Green without the review leg's verdict yet: still in progress.
    expect(progressReport(facts({ kind: 'merge', why: 'CI green (2 check(s))' }), undefined)).toMatchObject({
      state: 'in_progress',
      title: 'CI green (2 check(s)); waiting for the review leg',
      waiting: true,
    });
    const resumed = progressReport(facts({ kind: 'resume', parts: ['ci'], why: 'CI red' }), undefined);
    expect(resumed).toMatchObject({ state: 'in_progress', title: 'worker resumed: CI red' });
    expect(resumed).not.toHaveProperty('waiting');
    expect(progressReport(facts({ kind: 'hold', why: 'CI timed out' }), undefined).state).toBe('failure');
    expect(
      progressReport(facts({ kind: 'wait', why: 'waiting for CI: test', recheckAt: 1, on: 'ci' }), undefined),
    ).toMatchObject({ state: 'in_progress', title: 'waiting for CI: test', waiting: true });
  });

  it('says it is only waiting on the legs when nothing else happened: a resume, a change request or a live worker is news', () => {
    const news = [
      facts({ kind: 'wait', why: 'changes requested by maria on the current head' }),
      facts({ kind: 'wait', why: 'the worker is addressing feedback' }, { worker: 'live' }),
      facts({ kind: 'merge', why: 'CI green (1 check(s))' }, { worker: 'live' }),
      facts({ kind: 'resume', parts: ['review'], why: 'a writer asked for changes' }),
      facts({ kind: 'wait', why: 'held: CI timed out' }),
    ];
    for (const f of news) expect(progressReport(f, undefined)).not.toHaveProperty('waiting');
  });

  it('says the worker is at work while it is live or about to be resumed, and only then', () => {
    const working = [
      facts({ kind: 'wait', why: 'the worker is addressing feedback' }, { worker: 'live' }),
      facts(
        { kind: 'wait', why: 'the worker is about to be resumed with feedback' },
        { worker: 'resume_pending' },
      ),
    ];
    for (const f of working)
      expect(progressReport(f, undefined)).toMatchObject({ state: 'in_progress', working: true });
    const not = [
      facts({ kind: 'merge', why: 'CI green (1 check(s))' }, { worker: 'live' }),
      facts({ kind: 'resume', parts: ['review'], why: 'a writer asked for changes' }),
      facts({ kind: 'wait', why: 'waiting for CI: test', recheckAt: 1, on: 'ci' }),
      facts({ kind: 'hold', why: 'CI timed out' }, { worker: 'live' }),
    ];
    for (const f of not) expect(progressReport(f, undefined)).not.toHaveProperty('working');
  });

  it('a new PR’s check starts queued, with the status page', () => {
    expect(queuedReport('https://b/runs/r1')).toMatchObject({
      state: 'queued',
      detailsUrl: 'https://b/runs/r1',
      summary: expect.stringContaining('- Status page: https://b/runs/r1'),
    });
    expect(queuedReport(undefined)).not.toHaveProperty('detailsUrl');
  });
});

describe('holdSentence', () => {
  it('names the issue, why, and the command that continues', () => {
    const repo = { owner: 'acme', name: 'app' };
    expect(holdSentence(repo, 4, 'CI stayed red after 2 fix attempt(s): test')).toBe(
      '#4 is held: CI stayed red after 2 fix attempt(s): test. Push a fix to its branch or say `/blitz retry #4` to give its worker another round.',
    );
  });
});
