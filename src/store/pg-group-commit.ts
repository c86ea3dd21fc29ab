// Group commit for PostgreSQL writes that many callers make at once (webhook sightings, delivery
// leases, "processed" marks): the calls that arrive while one write is in flight go out together in
// the next, as ONE statement, so N concurrent callers cost one round trip, not N. Each caller still
// awaits its own answer. A batch the database refuses (a value it cannot store, a deadlock) is retried
// one item at a time, so one bad item fails alone and the others are still written.

/** Most items in one statement (the rest wait for the next one). */
const MAX_BATCH = 200;

interface Pending<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
}

/**
 * `write` takes a batch and answers each item, in the order given. A lone call on a quiet bot goes out
 * at once, in its own batch.
 */
export const createGroupCommit = <T, R>(
  write: (items: readonly T[]) => Promise<readonly R[]>,
): ((item: T) => Promise<R>) => {
  const pending: Pending<T, R>[] = [];
  let flushing = false;

  const settle = async (batch: Pending<T, R>[]): Promise<void> => {
    try {
      const answers = await write(batch.map((p) => p.item));
      for (const [i, p] of batch.entries()) p.resolve(answers[i]!);
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const p of batch) await settle([p]);
    }
  };

  const flush = async (): Promise<void> => {
    flushing = true;
    try {
      while (pending.length > 0) await settle(pending.splice(0, MAX_BATCH));
    } finally {
      flushing = false;
    }
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (!flushing) void flush();
    });
};
