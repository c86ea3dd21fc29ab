import { describe, expect, it } from 'vitest';
import { baseSnapshot, issue, k, progressOf } from '../../test/support/plan-arbitraries.ts';
import { nextActions } from './next-actions.ts';
import type { Action } from './snapshot.ts';
import { fleetOrder, type TicketFacts, ticketSkipReason, triageTicket } from './triage.ts';
import type { PlanIssue } from './types.ts';
import { keyOf } from './types.ts';

const dispatched = (xs: Action[]) => xs.filter((a) => a.type === 'dispatch').map((a) => a.issue);

describe('triageTicket', () => {
  const cases: { name: string; body: string; run: boolean }[] = [
    {
      name: 'a self-contained ticket runs',
      body: 'Rename `src/a.ts` to `src/b.ts` and fix the imports.',
      run: true,
    },
    {
      name: 'production access is skipped',
      body: 'Needs prod access to check the env var first.',
      run: false,
    },
    {
      name: "a person's judgment mid-flight is skipped",
      body: 'Pick the colour, but ask the user before merging.',
      run: false,
    },
    {
      name: 'edits across repositories are skipped',
      body: 'Bump the shared schema in both repos.',
      run: false,
    },
  ];
  for (const c of cases) it(c.name, () => expect(triageTicket(issue(1, { body: c.body })).run).toBe(c.run));

  it('says why a ticket is skipped', () => {
    expect(triageTicket(issue(1, { body: 'ssh into the box and restart the service' }))).toEqual({
      run: false,
      reason: 'it needs production access ("ssh into")',
    });
  });
});

describe('fleetOrder', () => {
  it('puts mechanical tickets first and tickets of a busy repo last', () => {
    const xs: PlanIssue[] = [
      issue(1, { body: 'Decide the interface and the data model for the cache; choose the options.' }),
      issue(2),
      { ...issue(3), repo: 'acme/busy' },
    ];
    const map = new Map(xs.map((i) => [keyOf(i), i]));
    expect(fleetOrder(map, xs.map(keyOf), new Set(['acme/busy']))).toEqual([k(2), k(1), 'acme/busy#3']);
  });
});

describe('fleet runs', () => {
  it('pilot one ticket before fanning out, then fill the slots', () => {
    const issues = [issue(1), issue(2), issue(3)];
    const first = nextActions('running', baseSnapshot(issues, { kind: 'fleet' }));
    expect(dispatched(first)).toEqual([k(1)]);
    const piloting = baseSnapshot(issues, {
      kind: 'fleet',
      progress: [progressOf(k(1), { state: 'working' })],
    });
    expect(nextActions('running', piloting)).toEqual([]);
    const pushed = baseSnapshot(issues, {
      kind: 'fleet',
      progress: [progressOf(k(1), { state: 'pushed', branchPushed: true })],
    });
    expect(dispatched(nextActions('running', pushed))).toEqual([k(2), k(3)]);
  });

  it('a ticket triage skips is held and explained, never dispatched', () => {
    const got = nextActions(
      'running',
      baseSnapshot([issue(1, { body: 'needs prod access' })], { kind: 'fleet' }),
    );
    expect(dispatched(got)).toEqual([]);
    const stop = got.find((a) => a.type === 'stop');
    expect(stop).toMatchObject({ state: 'blocked' });
    expect(stop?.type === 'stop' && stop.reason).toContain('skipped by triage: it needs production access');
  });
});

describe('ticketSkipReason', () => {
  const facts = (over: Partial<TicketFacts> = {}): TicketFacts => ({
    ticket: issue(1, { title: 'Fix the typo in the README' }),
    isPullRequest: false,
    locked: false,
    namedBefore: false,
    accepted: 0,
    maxTickets: 2,
    ...over,
  });

  it('lets a plain open ticket run, and names why each other one is skipped', () => {
    expect(ticketSkipReason(facts())).toBeUndefined();
    expect(ticketSkipReason(facts({ namedBefore: true }))).toBe('it is named twice; it runs once');
    expect(ticketSkipReason(facts({ isPullRequest: true }))).toBe('it is a pull request, not an issue');
    expect(ticketSkipReason(facts({ ticket: issue(1, { state: 'closed' }) }))).toBe('it is closed');
    expect(ticketSkipReason(facts({ locked: true }))).toBe('it is locked');
    expect(ticketSkipReason(facts({ otherFleet: 'acme/app#4' }))).toBe(
      'it is already in the fleet on acme/app#4',
    );
    expect(ticketSkipReason(facts({ ticket: issue(1, { title: 'Epic: the new login' }) }))).toContain(
      'it is an epic',
    );
    expect(ticketSkipReason(facts({ ticket: issue(1, { body: 'needs production access' }) }))).toContain(
      'production access',
    );
    expect(ticketSkipReason(facts({ accepted: 2 }))).toBe('a fleet runs at most 2 tickets');
  });
});
