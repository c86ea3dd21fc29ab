// The run writer enforces the state table (plan/states.ts), and a run pauses and goes on by one rule
// (plan/pause.ts): the edges the steps could once take that the table has not are refused by name and
// write nothing, and each way of pausing and of going on is tried through the step that does it.
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import { silentLogger } from '../observability/logger.ts';
import type { RunPark } from '../plan/environment-park.ts';
import { type RunControlAction, type RunControlStep, runControlOf } from '../plan/run-control.ts';
import type { RunState } from '../plan/states.ts';
import type { RunProgress, RunStore } from '../store/run-store.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { parkRun, unparkRun } from './environment-park-run.ts';
import type { Announcer, Forges, Log, Records, Settings, Workers } from './ports.ts';
import { setRunState, stopRun } from './run-state.ts';
import { isRunTransitionError, writeRun } from './run-writer.ts';

const runIn = async (state: RunState, progress: RunProgress = {}): Promise<RunStore> => {
  const store = openSqliteRunStore(':memory:');
  await store.createRun({ ...newRun('r1'), state, progress });
  return store;
};

/** What start-run.ts does with a person's `/blitz pause|resume|cancel`: decide on the fresh run, write. */
const command = async (store: RunStore, action: RunControlAction): Promise<RunControlStep> => {
  let step: RunControlStep | undefined;
  await writeRun(store, 'r1', (now) => {
    step = runControlOf(now, action);
    return step.patch;
  });
  return step!;
};

const park: RunPark = {
  kind: 'environment',
  reason: 'model endpoint unreachable',
  since: '2026-12-07T10:00:00.000Z',
  failures: 1,
  nextProbeAt: '2026-12-07T10:01:00.000Z',
  interrupted: [],
};

const parkDeps = (store: RunStore) =>
  ({
    store,
    logger: silentLogger(),
    config: {},
    notifiers: [],
    // These parks are not announced (`notice: false`): a forge asked for anything fails the test.
    forges: () => Promise.reject(new Error('no forge in these tests')),
  }) as unknown as Records & Forges & Announcer & Log & Settings;

const stopDeps = (store: RunStore) =>
  ({
    store,
    logger: silentLogger(),
    ledger: { listByRun: async () => [] },
    config: { modelNotesPath: '/nonexistent/blitz-notes/models.md' },
  }) as unknown as Records & Workers & Log & Settings;

describe('the run writer refuses an edge the state table has not', () => {
  // Each edge a step once wrote: `/blitz pause` on a blocked run, a command racing the run's end, a ship
  // performed while gating, a park lifted into the state an old pause kept (blocked, review_unclear).
  const forbidden: [RunState, RunState][] = [
    ['blocked', 'paused'],
    ['done', 'paused'],
    ['done', 'cancelled'],
    ['cancelled', 'paused'],
    ['gating', 'done'],
    ['paused', 'review_unclear'],
    ['paused', 'blocked'],
  ];
  for (const [from, to] of forbidden)
    it(`${from} → ${to}: a RunTransitionError, and nothing is written`, async () => {
      const store = await runIn(from, { wave: 2 });
      const before = (await store.getRun('r1'))!;
      const err = await writeRun(store, 'r1', () => ({ state: to, progress: { wave: 3 } })).catch(
        (e: unknown) => e,
      );
      expect(isRunTransitionError(err)).toBe(true);
      expect(err).toMatchObject({ code: 'forbidden_transition', runId: 'r1', from, to });
      const after = (await store.getRun('r1'))!;
      expect(after).toEqual(before);
      await store.close();
    });

  it('a write that keeps the state, or takes an edge of the table, goes through', async () => {
    const store = await runIn('done');
    const kept = await writeRun(store, 'r1', () => ({ state: 'done', progress: { wave: 1 } }));
    expect(kept).toMatchObject({ state: 'done', progress: { wave: 1 }, version: 1 });
    const other = openSqliteRunStore(':memory:');
    await other.createRun({ ...newRun('r1'), state: 'gating' });
    expect((await writeRun(other, 'r1', () => ({ state: 'shipping' }))).state).toBe('shipping');
    await Promise.all([store.close(), other.close()]);
  });

  it('set_state from a state the table leaves by another edge only is refused, not skipped', async () => {
    const store = await runIn('blocked');
    const err = await setRunState({ store }, 'r1', {
      type: 'set_state',
      from: ['blocked'],
      to: 'done',
    }).catch((e: unknown) => e);
    expect(isRunTransitionError(err)).toBe(true);
    expect((await store.getRun('r1'))!.state).toBe('blocked');
    await store.close();
  });
});

