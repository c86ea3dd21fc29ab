// Coalesces dashboard edits: at most one edit per interval per run, the latest content wins, content
// equal to what was last published is not sent again, and a final flush on run end sends what is
// pending at once. The interval (30 s by default) is per run while one run is active and grows with
// the runs active on this bot (n runs: n × the interval each), so all dashboards together edit at most
// 120 times an hour by default, a quarter of GitHub's secondary limit on content-creating requests
// (500 an hour) whatever the number of runs. Time comes through a clock and a timer port so that
// tests never sleep.

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
  /** Per run while it is the only active one; n active runs wait n × this each. */
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
  /** Waits for the edits in flight (and those due at once after them); timed ones keep their slot. */
  settle(): Promise<void>;
  /** Runs with content not yet published. */
  pendingRuns(): string[];
}

interface RunSlot {
  lastAt?: number;
  lastBody?: string;
  /** The last update (a run with none for activeMs no longer counts as active). */
  updatedAt: number;
  /** After a failed edit, not before this (at least a second even when the interval is 0). */
  retryAt?: number;
  pending?: string;
  timer?: unknown;
  inFlight?: Promise<void>;
}

const minRetryMs = 1000;

/** The composed bot's interval per run (one active run). */
export const defaultDashboardIntervalMs = 30_000;

/** A run whose dashboard had no update for this long no longer shares the edit budget. */
const activeMs = 15 * 60_000;

export const createDashboardCoalescer = (opts: CoalescerOptions): DashboardCoalescer => {
  const baseMs = opts.intervalMs ?? defaultDashboardIntervalMs;
  const clock = opts.clock ?? systemClock;
  const timers = opts.timers ?? systemTimers;
  const runs = new Map<string, RunSlot>();
  /** The interval each run waits now: the base times the runs active on this bot. */
  const intervalMs = (): number => {
    const since = clock.now() - activeMs;
    let active = 0;
    for (const s of runs.values()) if (s.updatedAt > since) active += 1;
    return baseMs * Math.max(1, active);
  };

  const send = (runId: string, slot: RunSlot, body: string): Promise<void> =>
    opts.publish(runId, body).then(
      () => {
        slot.lastBody = body;
        slot.retryAt = undefined;
      },
      (err: unknown) => {
        opts.onError?.(runId, err);
        slot.retryAt = clock.now() + Math.max(intervalMs(), minRetryMs);
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
    const due = Math.max(slot.lastAt === undefined ? 0 : slot.lastAt + intervalMs(), slot.retryAt ?? 0);
    const wait = due - clock.now();
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
        slot = { updatedAt: clock.now() };
        runs.set(runId, slot);
      }
      slot.updatedAt = clock.now();
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

    async settle() {
      for (;;) {
        const flying = [...runs.values()].flatMap((s) => (s.inFlight ? [s.inFlight] : []));
        if (flying.length === 0) return;
        await Promise.all(flying);
      }
    },

    pendingRuns() {
      return [...runs.entries()].filter(([, s]) => s.pending !== undefined).map(([id]) => id);
    },
  };
};
