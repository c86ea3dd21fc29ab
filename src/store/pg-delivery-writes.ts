// Webhook sightings and "processed" marks on PostgreSQL, gathered by ONE group commit (group-commit.ts):
// the marks that wait while a sighting batch is in flight ride in the next sighting batch's statement
// (pg-delivery-batch.ts), and commit with it, instead of a batch of their own per round trip. A
// replica's writers come back once per round trip whatever they carry, so a second replica, each with
// half the deliveries, used to double the mark statements per delivery. A mark never starts a write
// of its own at once: made when no batch is in flight, it waits for the next sighting (up to `rideMs`,
// 20 ms): alone, marks went out in a statement per round trip whenever the sighting writers happened
// to be idle, more often the fewer deliveries a replica has. A write with no sighting in it (a quiet
// bot, a burst's last marks) is a mark batch alone on the bookkeeping pool, whose commits do not wait
// for the WAL flush (pg-delivery-bookkeeping.ts). A mark that rides a sighting batch is durable with
// it; one alone may be lost in a crash, which replays an idempotent delivery.

import { createGroupCommit, type GroupOptions } from './group-commit.ts';
import type { DeliveryRef } from './pg-delivery-bookkeeping.ts';
import type { DeliveryOutcome, NewDelivery } from './types.ts';

export interface DeliveryWriters {
  /** One statement: the sightings (each answered, in order) and the marks. */
  sightings(ds: readonly NewDelivery[], marks: readonly DeliveryRef[]): Promise<readonly DeliveryOutcome[]>;
  /** The marks alone. */
  marks(refs: readonly DeliveryRef[]): Promise<unknown>;
}

type Write = { sighting: NewDelivery } | { mark: DeliveryRef };

export interface DeliveryWrites {
  record(d: NewDelivery): Promise<DeliveryOutcome>;
  mark(ref: DeliveryRef): Promise<void>;
}

/**
 * `options`: the group commit's (writes in flight, `spareAt`, how long a mark waits for a sighting
 * batch to ride in); sightings and marks both count.
 */
export const createDeliveryWrites = (
  w: DeliveryWriters,
  options: Omit<GroupOptions, 'gather' | 'rides'> = {},
): DeliveryWrites => {
  const write = createGroupCommit(
    async (items: readonly Write[]): Promise<(DeliveryOutcome | undefined)[]> => {
      const ds: NewDelivery[] = [];
      const marks: DeliveryRef[] = [];
      for (const item of items) {
        if ('sighting' in item) ds.push(item.sighting);
        else marks.push(item.mark);
      }
      if (ds.length === 0) {
        await w.marks(marks);
        return items.map(() => undefined);
      }
      const outcomes = await w.sightings(ds, marks);
      let next = 0;
      return items.map((item) => ('sighting' in item ? outcomes[next++] : undefined));
    },
    { ...options, gather: 'while-writing', rides: (item) => 'mark' in item },
  );
  return {
    record: (d) => write({ sighting: d }) as Promise<DeliveryOutcome>,
    mark: async (ref) => {
      await write({ mark: ref });
    },
  };
};
