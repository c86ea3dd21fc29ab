import { describe, expect, it } from 'vitest';
import { baseSnapshot, issue, k, progressOf, simulate } from '../../test/support/plan-arbitraries.ts';
import { isAppError } from '../errors.ts';
import { budgetOf } from './budget.ts';
import { nextActions } from './next-actions.ts';
import type { Action, RunSnapshot } from './snapshot.ts';
import type { StopCause } from './stop-cause.ts';
import { planLabels } from './types.ts';

const types = (xs: Action[]) => xs.map((a) => (a.type === 'stop' ? `stop:${a.state}` : a.type));
const ofType = <T extends Action['type']>(xs: Action[], t: T) =>
  xs.filter((a): a is Extract<Action, { type: T }> => a.type === t);

describe('nextActions: dispatch', () => {
  it('dispatches the ready issues up to the cap, never a blocked one', () => {
    const snap = baseSnapshot([issue(1), issue(2), issue(3), issue(4, { blockedBy: [k(1)] })], {
      machine: { limit: 2, contended: false },
    });
    const got = nextActions('running', snap);
    expect(ofType(got, 'dispatch').map((a) => a.issue)).toEqual([k(1), k(2)]);
  });

  it('a contended machine gets one worker, a parked budget none and the run pauses', () => {
    const issues = [issue(1), issue(2)];
    expect(
      ofType(
        nextActions('running', baseSnapshot(issues, { machine: { limit: 4, contended: true } })),
        'dispatch',
      ),
    ).toHaveLength(1);
    const parked = nextActions(
      'running',
      baseSnapshot(issues, { budget: { verdict: 'park', recommendedMaxSessions: 4, preferMedium: false } }),
    );
    expect(types(parked)).toEqual(['notify', 'stop:paused']);
  });

  it('a budget park stops a blitz and a fleet naming the reset time and that the run goes on by itself', () => {
    const resetAt = '2026-12-04T06:20:00.000Z';
    const budget = { verdict: 'park' as const, recommendedMaxSessions: 0, preferMedium: false, resetAt };
    for (const kind of ['blitz', 'fleet'] as const) {
      const got = ofType(nextActions('running', baseSnapshot([issue(1)], { kind, budget })), 'stop');
      expect(got, kind).toEqual([
        {
          type: 'stop',
          state: 'paused',
          cause: { kind: 'budget_park' },
          reason:
            'the budget probe says park until 2026-12-04 06:20 UTC; the run goes on by itself once the probe allows work',
        },
      ]);
    }
    // A probe that named no reset time: the stop says only that the run goes on by itself.
    const { resetAt: _r, ...unnamed } = budget;
    expect(
      ofType(nextActions('running', baseSnapshot([issue(1)], { budget: unnamed })), 'stop')[0]?.reason,
    ).toBe('the budget probe says park; the run goes on by itself once the probe allows work');
  });

  it('refills a slot as soon as a worker pushes, while the others still work', () => {
    const snap = baseSnapshot([issue(1), issue(2), issue(3)], {
      machine: { limit: 2, contended: false },
      progress: [
        progressOf(k(1), { state: 'working' }),
        progressOf(k(2), { state: 'pushed', branchPushed: true }),
      ],
    });
    const got = nextActions('running', snap);
    expect(ofType(got, 'dispatch').map((a) => a.issue)).toEqual([k(3)]);
    expect(ofType(got, 'open_pr').map((a) => a.issue)).toEqual([k(2)]);
  });

  it('a `/blitz tell` waiting for a running session is sent at once, with or without a PR', () => {
    const snap = baseSnapshot([issue(1), issue(2), issue(3)], {
      machine: { limit: 3, contended: false },
      progress: [
        progressOf(k(1), { state: 'working', tellNow: true }),
        progressOf(k(2), {
          state: 'pr_open',
          branchPushed: true,
          pr: { number: 12, merged: false },
          prGate: { kind: 'wait', why: 'the worker is addressing feedback' },
          tellNow: true,
        }),
        progressOf(k(3), { state: 'working' }),
      ],
    });
    expect(ofType(nextActions('running', snap), 'tell').map((a) => a.issue)).toEqual([k(1), k(2)]);
  });

  it('re-dispatches a failed issue with escalation and holds it after three failures', () => {
    const failed = (n: number) =>
      progressOf(k(1), {
        state: 'failed',
        attempts: Array.from({ length: n }, () => ({
          entry: 'default-sonnet',
          tier: 'execution' as const,
          outcome: 'unsolved' as const,
        })),
      });
    const again = ofType(
      nextActions('running', baseSnapshot([issue(1)], { progress: [failed(1)] })),
      'dispatch',
    );
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ attempt: 2, worker: { tier: 'design' } });
    const gaveUp = nextActions('running', baseSnapshot([issue(1)], { progress: [failed(3)] }));
    expect(ofType(gaveUp, 'dispatch')).toEqual([]);
    // Its own `failed` notice tells the person; the stop adds no second one.
    expect(types(gaveUp)).toEqual(['stop:blocked', 'issue_notice']);
    expect(ofType(gaveUp, 'stop')[0]!.reason).toContain('3 attempts failed');
    expect(ofType(gaveUp, 'issue_notice')[0]).toMatchObject({
      event: 'failed',
      issue: k(1),
      key: `notice:failed:${k(1)}:3`,
    });
  });

  it('holds an issue whose solved work was bounced three times instead of dispatching it again', () => {
    // Each pass solved the issue and its merge was refused (or its build went red): a bounce, not a failure.
    const bounced = (bounces: number) =>
      progressOf(k(1), {
        state: 'bounced',
        attempts: Array.from({ length: bounces }, () => ({
          entry: 'default-sonnet',
          tier: 'execution' as const,
          outcome: 'solved' as const,
        })),
        bounces,
      });
    const again = nextActions('running', baseSnapshot([issue(1)], { progress: [bounced(2)] }));
    expect(ofType(again, 'dispatch').map((a) => a.issue)).toEqual([k(1)]);
    const held = nextActions('running', baseSnapshot([issue(1)], { progress: [bounced(3)] }));
    expect(ofType(held, 'dispatch')).toEqual([]);
    expect(types(held)).toEqual(['stop:blocked', 'issue_notice']);
    expect(ofType(held, 'stop')[0]!.reason).toContain('3 bounced after a refused merge or a red build');
    expect(ofType(held, 'issue_notice')[0]).toMatchObject({ event: 'failed', issue: k(1) });
    expect(ofType(held, 'issue_notice')[0]!.message).toContain('bounced 3 times');
    // One failure and two bounces reach the same limit.
    const mixed = progressOf(k(1), {
      state: 'bounced',
      attempts: [
        { entry: 'default-sonnet', tier: 'execution', outcome: 'unsolved' },
        { entry: 'default-sonnet', tier: 'execution', outcome: 'solved' },
        { entry: 'default-sonnet', tier: 'execution', outcome: 'solved' },
      ],
      bounces: 2,
    });
    const mixedHeld = nextActions('running', baseSnapshot([issue(1)], { progress: [mixed] }));
    expect(ofType(mixedHeld, 'dispatch')).toEqual([]);
    expect(ofType(mixedHeld, 'stop')[0]!.reason).toContain('1 failed, 2 bounced');
    expect(ofType(mixedHeld, 'issue_notice')[0]!.message).toContain(
      '1 failed and its work was bounced 2 times',
    );
  });

  it('holds an issue that reached its per-issue cap, says so once per allowance, and warns at 80 % before that', () => {
    const spent = (tokens: number, countFrom?: number) =>
      progressOf(k(1), {
        state: 'failed',
        attempts: [{ entry: 'default-sonnet', tier: 'execution', outcome: 'unsolved' }],
        usage: { tokens, attempts: 1, sessions: 1 },
        ...(countFrom !== undefined ? { countFrom } : {}),
      });
    const caps = { issueCaps: { maxTokens: 1000 } };
    const over = nextActions('running', baseSnapshot([issue(1)], { ...caps, progress: [spent(1000)] }));
    expect(ofType(over, 'dispatch')).toEqual([]);
    expect(ofType(over, 'stop')[0]!.reason).toContain(
      'it reached its per-issue cap (1,000 of 1,000 tokens (100 %))',
    );
    expect(ofType(over, 'issue_notice')).toEqual([
      {
        type: 'issue_notice',
        event: 'needs_person',
        issue: k(1),
        key: `notice:capped:${k(1)}:0`,
        message:
          '#1 reached its cap (1,000 of 1,000 tokens (100 %)) and is held; `/blitz retry #1` gives it a new allowance',
        command: '/blitz retry #1',
        dashboard: 'held',
      },
    ]);
    // A retry's new allowance is a new key: reaching the cap again is said again.
    const again = nextActions('running', baseSnapshot([issue(1)], { ...caps, progress: [spent(1000, 1)] }));
    expect(ofType(again, 'issue_notice')[0]!.key).toBe(`notice:capped:${k(1)}:1`);
    const near = nextActions('running', baseSnapshot([issue(1)], { ...caps, progress: [spent(850)] }));
    expect(ofType(near, 'dispatch')).toHaveLength(1);
    expect(ofType(near, 'issue_notice')).toEqual([
      expect.objectContaining({
        event: 'warning',
        key: `notice:cap-warning:${k(1)}:0`,
        dashboard: 'warning',
      }),
    ]);
    // Without caps configured nothing is held or said, whatever was spent.
    const none = nextActions('running', baseSnapshot([issue(1)], { progress: [spent(10 ** 9)] }));
    expect(ofType(none, 'dispatch')).toHaveLength(1);
    expect(ofType(none, 'issue_notice')).toEqual([]);
  });

  it('`runner.maxAttemptsPerIssue` is also the count of failures before the hold', () => {
    const failed = progressOf(k(1), {
      state: 'failed',
      attempts: Array.from({ length: 4 }, () => ({
        entry: 'default-sonnet',
        tier: 'execution' as const,
        outcome: 'unsolved' as const,
      })),
    });
    const got = nextActions(
      'running',
      baseSnapshot([issue(1)], { issueCaps: { maxAttempts: 5 }, progress: [failed] }),
    );
    expect(ofType(got, 'dispatch')).toHaveLength(1);
  });

  it('dispatches again an issue whose attempt was lost before its worker started, holding nothing', () => {
    // The runner died setting it up (runner/supervisor.ts ends it `lost_before_start`): no model failed.
    const lost = progressOf(k(1), {
      state: 'failed',
      attempts: [{ entry: 'default-sonnet', tier: 'execution', outcome: 'environment_failure' }],
    });
    const actions = nextActions('running', baseSnapshot([issue(1)], { progress: [lost] }));
    expect(ofType(actions, 'dispatch')).toMatchObject([{ issue: k(1), attempt: 2 }]);
    expect(ofType(actions, 'stop')).toEqual([]);
    expect(ofType(actions, 'issue_notice')).toEqual([]);
  });

  it('resumes a worker whose process is gone before it pushed', () => {
    const snap = baseSnapshot([issue(1)], {
      progress: [
        progressOf(k(1), {
          state: 'working',
          workerAlive: false,
          attempts: [{ entry: 'x', tier: 'execution' }],
        }),
      ],
    });
    expect(nextActions('running', snap)).toEqual([{ type: 'resume', issue: k(1), entry: 'x' }]);
  });

  it("an untrusted author's issue is not dispatched until approved", () => {
    const got = nextActions('running', baseSnapshot([issue(1, { authorTrusted: false })]));
    expect(ofType(got, 'dispatch')).toEqual([]);
    expect(ofType(got, 'stop')[0]!.reason).toContain('write permission');
  });
});

