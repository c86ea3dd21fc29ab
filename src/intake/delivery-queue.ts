// An in-process queue of "process delivery X" tasks: the webhook route enqueues and answers at once,
// and the work runs after the response. Tasks of one lane (a repository) run one at a time, in order,
// which keeps a repository's side effects in order; different lanes run side by side, up to
// `concurrency` at once, so one slow repository (or database round trip) does not hold up the rest.
// A failing task is logged and its lane goes on. Tests await idle() instead of sleeping.
// The webhooks being answered come first: while one is in flight (`answering()`), a task waits, but
// never longer than `maxDeferMs` after it was queued, so a sustained burst delays the processing by at
// most that much and never starves it.
import type { Logger } from '../observability/logger.ts';

export interface DeliveryQueue {
  /**
   * Queue a task; refused (false) once draining has begun. Tasks with the same `lane` (default: one
   * shared lane) run in the order queued, never two at once.
   */
  enqueue(name: string, task: () => Promise<void>, lane?: string): boolean;
  /**
   * Work a task leaves behind when it ends (its delivery's "processed" mark, written with the store's
   * next commit): the lane goes on at once, and idle() and drain() wait for it too.
   */
  track(work: Promise<unknown>): void;
  /**
   * A webhook is being answered: tasks wait until none is (each at most `maxDeferMs` after it was
   * queued). Call the returned function once the answer is out; a second call does nothing.
   */
  answering(): () => void;
  /** Resolves when every queued task, and the work they left behind, has finished. */
  idle(): Promise<void>;
  /** Stop taking tasks and wait for the queued ones (graceful shutdown). */
  drain(): Promise<void>;
  readonly size: number;
}

interface Task {
  name: string;
  task: () => Promise<void>;
  /** When it was queued (ms, the queue's clock). */
  at: number;
}

/**
 * How long a task may wait for the webhooks being answered, by default: a burst's processing lags it
 * by at most this much (the forges wait 10 s for an answer; an ack a second later is fine).
 */
export const DEFAULT_MAX_DEFER_MS = 1000;

export interface DeliveryQueueOptions {
  logger: Logger;
  /** Lanes that run at once (default DEFAULT_LANES). */
  concurrency?: number;
  /** The longest a task waits for the webhooks being answered (default DEFAULT_MAX_DEFER_MS). */
  maxDeferMs?: number;
  /** Time for the wait above (default the system clock). */
  clock?: { now(): number };
  /** Calls `fn` once after `ms` (default setTimeout): the end of a task's wait. */
  after?: (ms: number, fn: () => void) => { cancel(): void };
}

const timeout = (ms: number, fn: () => void) => {
  const timer = setTimeout(fn, ms);
  return { cancel: () => clearTimeout(timer) };
};

/**
 * Lanes that run at once by default. On PostgreSQL the processings running at once are what one shared
 * dispatch transaction can gather (pg-group-transaction.ts): 8 capped its batches below the intake's
 * pace; a lane mostly waits on a round trip, so 32 cost little CPU.
 */
export const DEFAULT_LANES = 32;

export const createDeliveryQueue = (opts: DeliveryQueueOptions): DeliveryQueue => {
  const concurrency = Math.max(1, opts.concurrency ?? DEFAULT_LANES);
  const maxDeferMs = Math.max(0, opts.maxDeferMs ?? DEFAULT_MAX_DEFER_MS);
  const clock = opts.clock ?? { now: () => performance.now() };
  const after = opts.after ?? timeout;
  // Lanes with work, in the order of their first task's age (the order they got it, a lane put back to wait
  // in its place by age); a running lane is not in `ready`.
  const lanes = new Map<string, Task[]>();
  const ready: string[] = [];
  let active = 0;
  let size = 0;
  // Work left behind by finished tasks, not yet settled.
  let trailing = 0;
  let draining = false;
  let scheduled = false;
  let whenIdle: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Webhooks being answered now. */
  let answering = 0;
  /** The timer that ends the wait of the first task held back, and when it fires. */
  let wake: { at: number; timer: { cancel(): void } } | undefined;

  /** True when `task` should wait for the webhooks being answered; then the queue wakes when it may run. */
  const held = (task: Task): boolean => {
    if (answering === 0) return false;
    const due = task.at + maxDeferMs;
    const now = clock.now();
    if (now >= due) return false;
    if (!wake || wake.at > due) {
      wake?.timer.cancel();
      wake = {
        at: due,
        timer: after(due - now, () => {
          wake = undefined;
          pump();
        }),
      };
    }
    return true;
  };

  /** Puts `lane` back in `ready`, which stays ordered by the age of each lane's first task. */
  const requeue = (lane: string, at: number): void => {
    let i = ready.length;
    while (i > 0 && lanes.get(ready[i - 1]!)![0]!.at > at) i--;
    ready.splice(i, 0, lane);
  };

  const runLane = async (lane: string): Promise<void> => {
    const tasks = lanes.get(lane)!;
    for (let next = tasks[0]; next; next = tasks[0]) {
      if (held(next)) {
        // The lane steps aside until the webhooks are answered or its wait is over, in line by the age
        // of its task: pump() looks only at the first lane, so an older task behind it would wait longer.
        requeue(lane, next.at);
        active--;
        return;
      }
      tasks.shift();
      size--;
      try {
        await next.task();
      } catch (err) {
        opts.logger.error({ err, task: next.name }, 'delivery task failed');
      }
    }
    lanes.delete(lane);
    active--;
    pump();
  };

  const pump = (): void => {
    while (active < concurrency && ready.length > 0) {
      if (held(lanes.get(ready[0]!)![0]!)) break;
      active++;
      void runLane(ready.shift()!);
    }
    if (active === 0 && ready.length === 0 && trailing === 0 && whenIdle) {
      whenIdle.resolve();
      whenIdle = undefined;
    }
  };

  /** Runs pump() after the current turn (the HTTP response is written before the work begins). */
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  };

  const idle = (): Promise<void> => {
    if (active === 0 && ready.length === 0 && trailing === 0 && !scheduled) return Promise.resolve();
    if (!whenIdle) {
      let resolve: () => void = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      whenIdle = { promise, resolve };
    }
    return whenIdle.promise;
  };

  return {
    enqueue(name, task, lane = '') {
      if (draining) return false;
      size++;
      const tasks = lanes.get(lane);
      const at = clock.now();
      if (tasks) tasks.push({ name, task, at });
      else {
        lanes.set(lane, [{ name, task, at }]);
        ready.push(lane);
      }
      schedule();
      return true;
    },
    answering() {
      answering++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        answering--;
        if (answering === 0) schedule();
      };
    },
    track(work) {
      trailing++;
      const settled = () => {
        trailing--;
        pump();
      };
      work.then(settled, (err: unknown) => {
        opts.logger.error({ err }, 'work left by a delivery task failed');
        settled();
      });
    },
    idle,
    async drain() {
      draining = true;
      await idle();
    },
    get size() {
      return size;
    },
  };
};
