import { describe, expect, it } from 'vitest';
import { repo, attempt as storedAttempt } from '../../test/support/store-suite-fixtures.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunRecord } from '../store/run-store.ts';
import { defaultEnvironmentBackoff, type RunPark } from './environment-park.ts';
import { attemptKey } from './issue-progress.ts';
import { parkActions, parkViewOf } from './park.ts';
import type { ParkView } from './snapshot.ts';

const t0 = '2026-12-01T11:00:00.000Z';
const plus = (s: number) => new Date(Date.parse(t0) + s * 1000).toISOString();
const view = (o: Partial<ParkView> = {}): ParkView => ({
  now: t0,
  policy: { initialSeconds: 60, maxSeconds: 600 },
  failures: [],
  answered: false,
  resumable: ['a1'],
  ...o,
});
const down = { attemptId: 'a1', seen: 'a1@x', reason: 'model endpoint unreachable' };
const parked = (o: Partial<RunPark> = {}): RunPark => ({
  kind: 'environment',
  reason: 'model endpoint unreachable',
  since: t0,
  failures: 1,
  interrupted: ['a1'],
  nextProbeAt: plus(60),
  ...o,
});

describe('parkActions', () => {
  it('a run parked on its one endpoint goes on when another entry comes back and can take the work', () => {
    const run = parked({ endpoints: ['X'], interrupted: [] });
    const y = { ...parked({ since: plus(-600), probingSince: plus(30) }), entries: ['cheap-b'] };
    const other = (canTake: boolean) => ({
      canTake: (p: ReadonlySet<string>) => canTake && !p.has('Y'),
      entriesOf: (e: string) => (e === 'X' ? ['cheap-a'] : []),
    });
    const at = { now: plus(40), current: run, entries: { Y: y } };
    // First the run's own endpoint is parked as an entry (routing passes it over), then the park lifts.
    expect(parkActions('paused', view(at), false, undefined, other(true))).toEqual([
      {
        type: 'park_entry',
        endpoint: 'X',
        park: { ...parked({ interrupted: [] }), entries: ['cheap-a'] },
        seen: [],
      },
    ]);
    const xParked = { ...parked({ interrupted: [] }), entries: ['cheap-a'] };
    expect(
      parkActions('paused', view({ ...at, entries: { Y: y, X: xParked } }), false, undefined, other(true)),
    ).toEqual([{ type: 'unpark', reason: 'another roster entry is back and can take the work' }]);
    // Not when the entry back cannot take the work, nor when it was back before the run parked (the run
    // parked with it on watch: it could not take the work then), nor while it is still waiting.
    expect(parkActions('paused', view(at), false, undefined, other(false))).toEqual([]);
    const before = { ...y, probingSince: plus(-30) };
    expect(
      parkActions('paused', view({ ...at, entries: { Y: before } }), false, undefined, other(true)),
    ).toEqual([]);
    const { probingSince: _p, ...waiting } = y;
    expect(
      parkActions(
        'paused',
        view({ ...at, entries: { Y: { ...waiting, nextProbeAt: plus(900) } } }),
        false,
        undefined,
        other(true),
      ),
    ).toEqual([]);
  });

  it('nothing to do without a park or a fresh failure', () => {
    expect(parkActions('running', view(), true)).toEqual([]);
    expect(parkActions('running', undefined, true)).toEqual([]);
  });

  it('an outage parks the run with one notice; so does a full disk or a binary gone, not re-dispatched every pass', () => {
    expect(parkActions('running', view({ failures: [down] }), true)).toEqual([
      { type: 'park', park: parked(), seen: ['a1@x'], notice: true },
    ]);
    const person = [
      { ...down, reason: 'agent binary missing' },
      { ...down, reason: 'disk full' },
    ];
    const got = parkActions('running', view({ failures: person }), true);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ type: 'park', seen: ['a1@x', 'a1@x'], notice: true });
  });

  it('a second failure joins the park without a second notice', () => {
    const got = parkActions(
      'paused',
      view({ current: parked(), failures: [{ ...down, attemptId: 'a2', seen: 'a2@x' }] }),
      true,
    );
    expect(got).toEqual([
      { type: 'park', park: parked({ interrupted: ['a1', 'a2'] }), seen: ['a2@x'], notice: false },
    ]);
  });

  it('waits while parked and not due; when due, the interrupted sessions are the probe', () => {
    expect(parkActions('paused', view({ current: parked() }), true)).toEqual([]);
    const due = view({ current: parked(), now: plus(61) });
    expect(parkActions('paused', due, true)).toEqual([
      { type: 'probe_park', park: parked(), resume: ['a1'] },
    ]);
    // A person resumed the run: probe at once.
    expect(parkActions('running', view({ current: parked() }), true)).toEqual([
      { type: 'probe_park', park: parked(), resume: ['a1'] },
    ]);
  });

  it('a probing park lifts once a session answered or a first wait passed quietly; met again, it waits longer', () => {
    const probing = parked({ probingSince: t0 });
    expect(parkActions('running', view({ current: probing }), true)).toEqual([]);
    expect(parkActions('running', view({ current: probing, answered: true }), true)).toEqual([
      { type: 'unpark', reason: 'the endpoint answers' },
    ]);
    expect(parkActions('running', view({ current: probing, now: plus(60) }), true)).toEqual([
      { type: 'unpark', reason: 'the endpoint answers' },
    ]);
    const again = parkActions('running', view({ current: probing, failures: [down] }), true);
    expect(again).toMatchObject([
      { type: 'park', park: { failures: 2, nextProbeAt: plus(120) }, notice: false },
    ]);
  });

  it('a stop on the budget probe park becomes a budget park, waiting for the reset the probe named', () => {
    const got = parkActions('paused', view({ budgetStopped: { resetAt: plus(3600) } }), true);
    expect(got).toEqual([
      {
        type: 'park',
        park: {
          kind: 'budget',
          reason: 'the budget probe says park',
          since: t0,
          failures: 1,
          interrupted: [],
          resetAt: plus(3600),
          nextProbeAt: plus(3630),
        },
        seen: [],
        notice: true,
      },
    ]);
  });

  it('a due budget or limit park asks the probe first, then lifts, waits longer or resumes the sessions', () => {
    const budget = parked({ kind: 'budget', reason: 'the budget probe says park', interrupted: [] });
    const due = { current: budget, now: plus(61) };
    expect(parkActions('paused', view(due), true)).toEqual([{ type: 'probe_budget' }]);
    expect(parkActions('paused', view({ ...due, probeAllows: true }), false)).toEqual([
      { type: 'unpark', reason: 'the probe allows work' },
    ]);
    // No probe configured: nothing holds a budget park.
    expect(parkActions('paused', view(due), false)).toEqual([
      { type: 'unpark', reason: 'the probe allows work' },
    ]);
    expect(parkActions('paused', view({ ...due, probeAllows: false }), false)).toMatchObject([
      { type: 'park', park: { kind: 'budget', failures: 2 }, notice: false },
    ]);
    const limit = parked({ reason: 'provider limit reached' });
    expect(parkActions('paused', view({ current: limit, now: plus(61), probeAllows: true }), false)).toEqual([
      { type: 'probe_park', park: limit, resume: ['a1'] },
    ]);
  });
});

