// Serialises work per key. A run id: two reconciles of one run never overlap, and a control command
// (pause, cancel) never interleaves with a reconcile; a repository: the runner's clone work (`exclusive`). Reconcile requests that arrive while
// one is queued share it, since a reconcile reads everything afresh: ten events cost one more pass.
export interface KeyedRunner {
  /** Queues a reconcile pass for `key` unless one is already queued; resolves when it ends. */
  request(key: string, fn: () => Promise<void>): Promise<void>;
  /** Runs `fn` alone for `key`, after what is queued before it; its result or error is returned. */
  exclusive<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Resolves when nothing is running or queued for any key. */
  idle(): Promise<void>;
}

interface Slot {
  tail: Promise<void>;
  queued?: Promise<void>;
  pending: number;
}

export const createKeyedRunner = (onError: (key: string, err: unknown) => void): KeyedRunner => {
  const slots = new Map<string, Slot>();

  const slotOf = (key: string): Slot => {
    let slot = slots.get(key);
    if (!slot) {
      slot = { tail: Promise.resolve(), pending: 0 };
      slots.set(key, slot);
    }
    return slot;
  };

  const chain = <T>(key: string, slot: Slot, fn: () => Promise<T>): Promise<T> => {
    slot.pending++;
    const p = slot.tail.then(fn);
    slot.tail = p.then(
      () => undefined,
      () => undefined,
    );
    void slot.tail.then(() => {
      slot.pending--;
      if (slot.pending === 0 && slots.get(key) === slot) slots.delete(key);
    });
    return p;
  };

  return {
    request(key, fn) {
      const slot = slotOf(key);
      if (slot.queued) return slot.queued;
      const queued = chain(key, slot, async () => {
        // From here on a new request queues another pass: this one may have read stale state.
        slot.queued = undefined;
        try {
          await fn();
        } catch (err) {
          onError(key, err);
        }
      });
      slot.queued = queued;
      return queued;
    },
    exclusive(key, fn) {
      return chain(key, slotOf(key), fn);
    },
    async idle() {
      while (slots.size > 0) await Promise.all([...slots.values()].map((s) => s.tail));
    },
  };
};