describe('nextActions: the budget probe', () => {
  it('a failed probe dispatches one worker and tells the operator once per error; an answer brings full speed back', () => {
    const issues = [issue(1), issue(2), issue(3)];
    const failed = nextActions(
      'running',
      baseSnapshot(issues, { budget: budgetOf({ status: 'failed', error: 'the probe exited with 1' }, 4) }),
    );
    expect(ofType(failed, 'dispatch')).toHaveLength(1);
    expect(ofType(failed, 'issue_notice')).toEqual([
      {
        type: 'issue_notice',
        event: 'needs_person',
        key: 'notice:budget-probe-failed:the probe exited with 1',
        message:
          'the budget probe failed (the probe exited with 1); the run goes on one worker at a time until it answers again',
      },
    ]);
    const absent = nextActions(
      'running',
      baseSnapshot(issues, { budget: budgetOf({ status: 'absent' }, 4) }),
    );
    expect(ofType(absent, 'dispatch')).toHaveLength(1);
    expect(ofType(absent, 'issue_notice')).toEqual([]);
    const ok = budgetOf({ status: 'ok', recommendedMaxSessions: 4, preferMedium: false, park: false }, 4);
    expect(ofType(nextActions('running', baseSnapshot(issues, { budget: ok })), 'dispatch')).toHaveLength(3);
  });
});