describe('parkViewOf', () => {
  const attempt = (id: string, n: number, over: Partial<AttemptRecord> = {}): AttemptRecord =>
    storedAttempt(id, { issue: { repo, number: n }, startedAt: t0, endedAt: plus(5), ...over });
  const run = (state: RunRecord['state'], progress: RunRecord['progress'] = {}) => ({ state, progress });
  const outage = {
    outcome: 'environment_failure' as const,
    failureSummary: 'Environment failure: model endpoint unreachable.',
    failureCause: { kind: 'environment' as const, cause: 'endpoint_unreachable' as const },
  };

  it('names the fresh environment failures of each issue’s latest attempt, not one seen or superseded or without a cause', () => {
    const limit = {
      outcome: 'environment_failure' as const,
      failureSummary: `Environment failure: provider limit reached (resets at ${plus(3600)}).`,
      failureCause: { kind: 'environment' as const, cause: 'provider_limit' as const, resetAt: plus(3600) },
    };
    const attempts = [
      attempt('a1', 1, outage), // superseded by a2
      attempt('a2', 1, { outcome: 'solved' }),
      attempt('b1', 2, limit),
      attempt('c1', 3, outage), // already folded into a park
      attempt('d1', 4, { outcome: 'environment_failure', failureSummary: 'Setup failed: npm ci exited 1.' }),
    ];
    const v = parkViewOf(
      { now: t0 },
      run('running', { environmentSeen: [`c1@${plus(5)}`] }),
      attempts,
      undefined,
    );
    expect(v.failures).toEqual([
      {
        attemptId: 'b1',
        seen: `b1@${plus(5)}`,
        reason: 'provider limit reached',
        cause: 'provider_limit',
        resetAt: plus(3600),
        issue: attemptKey(attempts[2]!),
        entry: attempts[2]!.rosterEntry,
      },
    ]);
    expect(v).toMatchObject({ now: t0, policy: defaultEnvironmentBackoff, answered: false });
    expect(v).not.toHaveProperty('current');
    expect(v).not.toHaveProperty('probeAllows');
  });

  it('matches on the typed cause, never on the summary’s words', () => {
    const attempts = [
      // Words that name no environment failure, a cause that does: it parks, with the cause's reset time.
      attempt('a1', 1, {
        outcome: 'environment_failure',
        failureSummary: 'The provider said no more today.',
        failureCause: { kind: 'environment', cause: 'provider_limit', resetAt: plus(7200) },
      }),
      // The old sentence, no cause (a row from before causes were typed, or a remote runner's words).
      attempt('b1', 2, {
        outcome: 'environment_failure',
        failureSummary: `Environment failure: provider limit reached (resets at ${plus(3600)}).`,
      }),
      // A missing agent CLI blocks the run (tool-blocker.ts); it does not park it.
      attempt('c1', 3, {
        outcome: 'environment_failure',
        failureSummary: 'Environment failure: model endpoint unreachable.',
        failureCause: { kind: 'missing_tool' },
      }),
    ];
    const v = parkViewOf({ now: t0 }, run('running'), attempts, undefined);
    expect(v.failures).toEqual([
      {
        attemptId: 'a1',
        seen: `a1@${plus(5)}`,
        reason: 'provider limit reached',
        cause: 'provider_limit',
        resetAt: plus(7200),
        issue: attemptKey(attempts[0]!),
        entry: attempts[0]!.rosterEntry,
      },
    ]);
  });

  it('a probing park is answered once an interrupted attempt ended otherwise than on the outage', () => {
    const park = parked({ probingSince: plus(60) });
    const still = parkViewOf(
      { now: plus(90) },
      run('running', { park }),
      [attempt('a1', 1, outage)],
      undefined,
    );
    expect(still).toMatchObject({ current: park, answered: false });
    const back = parkViewOf(
      { now: plus(90) },
      run('running', { park }),
      [attempt('a1', 1, { outcome: 'solved' })],
      undefined,
    );
    expect(back.answered).toBe(true);
  });

  it('a probe resumes the interrupted attempts still the latest of their issue and still ended on the outage', () => {
    const park = parked({ interrupted: ['a1', 'b1', 'c1', 'gone'] });
    const v = parkViewOf(
      { now: plus(90) },
      run('paused', { park }),
      [
        attempt('a1', 1, outage),
        attempt('b1', 2, outage),
        attempt('b2', 2, outage), // a later attempt of #2: b1 is not resumed
        attempt('c1', 3, { outcome: 'solved' }),
      ],
      undefined,
    );
    expect(v.resumable).toEqual(['a1']);
    expect(parkViewOf({ now: t0 }, run('running'), [attempt('a1', 1, outage)], undefined).resumable).toEqual(
      [],
    );
  });

  it('a run paused on the budget probe’s park is budget-stopped, with the reset the probe named; the probe’s answer is read', () => {
    const budget = {
      status: 'ok' as const,
      recommendedMaxSessions: 0,
      preferMedium: false,
      park: true,
      resetAt: plus(600),
    };
    const stopped = run('paused', { budget, reason: 'the budget probe says park', stopKind: 'budget_park' });
    expect(parkViewOf({ now: t0 }, stopped, [], undefined).budgetStopped).toEqual({ resetAt: plus(600) });
    expect(parkViewOf({ now: t0 }, run('running', { budget }), [], undefined)).not.toHaveProperty(
      'budgetStopped',
    );
    expect(parkViewOf({ now: t0 }, stopped, [], budget).probeAllows).toBe(false);
    const ok = { ...budget, recommendedMaxSessions: 2, park: false };
    expect(
      parkViewOf({ now: t0, policy: { initialSeconds: 5, maxSeconds: 50 } }, stopped, [], ok),
    ).toMatchObject({
      probeAllows: true,
      policy: { initialSeconds: 5, maxSeconds: 50 },
    });
  });
});
