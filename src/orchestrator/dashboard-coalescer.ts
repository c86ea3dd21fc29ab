// Coalesces dashboard edits: at most one edit per interval (10 s) per run, the latest content wins,
// content equal to what was last published is not sent again, and a final flush on run end sends
// what is pending at once. Time comes through a clock and a timer port so that tests never sleep.

export interface Clock {
  now(): number;
}

export interface TimerPort {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const systemClock: Clock = { now: () => Date.now() };

export const systemTimers: TimerPort = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A pending dashboard edit must not keep the process alive on shutdown; flush() is the way out.
    t.unref?.();
    return t;
  },
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface CoalescerOptions {
  /** Edits the run's dashboard comment (find-or-create by marker is the caller's business). */
  publish: (runId: string, body: string) => Promise<void>;
  intervalMs?: number;
  clock?: Clock;
  timers?: TimerPort;
  /** A failed edit is reported here and retried at the next slot; it never throws into the run. */
  onError?: (runId: string, err: unknown) => void;
}

export interface DashboardCoalescer {
  /** Records the latest content; it is published now or at the run's next slot. */
  update(runId: string, body: string): void;
  /** Publishes what is pending now, waits for it, and forgets the run (run end, shutdown). */
  flush(runId: string): Promise<void>;
  /** Runs with content not yet published. */
  pendingRuns(): string[];
}

interface RunSlot {
  lastAt?: number;
  lastBody?: string;
  pending?: string;
  timer?: unknown;
  inFlight?: Promise<void>;
}

export const createDashboardCoalescer = (opts: CoalescerOptions): DashboardCoalescer => {
  const intervalMs = opts.intervalMs ?? 10_000;
  const clock = opts.clock ?? systemClock;
  const timers = opts.timers ?? systemTimers;
  const runs = new Map<string, RunSlot>();

  const send = (runId: string, slot: RunSlot, body: string): Promise<void> =>
    opts.publish(runId, body).then(
      () => {
        slot.lastBody = body;
      },
      (err: unknown) => {
        opts.onError?.(runId, err);
        // Retry at the next slot unless something newer is already waiting.
        if (slot.pending === undefined) slot.pending = body;
      },
    );

  const publishNow = (runId: string, slot: RunSlot): void => {
    const body = slot.pending;
    if (body === undefined) return;
    slot.pending = undefined;
    slot.lastAt = clock.now();
    slot.inFlight = send(runId, slot, body).finally(() => {
      slot.inFlight = undefined;
      if (runs.get(runId) === slot) schedule(runId, slot);
    });
  };

  const schedule = (runId: string, slot: RunSlot): void => {
    if (slot.timer !== undefined || slot.inFlight) return;
    if (slot.pending === undefined) return;
    if (slot.pending === slot.lastBody) {
      slot.pending = undefined;
      return;
    }
    const wait = slot.lastAt === undefined ? 0 : slot.lastAt + intervalMs - clock.now();
    if (wait <= 0) {
      publishNow(runId, slot);
      return;
    }
    slot.timer = timers.set(() => {
      slot.timer = undefined;
      publishNow(runId, slot);
    }, wait);
  };

  return {
    update(runId, body) {
      let slot = runs.get(runId);
      if (!slot) {
        slot = {};
        runs.set(runId, slot);
      }
      slot.pending = body;
      schedule(runId, slot);
    },

    async flush(runId) {
      const slot = runs.get(runId);
      if (!slot) return;
      runs.delete(runId);
      if (slot.timer !== undefined) timers.clear(slot.timer);
      slot.timer = undefined;
      if (slot.inFlight) await slot.inFlight;
      const body = slot.pending;
      slot.pending = undefined;
      if (body !== undefined && body !== slot.lastBody) await send(runId, slot, body);
    },

    pendingRuns() {
      return [...runs.entries()].filter(([, s]) => s.pending !== undefined).map(([id]) => id);
    },
  };
};