describe('nextActions: integration', () => {
  it('reviews an open PR, then merges reviewed PRs one at a time', () => {
    const snap = baseSnapshot([issue(1), issue(2), issue(3)], {
      progress: [
        progressOf(k(1), {
          state: 'reviewed',
          branchPushed: true,
          pr: { number: 11, merged: false },
          reviewPosted: true,
        }),
        progressOf(k(2), {
          state: 'reviewed',
          branchPushed: true,
          pr: { number: 12, merged: false },
          reviewPosted: true,
        }),
        progressOf(k(3), { state: 'pr_open', branchPushed: true, pr: { number: 13, merged: false } }),
      ],
    });
    const got = nextActions('integrating', snap);
    expect(ofType(got, 'merge')).toEqual([{ type: 'merge', issue: k(1), pr: 11 }]);
    expect(ofType(got, 'review').map((a) => a.issue)).toEqual([k(3)]);
    expect(ofType(got, 'run_build')).toEqual([]);
  });

  it('runs the build once the merges drained, then closes what it covered', () => {
    const merged = (n: number) =>
      progressOf(k(n), {
        state: 'merged',
        branchPushed: true,
        pr: { number: n, merged: true },
        reviewPosted: true,
      });
    const snap = baseSnapshot([issue(1), issue(2)], { progress: [merged(1), merged(2)] });
    expect(ofType(nextActions('integrating', snap), 'run_build')).toEqual([
      { type: 'run_build', covers: [k(1), k(2)] },
    ]);
    const built = { ...snap, build: { status: 'passed' as const, covers: [k(1), k(2)], failures: 0 } };
    expect(ofType(nextActions('integrating', built), 'close_issue').map((a) => a.issue)).toEqual([
      k(1),
      k(2),
    ]);
  });

  it('bounces the responsible issue on a failed build and stops blocked after the honest attempts', () => {
    const merged = (n: number) =>
      progressOf(k(n), { state: 'merged', pr: { number: n, merged: true }, reviewPosted: true });
    const snap = baseSnapshot([issue(1), issue(2)], {
      progress: [merged(1), merged(2)],
      build: { status: 'failed', covers: [k(1), k(2)], failures: 1, responsible: k(2) },
    });
    expect(ofType(nextActions('integrating', snap), 'bounce').map((a) => a.issue)).toEqual([k(2)]);
    const tired = { ...snap, build: { ...snap.build, failures: 3 } };
    const got = nextActions('integrating', tired);
    expect(types(got)).toEqual(['notify', 'file_gate_blocker', 'stop:blocked']);
    expect(ofType(got, 'notify')[0]!.title).toBe('blitz: M1 BLOCKED');
  });

  it("fleet PRs merge only on a person's word and no build runs", () => {
    const pr = progressOf(k(1), { state: 'reviewed', pr: { number: 5, merged: false }, reviewPosted: true });
    const snap = baseSnapshot([issue(1)], { kind: 'fleet', progress: [pr] });
    // Nothing merges; the people are asked for the word (issue 37: told with no configuration).
    expect(nextActions('running', snap)).toEqual([
      {
        type: 'notify',
        level: 'waiting',
        title: 'M1 needs review',
        message: "its PR waits on a person's review and /merge: acme/app#5",
        command: '/merge',
      },
    ]);
    const said = { ...snap, progress: [{ ...pr, mergeRequested: true }] };
    expect(nextActions('running', said)).toEqual([{ type: 'merge', issue: k(1), pr: 5 }]);
  });
});

