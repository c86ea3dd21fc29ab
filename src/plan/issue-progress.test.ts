import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunIssueRecord } from '../store/run-store.ts';
import { deriveProgress, inRunScope } from './issue-progress.ts';
import type { IssueProgress } from './snapshot.ts';

const repo = { owner: 'acme', name: 'app' };
const attempt = (id: string, n: number, over: Partial<AttemptRecord> = {}): AttemptRecord =>
  ({
    id,
    runId: 'r',
    issue: { repo, number: n },
    rosterEntry: 'fake',
    tier: 'execution',
    branch: `m1/${n}-x`,
    startedAt: '2026-01-01T00:00:00Z',
    tokens: { input: 0, output: 0 },
    job: { retry: 0 },
    ...over,
  }) as AttemptRecord;
const row = (n: number, over: Partial<RunIssueRecord> = {}): RunIssueRecord => ({
  runId: 'r',
  repo: 'acme/app',
  number: n,
  state: 'dispatched',
  reviewPosted: false,
  attempts: 1,
  updatedAt: '',
  ...over,
});
const open = new Set(['acme/app#1', 'acme/app#2', 'acme/app#3', 'acme/app#4']);
const derive = (rows: RunIssueRecord[], attempts: AttemptRecord[], runnerRetries = 0) =>
  Object.fromEntries(deriveProgress({ rows, attempts, open, runnerRetries }).map((p) => [p.key, p]));

describe('run progress from facts', () => {
  it('a stall for refused commands is stalled, carrying the rules to allow', () => {
    const denials = [{ tool: 'Bash', command: 'pytest -q', rule: 'Bash(pytest:*)' }];
    const p = derive([], [attempt('a', 1, { outcome: 'stalled', permissionDenials: denials })]);
    expect(p['acme/app#1']).toMatchObject({ state: 'stalled', attempts: [{ refused: ['Bash(pytest:*)'] }] });
    // Denials on a solved attempt (the model went on without the command) are no refusal to act on.
    const solved = derive([], [attempt('a', 1, { outcome: 'solved', permissionDenials: denials })]);
    expect(solved['acme/app#1']!.attempts[0]).not.toHaveProperty('refused');
  });

  it('reads each issue state from the latest attempt, the PR and the merge sha', () => {
    const p = derive(
      [
        row(2, { prNumber: 10 }),
        row(3, { prNumber: 11, reviewPosted: true, mergedSha: 'abc' }),
        row(4, { prNumber: 12, mergedSha: 'def' }),
      ],
      [attempt('a', 1), attempt('b', 2, { outcome: 'solved' }), attempt('c', 3, { outcome: 'solved' })],
    );
    expect(p['acme/app#1']!.state).toBe('working');
    expect(p['acme/app#2']).toMatchObject({
      state: 'pr_open',
      pr: { number: 10, merged: false },
      branchPushed: true,
    });
    expect(p['acme/app#3']).toMatchObject({ state: 'merged', pr: { number: 11, merged: true } });
    // Merged and no longer open in the tracker: closed.
    const closed = deriveProgress({
      rows: [row(9, { mergedSha: 'x', prNumber: 1 })],
      attempts: [],
      open,
      runnerRetries: 0,
    });
    expect(closed[0]!.state).toBe('closed');
  });

  it('an unsolved attempt the runner will retry still counts as working; a last one is a failure', () => {
    const a = [attempt('a', 1, { outcome: 'unsolved' })];
    expect(derive([], a, 2)['acme/app#1']!.state).toBe('working');
    expect(derive([], a, 0)['acme/app#1']!.state).toBe('failed');
    expect(derive([], [attempt('s', 1, { outcome: 'stalled' })])['acme/app#1']!.state).toBe('stalled');
  });

  it('after a bounce only later attempts count, but the whole history still drives routing', () => {
    const attempts = [attempt('old', 2, { outcome: 'solved' })];
    const bounced = derive([row(2, { bouncedAfter: 'old', state: 'bounced' })], attempts);
    expect(bounced['acme/app#2']).toMatchObject({ state: 'bounced', branchPushed: false });
    expect(bounced['acme/app#2']!.attempts).toHaveLength(1);
    const again = derive([row(2, { bouncedAfter: 'old' })], [...attempts, attempt('new', 2)]);
    expect(again['acme/app#2']).toMatchObject({ state: 'working' });
    expect(again['acme/app#2']!.attempts).toHaveLength(2);
  });

  it('counts the passes bounced after their work was solved, one per session, since the last retry', () => {
    // Pass 1: solved (s1) and a feedback resume of it (s1), bounced; pass 2: failed, then solved (s2), bounced.
    const attempts = [
      attempt('a', 2, { outcome: 'solved', sessionId: 's1' }),
      attempt('b', 2, { outcome: 'solved', sessionId: 's1' }),
      attempt('c', 2, { outcome: 'unsolved', sessionId: 'x' }),
      attempt('d', 2, { outcome: 'solved', sessionId: 's2' }),
    ];
    expect(derive([row(2, { bouncedAfter: 'd' })], attempts)['acme/app#2']!.bounces).toBe(2);
    // The current pass's solved work is not a bounce yet.
    expect(derive([row(2, { bouncedAfter: 'b' })], attempts)['acme/app#2']!.bounces).toBe(1);
    // A person's `/blitz retry` after pass 1 starts the count again.
    expect(derive([row(2, { bouncedAfter: 'd', retriedAfter: 'b' })], attempts)['acme/app#2']!.bounces).toBe(
      1,
    );
    // Never bounced: no count.
    expect(derive([row(2)], attempts)['acme/app#2']!.bounces).toBeUndefined();
  });

  it('an issue with neither a row nor an attempt has no progress', () => {
    expect(deriveProgress({ rows: [], attempts: [], open, runnerRetries: 0 })).toEqual([]);
  });
  it('charges an issue its tokens, attempts and sessions since the last retry, environment failures not', () => {
    const spent = (id: string, o: Partial<AttemptRecord>) =>
      attempt(id, 1, { tokens: { input: 100, output: 50 }, outcome: 'unsolved', ...o });
    const attempts = [
      spent('a', { sessionId: 's1' }),
      spent('b', { sessionId: 's1' }),
      spent('c', { outcome: 'environment_failure' }),
      spent('d', { sessionId: 's2' }),
    ];
    const t = { input: 100, output: 50 };
    expect(derive([row(1)], attempts)['acme/app#1']!.usage).toEqual({
      tokens: 450,
      attempts: 3,
      sessions: 2,
      spend: [{ tokens: t }, { tokens: t }, { tokens: t }],
    });
    // `/blitz retry #1` after `b`: a new allowance from there on.
    expect(derive([row(1, { retriedAfter: 'b' })], attempts)['acme/app#1']!.usage).toEqual({
      tokens: 150,
      attempts: 1,
      sessions: 1,
      spend: [{ tokens: t }],
    });
  });
});

describe('the run’s scope (inRunScope)', () => {
  it('keeps open and closed issues, and names the workers on an issue that left the run as abandoned', () => {
    const p = (key: string, state: IssueProgress['state']): IssueProgress => ({
      key,
      state,
      attempts: [],
      branchPushed: false,
      reviewPosted: false,
    });
    const got = inRunScope(
      [
        p('acme/app#1', 'working'),
        p('acme/app#7', 'working'),
        p('acme/app#8', 'closed'),
        p('acme/app#9', 'failed'),
      ],
      new Set(['acme/app#1']),
    );
    expect(got.progress.map((x) => x.key)).toEqual(['acme/app#1', 'acme/app#8']);
    expect(got.abandoned).toEqual(['acme/app#7']);
  });
});
