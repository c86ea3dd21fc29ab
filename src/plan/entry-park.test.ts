import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type EntryPark,
  endpointOf,
  entryParkStep,
  runParkOnEntries,
  waitingEndpoints,
} from './entry-park.ts';
import { failsOverIn } from './failover.ts';
import { parkActions } from './park.ts';
import { pickWorker, type RosterEntry } from './routing.ts';
import type { EnvironmentFailureSeen, ParkView, RunSnapshot } from './snapshot.ts';
import { tiers } from './tier.ts';

const t0 = '2026-12-01T11:00:00.000Z';
const plus = (s: number) => new Date(Date.parse(t0) + s * 1000).toISOString();
const entry = (name: string, o: Partial<RosterEntry> = {}): RosterEntry => ({
  name,
  tool: 'custom',
  command: ['agent', name],
  roles: ['blitz', 'fleet'],
  tiers: ['execution'],
  costRank: 1,
  ...o,
});
const a = entry('a', { costRank: 0 });
const b = entry('b', { costRank: 1 });
const up = entry('up', { tiers: ['design'], costRank: 2 });
const view = (o: Partial<ParkView> = {}): ParkView => ({
  now: t0,
  policy: { initialSeconds: 60, maxSeconds: 600 },
  failures: [],
  answered: false,
  resumable: [],
  ...o,
});
const down = (e: RosterEntry, issue = 'o/r#1', id = 'x1'): EnvironmentFailureSeen => ({
  attemptId: id,
  seen: `${id}@t`,
  reason: 'model endpoint unreachable',
  cause: 'endpoint_unreachable',
  issue,
  entry: e.name,
  endpoint: endpointOf(e),
});
const snap = (roster: RosterEntry[]): RunSnapshot =>
  ({
    kind: 'blitz',
    options: { maxSessions: 2, dryRun: false },
    issues: [
      {
        repo: 'o/r',
        number: 1,
        title: 'One',
        body: 'Fix: change `src/a.ts` to return 1 because the bug is the off-by-one.',
        labels: [],
        state: 'open',
        blockedBy: [],
        authorTrusted: true,
      },
    ],
    progress: [
      {
        key: 'o/r#1',
        state: 'failed',
        attempts: [{ entry: 'a', tier: 'execution', outcome: 'environment_failure' }],
      },
    ],
    budget: { verdict: 'ok', recommendedMaxSessions: 2, preferMedium: false },
    roster,
  }) as unknown as RunSnapshot;

describe('endpointOf', () => {
  it('is one endpoint for entries that differ only in the model, and another for another key or base URL', () => {
    const sonnet = { tool: 'claude', model: 'sonnet' } as const;
    expect(endpointOf(sonnet)).toBe(endpointOf({ tool: 'claude' }));
    expect(endpointOf({ tool: 'claude', env: { ANTHROPIC_BASE_URL: 'http://b' } })).not.toBe(
      endpointOf(sonnet),
    );
    expect(endpointOf({ tool: 'claude', env: { ANTHROPIC_API_KEY: { fromEnv: 'KEY_TWO' } } })).not.toBe(
      endpointOf({ tool: 'claude', env: { ANTHROPIC_API_KEY: { fromEnv: 'KEY_ONE' } } }),
    );
    expect(endpointOf(a)).not.toBe(endpointOf(b));
  });
});

describe('routing around parked endpoints', () => {
  const input = { role: 'blitz' as const, assessedTier: 'execution' as const, attempts: [] };

  it('goes sideways to a peer of the tier, then up, never down, and waits when every one is parked', () => {
    const roster = [a, b, up];
    expect(pickWorker({ ...input, roster, parked: new Set([endpointOf(a)]) }).entry.name).toBe('b');
    const both = new Set([endpointOf(a), endpointOf(b)]);
    expect(pickWorker({ ...input, roster, parked: both })).toMatchObject({ entry: up, tier: 'design' });
    const all = new Set([...both, endpointOf(up)]);
    expect(pickWorker({ ...input, roster, parked: all })).toMatchObject({ parked: true });
    // A design issue never goes down to the execution entries, healthy as they are.
    expect(
      pickWorker({ ...input, assessedTier: 'design', roster, parked: new Set([endpointOf(up)]) }),
    ).toMatchObject({ parked: true });
  });

  it('never escapes a parked tier into a built-in default the roster did not name', () => {
    const pick = pickWorker({ ...input, roster: [a], parked: new Set([endpointOf(a)]) });
    expect(pick.parked).toBe(true);
  });

  it('is unchanged with nothing parked', () => {
    fc.assert(
      fc.property(fc.constantFrom(...tiers), fc.integer({ min: 0, max: 3 }), (tier, n) => {
        const roster = [a, b, up].slice(0, n);
        const plain = pickWorker({ ...input, assessedTier: tier, roster });
        expect(pickWorker({ ...input, assessedTier: tier, roster, parked: new Set() })).toEqual(plain);
      }),
    );
  });

  it('never picks an entry on a parked endpoint, nor one below the floor', () => {
    const roster = [a, b, up, entry('top', { tiers: ['subtle'], costRank: 3 })];
    fc.assert(
      fc.property(
        fc.subarray(roster.map((e) => endpointOf(e))),
        fc.constantFrom(...tiers),
        (parked, tier) => {
          const pick = pickWorker({ ...input, assessedTier: tier, roster, parked: new Set(parked) });
          if (pick.parked) return;
          expect(parked).not.toContain(endpointOf(pick.entry));
          expect(tiers.indexOf(pick.tier)).toBeGreaterThanOrEqual(tiers.indexOf(tier));
        },
      ),
    );
  });
});

