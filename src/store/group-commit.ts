// Group commit for writes that many callers make at once (webhook sightings, delivery leases,
// "processed" marks): calls are gathered and written together, so N concurrent callers cost one round
// trip (PostgreSQL: one statement) or one commit (SQLite: one transaction), not N. Each caller still
// awaits its own answer. A batch the database refuses (a value it cannot store, a deadlock) is retried
// one item at a time, so one bad item fails alone and the others are still written.

/** Most items in one write by default (the rest wait for the next one). */
const MAX_BATCH = 200;

interface Pending<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
}

/**
 * How calls are gathered. `while-writing` (a database across the network): a call on a quiet bot goes
 * out at once, and those that arrive while a write is in flight go out together in the next.
 * `this-turn` (a synchronous engine, where nothing is ever in flight): the calls of one turn of the
 * event loop (the requests read from the sockets together) go out together just after it.
 */
export type Gather = 'while-writing' | 'this-turn';

export interface GroupOptions<T = unknown> {
  gather?: Gather;
  /** Most items in one write (default 200). */
  maxBatch?: number;
  /**
   * `while-writing`: how many writes may be in flight at once (default 1). More than one suits a
   * write that holds its connection for several round trips (a shared transaction): a call that
   * finds a connection free goes out at once, the others gather behind the writes in flight.
   */
  inFlight?: number;
  /**
   * `while-writing`: calls waiting before a write beyond the first goes out (default 1: at once). A
   * writer that is always busy costs a round trip, a statement and a commit each time it comes back,
   * whatever it carries; so a second one goes out only once a batch worth its cost is waiting, and a
   * bot whose load is spread over replicas does not double its statements per call. Calls below that
   * are never left behind: the write in flight takes them when it comes back.
   */
  spareAt?: number;
  /**
   * `while-writing`: items that need no answer soon (bookkeeping) and are not worth a write of their
   * own: one never starts a write while others will come. It goes out with the next write another
   * item starts, or the write in flight takes it when it comes back; one still waiting after
   * `rideMs` starts a write itself.
   */
  rides?: (item: T) => boolean;
  /** How long a riding item waits for a write to go out with (default 20 ms). */
  rideMs?: number;
  /**
   * `while-writing`: a writer that comes back waits for the end of that turn of the event loop before
   * its next write, so the callers its answers set going can join it: a caller that writes again at
   * once (a delivery lane going on to its next dispatch) rides the next write instead of the one
   * after. Without it the callers answered by one write gather behind the next, so a writer shared
   * by N callers that each wait for their answer carries about N/2 a write, not N.
   */
  rejoin?: boolean;
}

/** `write` takes a batch and answers each item, in the order given. */
export const createGroupCommit = <T, R>(
  write: (items: readonly T[]) => Promise<readonly R[]> | readonly R[],
  options: Gather | GroupOptions<T> = 'while-writing',
): ((item: T) => Promise<R>) => {
  const o = typeof options === 'string' ? { gather: options } : options;
  const gather = o.gather ?? 'while-writing';
  const maxBatch = o.maxBatch ?? MAX_BATCH;
  const inFlight = gather === 'this-turn' ? 1 : Math.max(1, o.inFlight ?? 1);
  const spareAt = Math.max(1, o.spareAt ?? 1);
  const pending: Pending<T, R>[] = [];
  let flushing = 0;
  /** Writers going through a refused batch item by item: they take no waiting call for a while. */
  let retrying = 0;
  const rides = gather === 'while-writing' ? o.rides : undefined;
  let rideTimer: ReturnType<typeof setTimeout> | undefined;

  const settle = async (batch: Pending<T, R>[]): Promise<void> => {
    try {
      const answers = await write(batch.map((p) => p.item));
      for (const [i, p] of batch.entries()) p.resolve(answers[i]!);
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      retrying++;
      try {
        for (const p of batch) await settle([p]);
      } finally {
        retrying--;
      }
    }
  };

  const rejoin = gather === 'while-writing' && o.rejoin === true;
  const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  /** One writer: takes what is pending, a batch at a time, until nothing is left. */
  const flush = async (): Promise<void> => {
    try {
      while (pending.length > 0) {
        await settle(pending.splice(0, maxBatch));
        if (rejoin && pending.length < maxBatch) await endOfTurn();
      }
    } finally {
      flushing--;
    }
  };

  /** Riders left waiting (no write in flight to take them) start one once `rideMs` has passed. */
  const waitForRide = (): void => {
    if (rideTimer !== undefined) return;
    rideTimer = setTimeout(() => {
      rideTimer = undefined;
      if (pending.length === 0 || flushing > 0) return;
      flushing++;
      void flush();
    }, o.rideMs ?? 20);
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (rides?.(item)) {
        if (flushing === 0) waitForRide();
        return;
      }
      // Calls below spareAt wait only for a writer that takes them when its one write is back.
      if (flushing >= inFlight || (flushing > retrying && pending.length < spareAt)) return;
      flushing++;
      if (gather === 'while-writing') void flush();
      else setImmediate(() => void flush());
    });
};
