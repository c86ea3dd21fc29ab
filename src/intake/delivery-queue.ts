// An in-process queue of "process delivery X" tasks: the webhook route enqueues and answers at once,
// and the work runs after the response. One task at a time keeps a delivery's side effects in order;
// a failing task is logged and the queue goes on. Tests await idle() instead of sleeping.
import type { Logger } from '../observability/logger.ts';

export interface DeliveryQueue {
  /** Queue a task; refused (false) once draining has begun. */
  enqueue(name: string, task: () => Promise<void>): boolean;
  /** Resolves when every queued task has finished. */
  idle(): Promise<void>;
  /** Stop taking tasks and wait for the queued ones (graceful shutdown). */
  drain(): Promise<void>;
  readonly size: number;
}

export const createDeliveryQueue = (opts: { logger: Logger }): DeliveryQueue => {
  const pending: { name: string; task: () => Promise<void> }[] = [];
  let running: Promise<void> | undefined;
  let draining = false;

  const run = async (): Promise<void> => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      try {
        await next.task();
      } catch (err) {
        opts.logger.error({ err, task: next.name }, 'delivery task failed');
      }
    }
    running = undefined;
  };

  return {
    enqueue(name, task) {
      if (draining) return false;
      pending.push({ name, task });
      // Start after the current tick so the HTTP response is written before the work begins.
      running ??= new Promise<void>((resolve) => setImmediate(resolve)).then(run);
      return true;
    },
    async idle() {
      while (running) await running;
    },
    async drain() {
      draining = true;
      while (running) await running;
    },
    get size() {
      return pending.length;
    },
  };
};
