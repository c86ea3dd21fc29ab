// An in-process queue of "process delivery X" tasks: the webhook route enqueues and answers at once,
// and the work runs after the response. Tasks of one lane (a repository) run one at a time, in order,
// which keeps a repository's side effects in order; different lanes run side by side, up to
// `concurrency` at once, so one slow repository (or database round trip) does not hold up the rest.
// A failing task is logged and its lane goes on. Tests await idle() instead of sleeping.
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
  /** Resolves when every queued task, and the work they left behind, has finished. */
  idle(): Promise<void>;
  /** Stop taking tasks and wait for the queued ones (graceful shutdown). */
  drain(): Promise<void>;
  readonly size: number;
}

interface Task {
  name: string;
  task: () => Promise<void>;
}

/**
 * Lanes that run at once by default. On PostgreSQL the processings running at once are what one shared
 * dispatch transaction can gather (pg-group-transaction.ts): 8 capped its batches below the intake's
 * pace; a lane mostly waits on a round trip, so 32 cost little CPU.
 */
export const DEFAULT_LANES = 32;

export const createDeliveryQueue = (opts: { logger: Logger; concurrency?: number }): DeliveryQueue => {
  const concurrency = Math.max(1, opts.concurrency ?? DEFAULT_LANES);
  // Lanes with work, in the order they got it; a running lane is not in `ready`.
  const lanes = new Map<string, Task[]>();
  const ready: string[] = [];
  let active = 0;
  let size = 0;
  // Work left behind by finished tasks, not yet settled.
  let trailing = 0;
  let draining = false;
  let scheduled = false;
  let whenIdle: { promise: Promise<void>; resolve: () => void } | undefined;

  const runLane = async (lane: string): Promise<void> => {
    const tasks = lanes.get(lane)!;
    for (let next = tasks.shift(); next; next = tasks.shift()) {
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
      active++;
      void runLane(ready.shift()!);
    }
    if (active === 0 && ready.length === 0 && trailing === 0 && whenIdle) {
      whenIdle.resolve();
      whenIdle = undefined;
    }
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
      if (tasks) tasks.push({ name, task });
      else {
        lanes.set(lane, [{ name, task }]);
        ready.push(lane);
      }
      // Start after the current tick so the HTTP response is written before the work begins.
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          pump();
        });
      }
      return true;
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