describe('nextActions: readiness and ship', () => {
  const allClosed = (over: Partial<RunSnapshot> = {}) =>
    baseSnapshot([issue(1, { state: 'closed' }), issue(2, { title: 'Epic: all', blockedBy: [k(1)] })], over);

  it('closes an epic whose children are all closed', () => {
    expect(ofType(nextActions('running', allClosed()), 'close_epic')).toEqual([
      { type: 'close_epic', issue: k(2) },
    ]);
  });

  it('with everything closed: build, then smoke, then ship, then done', () => {
    const done = baseSnapshot([issue(1, { state: 'closed' })]);
    expect(nextActions('gating', done)).toEqual([{ type: 'run_build', covers: [] }]);
    const built = { ...done, build: { status: 'passed' as const, covers: [], failures: 0 } };
    expect(nextActions('gating', built)).toEqual([
      { type: 'run_smoke' },
      { type: 'set_state', from: ['running'], to: 'gating' },
    ]);
    const smoked = { ...built, smoke: 'passed' as const };
    expect(ofType(nextActions('gating', smoked), 'ship')[0]?.path).toBe('local');
    const shipped = { ...smoked, ship: 'passed' as const };
    expect(types(nextActions('shipping', shipped))).toEqual(['notify', 'stop:done']);
    // The forge's rate limit spent: the ship (a dozen requests) waits for the reset, the run goes on.
    const spent = { ...smoked, forgeSpent: true };
    expect(ofType(nextActions('shipping', spent), 'ship')).toEqual([]);
    expect(types(nextActions('shipping', spent)).filter((t) => t.startsWith('stop'))).toEqual([]);
  });

  it('deploys only when configured and nothing says throwaway; a spike ships locally', () => {
    const ready = baseSnapshot([issue(1, { state: 'closed' })], {
      build: { status: 'passed', covers: [], failures: 0 },
      smoke: 'passed',
      deployCommand: ['npm', 'run', 'deploy'],
    });
    expect(ofType(nextActions('gating', ready), 'ship')[0]?.path).toBe('deploy');
    const spike = { ...ready, milestoneDescription: 'A throwaway spike to try the idea' };
    expect(ofType(nextActions('gating', spike), 'ship')[0]?.path).toBe('local');
  });

  it('a red smoke check is filed as a finding for another pass, never shipped', () => {
    const snap = baseSnapshot([issue(1, { state: 'closed' })], {
      build: { status: 'passed', covers: [], failures: 0 },
      smoke: 'failed',
      smokeGate: { configured: true, failures: 1, maxFailures: 3 },
    });
    expect(types(nextActions('gating', snap))).toEqual(['smoke_finding']);
  });

  it('stops BLOCKED once the red smoke passes reach their allowance', () => {
    const snap = baseSnapshot([issue(1, { state: 'closed' })], {
      build: { status: 'passed', covers: [], failures: 0 },
      smoke: 'failed',
      smokeGate: { configured: true, failures: 3, maxFailures: 3 },
    });
    const got = nextActions('gating', snap);
    expect(types(got)).toEqual(['notify', 'file_gate_blocker', 'stop:blocked']);
    expect(ofType(got, 'stop')[0]?.reason).toBe(
      'the smoke check was red 3 times in a row on the integration branch',
    );
  });

  it('runs the smoke check again when it was green on another commit than the build', () => {
    const snap = baseSnapshot([issue(1, { state: 'closed' })], {
      build: { status: 'passed', covers: [], failures: 0, sha: 'b'.repeat(40) },
      smoke: 'passed',
      smokeGate: { configured: true, failures: 0, maxFailures: 3, sha: 'a'.repeat(40) },
    });
    expect(types(nextActions('gating', snap))[0]).toBe('run_smoke');
  });

  it('gates again, shipping nothing, when the ship step found the integration branch moved since the build', () => {
    const gated = baseSnapshot([issue(1, { state: 'closed' })], {
      build: { status: 'passed', covers: [], failures: 0, sha: 'b'.repeat(40) },
      smoke: 'passed',
      smokeGate: { configured: true, failures: 0, maxFailures: 3, sha: 'b'.repeat(40) },
    });
    const moved = nextActions('shipping', { ...gated, integrationHead: 'c'.repeat(40) });
    expect(types(moved)).toEqual(['regate']);
    expect(ofType(moved, 'regate')[0]?.reason).toMatch(/moved to ccccccc since the gate ran on bbbbbbb/);
    // The head the build was green on, or none seen: the ship goes out.
    expect(types(nextActions('shipping', { ...gated, integrationHead: 'b'.repeat(40) }))).toContain('ship');
    expect(types(nextActions('shipping', gated))).toContain('ship');
  });

  it('says "not configured" for a check with no command when the run is done, never green', () => {
    const snap = baseSnapshot([issue(1, { state: 'closed' })], {
      build: { status: 'passed', covers: [], failures: 0 },
      buildConfigured: true,
      smoke: 'passed',
      smokeGate: { configured: false, failures: 0, maxFailures: 3 },
      ship: 'passed',
    });
    expect(ofType(nextActions('shipping', snap), 'stop')[0]?.reason).toMatch(
      /^every issue closed, shipped \(\w+\); build ✓, smoke not configured, /,
    );
  });
});

