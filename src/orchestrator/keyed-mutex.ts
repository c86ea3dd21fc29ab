// Serialises work per key (a run id): two reconciles of one run never overlap. A request that
// arrives while one runs is folded into a single follow-up pass, since a reconcile reads everything
// afresh: ten events during one pass cost one more pass, not ten.
export interface KeyedRunner {
  /** Runs `fn` for `key` now, or once more after the current pass; resolves when that pass ends. */
  request(key: string, fn: () => Promise<void>): Promise<void>;
  /** Resolves when nothing is running or queued for any key. */
  idle(): Promise<void>;
}

interface Slot {
  running: Promise<void>;
  again?: { fn: () => Promise<void>; done: Promise<void> };
}

export const createKeyedRunner = (onError: (key: string, err: unknown) => void): KeyedRunner => {
  const slots = new Map<string, Slot>();

  const start = (key: string, fn: () => Promise<void>): Promise<void> => {
    const running = fn()
      .catch((err: unknown) => onError(key, err))
      .finally(() => {
        const slot = slots.get(key);
        const next = slot?.again;
        if (slot && next) {
          slot.again = undefined;
          slot.running = start(key, next.fn);
        } else slots.delete(key);
      });
    return running;
  };

  return {
    request(key, fn) {
      const slot = slots.get(key);
      if (!slot) {
        const s: Slot = { running: Promise.resolve() };
        slots.set(key, s);
        s.running = start(key, fn);
        return s.running;
      }
      if (slot.again) {
        slot.again.fn = fn;
        return slot.again.done;
      }
      // The follow-up pass starts when the current one ends; its promise is chained to that.
      const current = slot.running;
      const again: Slot['again'] = {
        fn,
        done: current.then(() => slots.get(key)?.running ?? Promise.resolve()),
      };
      slot.again = again;
      return again.done;
    },
    async idle() {
      while (slots.size > 0) await Promise.all([...slots.values()].map((s) => s.running));
    },
  };
};