describe('a person’s pause, resume and cancel keep to the table', () => {
  it('`/blitz pause` on a blocked run pauses nothing and says so; the run stays blocked', async () => {
    const store = await runIn('blocked', { reason: 'the build on the integration branch is red' });
    expect(await command(store, 'pause')).toEqual({ outcome: 'blocked' });
    const run = (await store.getRun('r1'))!;
    expect(run).toMatchObject({ state: 'blocked', version: 0 });
    expect(run.progress.pausedFrom).toBeUndefined();
    await store.close();
  });

  it('a command on a run that ended meanwhile changes nothing', async () => {
    for (const end of ['done', 'cancelled'] as const)
      for (const action of ['pause', 'resume', 'cancel'] as const) {
        const store = await runIn(end);
        expect(await command(store, action)).toEqual({ outcome: 'ended' });
        expect((await store.getRun('r1'))!).toMatchObject({ state: end, version: 0 });
        await store.close();
      }
  });
});

describe('one pause rule: going on returns to where the pause came from', () => {
  it('`/blitz pause` in gating, then `/blitz resume`: back in gating, the memory of the pause gone', async () => {
    const store = await runIn('gating', { wave: 2 });
    expect((await command(store, 'pause')).outcome).toBe('paused');
    expect((await store.getRun('r1'))!).toMatchObject({
      state: 'paused',
      progress: { wave: 2, pausedFrom: 'gating' },
    });
    expect((await command(store, 'resume')).outcome).toBe('resumed');
    const run = (await store.getRun('r1'))!;
    expect(run.state).toBe('gating');
    expect(run.progress).toEqual({ wave: 2 });
    await store.close();
  });

  it('`/blitz pause` of a shipping run and its resume: back in shipping', async () => {
    const store = await runIn('shipping');
    await command(store, 'pause');
    expect((await store.getRun('r1'))!.progress.pausedFrom).toBe('shipping');
    await command(store, 'resume');
    expect((await store.getRun('r1'))!.state).toBe('shipping');
    await store.close();
  });

  it('a run paused while it waited on an unclear review goes on in running (the next pass asks again)', async () => {
    const store = await runIn('review_unclear');
    await command(store, 'pause');
    expect((await store.getRun('r1'))!).toMatchObject({
      state: 'paused',
      progress: { pausedFrom: 'running' },
    });
    await command(store, 'resume');
    expect((await store.getRun('r1'))!.state).toBe('running');
    await store.close();
  });

  it('a park in gating pauses the run; the park lifted, it is back in gating', async () => {
    const store = await runIn('gating');
    const parked = await parkRun(parkDeps(store), (await store.getRun('r1'))!, {
      park,
      seen: [],
      notice: false,
    });
    expect(parked).toMatchObject({ state: 'paused', progress: { pausedFrom: 'gating', park } });
    const lifted = await unparkRun(parkDeps(store), parked, 'the endpoint answers');
    expect(lifted.state).toBe('gating');
    expect(lifted.progress.park).toBeUndefined();
    expect(lifted.progress.pausedFrom).toBeUndefined();
    await store.close();
  });

  it('a parked run resumed by a person goes where the park came from, as lifting the park does', async () => {
    const store = await runIn('shipping');
    await parkRun(parkDeps(store), (await store.getRun('r1'))!, { park, seen: [], notice: false });
    expect((await command(store, 'resume')).outcome).toBe('resumed');
    expect((await store.getRun('r1'))!.state).toBe('shipping');
    await store.close();
  });

  it('a person’s pause, then a park, then the park lifted: back where the person paused it', async () => {
    const store = await runIn('gating');
    await command(store, 'pause');
    await parkRun(parkDeps(store), (await store.getRun('r1'))!, { park, seen: [], notice: false });
    expect((await store.getRun('r1'))!.progress.pausedFrom).toBe('gating');
    expect((await unparkRun(parkDeps(store), (await store.getRun('r1'))!, 'up')).state).toBe('gating');
    await store.close();
  });

  it('a park on a blocked run keeps it blocked, the park kept beside it', async () => {
    const store = await runIn('blocked');
    const parked = await parkRun(parkDeps(store), (await store.getRun('r1'))!, {
      park,
      seen: [],
      notice: false,
    });
    expect(parked.state).toBe('blocked');
    expect(parked.progress.park).toEqual(park);
    expect(parked.progress.pausedFrom).toBeUndefined();
    await store.close();
  });

  it('the planner’s `paused` stop (the budget) remembers the state it left, like every pause', async () => {
    const store = await runIn('gating');
    const stopped = await stopRun(stopDeps(store), 'r1', 'paused', 'the budget probe says park', undefined, {
      kind: 'budget_park',
    });
    expect(stopped).toMatchObject({ state: 'paused', progress: { pausedFrom: 'gating' } });
    await command(store, 'resume');
    expect((await store.getRun('r1'))!.state).toBe('gating');
    await store.close();
  });

  it('a pause kept before the rule (from blocked or an unclear review) resumes into running, not refused', async () => {
    for (const from of ['blocked', 'review_unclear'] as const) {
      const store = await runIn('paused', { pausedFrom: from });
      await command(store, 'resume');
      expect((await store.getRun('r1'))!.state).toBe('running');
      const again = await runIn('paused', { pausedFrom: from, park });
      expect((await unparkRun(parkDeps(again), (await again.getRun('r1'))!, 'up')).state).toBe('running');
      await Promise.all([store.close(), again.close()]);
    }
  });
});