describe('nextActions: checks required before a ship', () => {
  const unverified = (over: Partial<RunSnapshot> = {}) =>
    baseSnapshot([issue(1, { state: 'closed' })], {
      build: { status: 'passed', covers: [], failures: 0 },
      buildConfigured: false,
      smoke: 'passed',
      smokeGate: { configured: false, failures: 0, maxFailures: 3 },
      ...over,
    });

  it('refuses to ship what no check verified, BLOCKED with the words and the command that continue', () => {
    const acts = nextActions('gating', unverified({ requireChecks: true }));
    expect(types(acts)).toEqual(['notify', 'stop:blocked']);
    const stop = ofType(acts, 'stop')[0]!;
    expect(stop.reason).toMatch(
      /^nothing verified this work \(build not configured, smoke not configured\) and checks are required/,
    );
    expect(stop.reason).toContain('add a build: or smoke: command to blitz.yml');
    expect(stop.command).toBe('/blitz resume');
    // Not required: it ships, and says what did not run.
    expect(types(nextActions('gating', unverified()))).toContain('ship');
    // A build that ran green verifies it.
    const built = unverified({
      requireChecks: true,
      buildConfigured: true,
      build: { status: 'passed', covers: [], failures: 0, sha: 'b'.repeat(40) },
    });
    expect(types(nextActions('gating', built))).toContain('ship');
  });
});