describe('parkActions with failover', () => {
  it('an outage of one entry parks its endpoint, not the run, when a peer can take the issue', () => {
    const got = parkActions('running', view({ failures: [down(a)] }), true, failsOverIn(snap([a, b])));
    expect(got).toEqual([
      {
        type: 'park_entry',
        endpoint: endpointOf(a),
        seen: ['x1@t'],
        park: {
          kind: 'environment',
          reason: 'model endpoint unreachable',
          cause: 'endpoint_unreachable',
          since: t0,
          failures: 1,
          interrupted: ['x1'],
          nextProbeAt: plus(60),
          entries: ['a'],
        },
      },
    ]);
  });

  it('parks the run when no other entry can take it', () => {
    const got = parkActions('running', view({ failures: [down(a)] }), true, failsOverIn(snap([a])));
    expect(got).toMatchObject([
      { type: 'park', notice: true, park: { kind: 'environment', endpoints: [endpointOf(a)] } },
    ]);
    // The peer is parked too: the run parks.
    const peerDown: EntryPark = {
      kind: 'environment',
      reason: 'model endpoint unreachable',
      since: t0,
      failures: 1,
      interrupted: [],
      nextProbeAt: plus(60),
      entries: ['b'],
    };
    const both = view({ failures: [down(a)], entries: { [endpointOf(b)]: peerDown } });
    expect(parkActions('running', both, true, failsOverIn(snap([a, b])))[0]).toMatchObject({ type: 'park' });
  });

  it('a parked endpoint is probed when due, lifts once an attempt on it answered, and waits twice as long when met again', () => {
    const parked: EntryPark = {
      kind: 'environment',
      reason: 'model endpoint unreachable',
      since: t0,
      failures: 1,
      interrupted: ['x1'],
      nextProbeAt: plus(60),
      entries: ['a'],
    };
    const ep = endpointOf(a);
    expect(entryParkStep(plus(30), { [ep]: parked }, new Set())).toBeUndefined();
    expect(waitingEndpoints({ [ep]: parked })).toEqual(new Set([ep]));
    const probe = entryParkStep(plus(61), { [ep]: parked }, new Set());
    expect(probe).toEqual({ type: 'probe_entry', endpoint: ep, park: { ...parked, probingSince: plus(61) } });
    const probing = { ...parked, probingSince: plus(61) };
    expect(waitingEndpoints({ [ep]: probing }).size).toBe(0);
    expect(entryParkStep(plus(70), { [ep]: probing }, new Set())).toBeUndefined();
    // On watch with no work going to it: after the longest wait it lifts rather than stay on watch for ever.
    expect(entryParkStep(plus(70), { [ep]: probing }, new Set(), 600)).toBeUndefined();
    expect(entryParkStep(plus(661), { [ep]: probing }, new Set(), 600)).toEqual({
      type: 'unpark_entry',
      endpoint: ep,
      reason: 'no attempt failed on it while on watch',
    });
    expect(entryParkStep(plus(70), { [ep]: probing }, new Set([ep]))).toEqual({
      type: 'unpark_entry',
      endpoint: ep,
      reason: 'the endpoint answers',
    });
    const again = parkActions(
      'running',
      view({ now: plus(70), failures: [down(a, 'o/r#1', 'x2')], entries: { [ep]: probing } }),
      true,
      failsOverIn(snap([a, b])),
    );
    expect(again[0]).toMatchObject({
      type: 'park_entry',
      park: { failures: 2, nextProbeAt: plus(70 + 120) },
    });
  });

  it('the run waiting only on parked entries waits for the first probe and names the entries', () => {
    const park = (n: number, name: string): EntryPark => ({
      kind: 'environment',
      reason: 'model endpoint unreachable',
      since: t0,
      failures: 1,
      interrupted: [],
      nextProbeAt: plus(n),
      entries: [name],
    });
    const run = runParkOnEntries(t0, { x: park(300, 'b'), y: park(60, 'a') });
    expect(run).toMatchObject({ nextProbeAt: plus(60), interrupted: [], endpoints: ['x', 'y'] });
    expect(run?.reason).toMatch(/a, b/);
    expect(runParkOnEntries(t0, { y: { ...park(60, 'a'), probingSince: t0 } })).toBeUndefined();
  });
});
