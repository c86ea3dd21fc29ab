import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeliveryRef } from './pg-delivery-bookkeeping.ts';
import { createDeliveryWrites } from './pg-delivery-writes.ts';
import type { DeliveryOutcome, NewDelivery } from './types.ts';

const sighting = (deliveryId: string): NewDelivery => ({
  forge: 'github',
  deliveryId,
  event: 'issues',
  outcome: 'accepted',
  events: [],
});
const ref = (deliveryId: string): DeliveryRef => ({ forge: 'github', deliveryId });

/** Writers that record each write as it goes out and answer it once the test opens its gate. */
const gatedWriters = (refuse: (ds: readonly NewDelivery[]) => boolean = () => false) => {
  const writes: { sightings?: string[]; marks: string[] }[] = [];
  const gates: (() => void)[] = [];
  const gate = () => new Promise<void>((r) => gates.push(r));
  const writes$ = createDeliveryWrites(
    {
      async sightings(ds, marks) {
        writes.push({ sightings: ds.map((d) => d.deliveryId), marks: marks.map((m) => m.deliveryId) });
        await gate();
        if (refuse(ds)) throw new Error('refused');
        return ds.map((): DeliveryOutcome => 'accepted');
      },
      async marks(refs) {
        writes.push({ marks: refs.map((m) => m.deliveryId) });
        await gate();
      },
    },
    { inFlight: 2, spareAt: 32, rideMs: 20 },
  );
  const openAll = async () => {
    while (gates.length > 0) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { writes, gates, openAll, ...writes$ };
};

describe('createDeliveryWrites', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('marks made while a sighting batch is in flight ride in the next sighting batch, not a write of their own', async () => {
    const w = gatedWriters();
    const first = w.record(sighting('a'));
    const marks = [w.mark(ref('p')), w.mark(ref('q'))];
    const second = w.record(sighting('b'));
    expect(w.writes).toEqual([{ sightings: ['a'], marks: [] }]);
    w.gates.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(w.writes).toEqual([
      { sightings: ['a'], marks: [] },
      { sightings: ['b'], marks: ['p', 'q'] },
    ]);
    await w.openAll();
    expect(await Promise.all([first, second])).toEqual(['accepted', 'accepted']);
    await Promise.all(marks);
    expect(w.writes).toHaveLength(2);
  });

  it('a mark on a quiet store waits for the next sighting batch and rides in it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const w = gatedWriters();
    const mark = w.mark(ref('p'));
    await vi.advanceTimersByTimeAsync(5);
    expect(w.writes).toEqual([]);
    const recorded = w.record(sighting('a'));
    expect(w.writes).toEqual([{ sightings: ['a'], marks: ['p'] }]);
    await w.openAll();
    expect(await recorded).toBe('accepted');
    await mark;
  });

  it('a mark no sighting batch comes for, or left when none follows, goes out alone after rideMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const w = gatedWriters();
    const lone = w.mark(ref('p'));
    await vi.advanceTimersByTimeAsync(20);
    expect(w.writes).toEqual([{ marks: ['p'] }]);
    await w.openAll();
    await lone;
    const recorded = w.record(sighting('a'));
    const left = w.mark(ref('q'));
    expect(w.writes).toEqual([{ marks: ['p'] }, { sightings: ['a'], marks: [] }]);
    await w.openAll();
    await recorded;
    // The sighting batch came back and took the mark waiting behind it.
    await vi.advanceTimersByTimeAsync(0);
    expect(w.writes).toEqual([{ marks: ['p'] }, { sightings: ['a'], marks: [] }, { marks: ['q'] }]);
    await w.openAll();
    await left;
  });

  it('a refused batch: the bad sighting fails alone, the others and the marks riding with it are still written', async () => {
    const w = gatedWriters((ds) => ds.some((d) => d.deliveryId === 'bad'));
    const first = w.record(sighting('a'));
    const rest = Promise.allSettled([w.record(sighting('b')), w.mark(ref('p')), w.record(sighting('bad'))]);
    await w.openAll();
    await first;
    expect((await rest).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(w.writes).toEqual([
      { sightings: ['a'], marks: [] },
      { sightings: ['b', 'bad'], marks: ['p'] },
      { sightings: ['b'], marks: [] },
      { marks: ['p'] },
      { sightings: ['bad'], marks: [] },
    ]);
  });
});