describe('nextActions: stop conditions and reports', () => {
  it('an issue closed by hand while its worker runs: the worker is stopped and the watchers told once per attempt', () => {
    const snap = baseSnapshot([issue(1, { state: 'closed' }), issue(2)], {
      progress: [progressOf(k(1), { state: 'working' })],
      abandoned: [k(1)],
    });
    const got = nextActions('running', snap);
    expect(ofType(got, 'cancel_worker')).toEqual([
      { type: 'cancel_worker', issue: k(1), reason: 'its issue left the run (closed on the tracker)' },
    ]);
    const [notice, ...more] = ofType(got, 'issue_notice');
    expect(more).toEqual([]);
    expect(notice).toMatchObject({ event: 'warning', issue: k(1) });
    expect(notice!.message).toContain('Reopen #1 to run it again');
    // The same attempt's notice keeps its key, so the executor's once-per-key record sends it once.
    expect(ofType(nextActions('running', snap), 'issue_notice')[0]!.key).toBe(notice!.key);
    expect(ofType(nextActions('running', { ...snap, abandoned: [] }), 'issue_notice')).toEqual([]);
  });

  it('reports cycles and unknown blockers, and stops blocked when nothing else can run', () => {
    const snap = baseSnapshot([
      issue(1, { blockedBy: [k(2)] }),
      issue(2, { blockedBy: [k(1)] }),
      issue(3, { blockedBy: ['gone/x#4'] }),
    ]);
    const got = nextActions('running', snap);
    expect(types(got)).toEqual(['report_cycle', 'report_unknown_blocker', 'notify', 'stop:blocked']);
    expect(ofType(got, 'report_cycle')[0]!.members).toEqual([k(1), k(2)]);
    expect(ofType(got, 'stop')[0]!.reason).toContain('gone/x#4 cannot be found or read');
  });

  it('a stalled issue and what waits on it stop the run blocked without a second notice', () => {
    const snap = baseSnapshot([issue(1), issue(2, { blockedBy: [k(1)] })], {
      progress: [
        progressOf(k(1), {
          state: 'stalled',
          attempts: [{ entry: 'a', tier: 'execution', outcome: 'stalled' }],
        }),
      ],
    });
    const got = nextActions('running', snap);
    expect(types(got)).toEqual(['stop:blocked', 'issue_notice']);
    expect(ofType(got, 'issue_notice')[0]).toMatchObject({
      event: 'needs_person',
      command: '/blitz retry #1',
    });
  });

  it('a blocked run that stays blocked for the cause it has plans no state change: its notices alone', () => {
    const snap = baseSnapshot([issue(1, { blockedBy: [k(2)] }), issue(2, { blockedBy: [k(1)] })]);
    const first = nextActions('running', snap);
    expect(types(first)).toEqual(['report_cycle', 'notify', 'stop:blocked']);
    const cause = ofType(first, 'stop')[0]!.cause;
    expect(cause).toEqual({
      kind: 'nothing_can_run',
      stuck: [
        { issue: k(1), category: 'cycle', on: [k(1), k(2)] },
        { issue: k(2), category: 'cycle', on: [k(1), k(2)] },
      ],
    });
    // Every later tick: no `set_state` into running, no second stop (nothing written); the notice is
    // planned again and sent once by its content, the cycle report likewise.
    const again = nextActions('blocked', { ...snap, stopCause: cause });
    expect(types(again)).toEqual(['report_cycle', 'notify']);
    expect(ofType(again, 'notify')).toEqual(ofType(first, 'notify'));
    // Stopped for another cause before (a red build, say): the stop alone writes the new one.
    const red = { kind: 'gate_red', gate: 'build' } as const;
    expect(types(nextActions('blocked', { ...snap, stopCause: red }))).toEqual([
      'report_cycle',
      'notify',
      'stop:blocked',
    ]);
    // The cause goes (the cycle broken): the run enters running and dispatches by itself.
    const freed = baseSnapshot([issue(1), issue(2, { blockedBy: [k(1)] })], { stopCause: cause });
    expect(types(nextActions('blocked', freed)).slice(0, 2)).toEqual(['set_state', 'dispatch']);
  });

  it('a stop is known by its cause, not its words: the kept cause read back in any key order is the same', () => {
    // Tried: the cause kept on the run as PostgreSQL gives it back (JSONB orders keys its own way). The
    // snapshot carries no words at all: an older release's sentence for the same stop cannot tell.
    const snap = baseSnapshot([issue(1, { labels: [{ name: planLabels.hold }] })]);
    const first = ofType(nextActions('running', snap), 'stop')[0]!;
    expect(first.cause).toEqual({
      kind: 'nothing_can_run',
      stuck: [{ issue: k(1), category: 'held', hold: 'label' }],
    });
    const readBack: StopCause = {
      stuck: [{ hold: 'label', category: 'held', issue: k(1) }],
      kind: 'nothing_can_run',
    };
    expect(types(nextActions('blocked', { ...snap, stopCause: readBack }))).not.toContain('stop:blocked');
  });

  it('a kept stop for another cause is another stop, however it was worded: the new one is written', () => {
    // Tried: the run kept a stop for the same issue held for another cause (its attempts gave up, not a
    // person's label). Its sentence may read the same (a hold's words are its own); the cause does not.
    const snap = baseSnapshot([issue(1, { labels: [{ name: planLabels.hold }] })]);
    const before: StopCause = {
      kind: 'nothing_can_run',
      stuck: [{ issue: k(1), category: 'held', hold: 'gave_up' }],
    };
    expect(types(nextActions('blocked', { ...snap, stopCause: before }))).toContain('stop:blocked');
  });

  it('a run stopped because its issue gave up names `/blitz retry #n` as what continues it, not a resume', () => {
    // Before: the stop carried no command, so the dashboard and status page said `/blitz resume`,
    // which puts the run back to running only for the same stop to block it again.
    const gaveUp = progressOf(k(3), {
      state: 'failed',
      attempts: Array.from({ length: 3 }, () => ({
        entry: 'a',
        tier: 'execution' as const,
        outcome: 'unsolved' as const,
      })),
    });
    const got = nextActions(
      'running',
      baseSnapshot([issue(3), issue(5, { blockedBy: [k(3)] })], { progress: [gaveUp] }),
    );
    expect(types(got)).toEqual(['stop:blocked', 'issue_notice']);
    expect(ofType(got, 'stop')[0]).toMatchObject({ command: '/blitz retry #3' });
    expect(ofType(got, 'issue_notice')[0]).toMatchObject({ event: 'failed', command: '/blitz retry #3' });
  });

  it('still says BLOCKED when something stuck was not told by its own notice', () => {
    const snap = baseSnapshot(
      [issue(1), issue(2, { blockedBy: [k(1)] }), issue(3, { blockedBy: ['gone/x#4'] })],
      {
        progress: [
          progressOf(k(1), {
            state: 'stalled',
            attempts: [{ entry: 'a', tier: 'execution', outcome: 'stalled' }],
          }),
        ],
      },
    );
    const got = nextActions('running', snap);
    expect(types(got)).toEqual(['report_unknown_blocker', 'notify', 'stop:blocked', 'issue_notice']);
    // A retry alone would not continue it (the unreadable blocker): the stop names no command of its own.
    expect(ofType(got, 'stop')[0]!.command).toBeUndefined();
  });

  it('a hard blocker met now blocks the run, alone; one kept from before is lifted first once a pass gets through', () => {
    const cause = {
      kind: 'forge_refused',
      refusal: 'credentials',
      detail: 'GITEA_TOKEN is missing',
    } as const;
    const got = nextActions('running', baseSnapshot([issue(1)], { hardBlocker: cause }));
    expect(got).toEqual([
      { type: 'block', reason: "the forge refused the bot's credentials: GITEA_TOKEN is missing", cause },
    ]);
    const kept = { reason: 'the forge refused the bot', issue: 9 };
    const lifted = nextActions('blocked', baseSnapshot([issue(1)], { keptBlocker: kept }));
    expect(types(lifted).slice(0, 3)).toEqual(['unblock', 'set_state', 'dispatch']);
    expect(lifted[0]).toEqual({ type: 'unblock', ...kept });
    // A paused run is lifted too, and nothing else happens.
    expect(nextActions('paused', baseSnapshot([issue(1)], { keptBlocker: kept }))).toEqual([
      { type: 'unblock', ...kept },
    ]);
  });

  it('the forge rate limit spent holds the dispatches without stopping the run', () => {
    const got = nextActions('running', baseSnapshot([issue(1), issue(2)], { forgeSpent: true }));
    expect(ofType(got, 'dispatch')).toEqual([]);
    expect(ofType(got, 'stop')).toEqual([]);
  });

  it('a dry run posts the plan and runs nothing', () => {
    const got = nextActions(
      'planning',
      baseSnapshot([issue(1), issue(2, { blockedBy: [k(1)] })], {
        options: { maxSessions: 2, dryRun: true },
      }),
    );
    expect(got).toMatchObject([
      { type: 'set_state', from: ['planning'], to: 'running' },
      {
        type: 'post_plan',
        wave: [k(1)],
        explanations: ['acme/app#2 is not ready because it is blocked by open acme/app#1.'],
      },
      {
        type: 'stop',
        state: 'done',
        reason: 'dry run: the plan is posted, nothing runs',
        cause: { kind: 'dry_run' },
      },
    ]);
    expect(ofType(got, 'dispatch')).toEqual([]);
    // The workers a real run would start for that wave: the planner's own picks, shown, not sent.
    const picks = ofType(got, 'post_plan')[0]!.picks ?? [];
    expect(picks.map((p) => [p.type, p.issue])).toEqual([['dispatch', k(1)]]);
    expect(picks[0]!.worker.entry.name).toBeTruthy();
  });

  it('does nothing for a paused or finished run', () => {
    expect(nextActions('paused', baseSnapshot([issue(1)]))).toEqual([]);
    expect(nextActions('done', baseSnapshot([issue(1)]))).toEqual([]);
  });

  it('refuses a snapshot listing an issue twice, naming it', () => {
    try {
      nextActions('running', baseSnapshot([issue(1), issue(1)]));
      expect.unreachable();
    } catch (err) {
      expect(isAppError(err, 'bad_request')).toBe(true);
      expect((err as Error).message).toContain('acme/app#1');
    }
  });
});

describe('nextActions: whole runs', () => {
  it('drives a small milestone with an epic to shipped', () => {
    const issues = [
      issue(1),
      issue(2, { blockedBy: [k(1)] }),
      issue(3),
      issue(4, { title: 'Epic', children: [k(2), k(3)] }),
    ];
    const r = simulate(baseSnapshot(issues));
    expect(r.stop).toMatchObject({ state: 'done' });
    expect(r.final.issues.every((i) => i.state === 'closed')).toBe(true);
    expect([...r.dispatches.values()].every((n) => n === 1)).toBe(true);
    expect(r.dispatches.has(k(4))).toBe(false);
  });
});

describe('nextActions: the decisions of a pass', () => {
  const at = '2026-01-01T00:00:00Z';

  it('asks the budget probe first when a wave would go out on a stale answer, and plans on a fresh one', () => {
    const parked = { verdict: 'park' as const, recommendedMaxSessions: 4, preferMedium: false };
    const stale = nextActions('running', baseSnapshot([issue(1)], { budget: parked, budgetStale: true }));
    expect(types(stale)[0]).toBe('probe_budget');
    const fresh = nextActions('running', baseSnapshot([issue(1)], { budget: parked, budgetStale: false }));
    expect(types(fresh)).toEqual(['notify', 'stop:paused']);
    // Nothing would be dispatched: no probe, however stale the answer.
    const busy = baseSnapshot([issue(1)], {
      budgetStale: true,
      progress: [progressOf(k(1), { state: 'working' })],
    });
    expect(types(nextActions('running', busy))).not.toContain('probe_budget');
  });

  it('files reported bugs first, before anything the pass would do', () => {
    expect(types(nextActions('running', baseSnapshot([issue(1)], { unfiledFindings: 2 })))[0]).toBe(
      'file_findings',
    );
    expect(types(nextActions('running', baseSnapshot([issue(1)], { unfiledFindings: 0 })))).not.toContain(
      'file_findings',
    );
  });

  it('runs the integration review when due, and withholds smoke and ship until it is clean', () => {
    const done = baseSnapshot([issue(1, { state: 'closed' })], {
      build: { status: 'passed', covers: [], failures: 0 },
    });
    // Without a review module there is no review and no gate.
    expect(types(nextActions('running', done))).toEqual(['run_smoke', 'set_state']);
    const due = { ...done, integrationReview: { mergedSince: 1 } };
    expect(types(nextActions('running', due))).toEqual(['integration_review', 'run_smoke', 'set_state']);
    const unclean = {
      ...done,
      integrationReview: { mergedSince: 0, last: { verdict: 'blocking' as const, at, filed: 2 } },
    };
    expect(nextActions('running', unclean)).toEqual([]);
    const clean = {
      ...done,
      integrationReview: { mergedSince: 0, last: { verdict: 'clean' as const, at, filed: 0 } },
    };
    expect(nextActions('running', clean)).toEqual([
      { type: 'run_smoke' },
      { type: 'set_state', from: ['running'], to: 'gating' },
    ]);
  });

  it('waits in review_unclear, asking once, when an unclear review holds the gate', () => {
    const closed = [issue(1, { state: 'closed' })];
    const gate = { build: { status: 'passed' as const, covers: [], failures: 0 } };
    for (const last of [
      { verdict: 'no_review' as const, at, filed: 0 },
      { verdict: 'unclear' as const, at, filed: 0 },
      { verdict: 'minor' as const, at, filed: 0 },
    ]) {
      const snap = baseSnapshot(closed, { ...gate, integrationReview: { mergedSince: 0, last } });
      const got = nextActions('running', snap);
      expect(types(got)).toEqual(['issue_notice', 'await_review']);
      expect(ofType(got, 'issue_notice')[0]).toMatchObject({
        event: 'review_unclear',
        key: `notice:review_unclear:${at}`,
        command: '/blitz accept-review (or /blitz review to run it again)',
      });
      expect(ofType(got, 'await_review')[0]?.reason).toMatch(/^the integration review is unclear: /);
      // Already waiting: the notice (sent once by its key) and nothing else.
      expect(types(nextActions('review_unclear', snap))).toEqual(['issue_notice']);
    }
    // Mid-run (the gate not reached yet) an unclear review holds nothing and says nothing yet.
    const midRun = baseSnapshot([issue(1)], {
      integrationReview: { mergedSince: 0, last: { verdict: 'unclear', at, filed: 0 } },
    });
    expect(ofType(nextActions('running', midRun), 'issue_notice')).toEqual([]);
  });

  it('goes on from review_unclear once a writer accepted the review or asked for another', () => {
    const closed = [issue(1, { state: 'closed' })];
    const gate = { build: { status: 'passed' as const, covers: [], failures: 0 } };
    const accepted = baseSnapshot(closed, {
      ...gate,
      integrationReview: { mergedSince: 0, last: { verdict: 'no_review', at, filed: 0, accepted: true } },
    });
    expect(types(nextActions('review_unclear', accepted))).toEqual(['set_state', 'run_smoke', 'set_state']);
    const again = baseSnapshot(closed, {
      ...gate,
      integrationReview: { mergedSince: 0, requested: true, last: { verdict: 'no_review', at, filed: 0 } },
    });
    expect(types(nextActions('review_unclear', again))[0]).toBe('integration_review');
  });

  it('moves a planning or blocked run to running first, a run about to ship to shipping', () => {
    expect(nextActions('blocked', baseSnapshot([issue(1)]))[0]).toEqual({
      type: 'set_state',
      from: ['blocked'],
      to: 'running',
    });
    const smoked = baseSnapshot([issue(1, { state: 'closed' })], {
      build: { status: 'passed', covers: [], failures: 0 },
      smoke: 'passed',
    });
    expect(ofType(nextActions('running', smoked), 'set_state')).toEqual([
      { type: 'set_state', from: ['running', 'gating'], to: 'shipping' },
    ]);
    // Gated first (smoke ran in `gating`): it ships in `shipping` too, so it ends shipping → done.
    expect(ofType(nextActions('gating', smoked), 'set_state')).toEqual([
      { type: 'set_state', from: ['running', 'gating'], to: 'shipping' },
    ]);
  });
});
