// What the runners of this test process did, as events the harnesses wait on instead of polling: a
// worker exited (every harness Runner's onWorkerExit) or a runner told an event (started, finished,
// gate done). A wait names the count it last saw, so progress that landed between a look and the wait
// is not missed.
import { EventEmitter } from 'node:events';

const emitter = new EventEmitter();
emitter.setMaxListeners(0);
let count = 0;

export const runnerProgress = {
  /** A Runner's onWorkerExit, or a runner event. */
  notify: (): void => {
    count++;
    emitter.emit('progress');
  },
  /** Progress seen so far (pass it to `after`). */
  seen: (): number => count,
  /**
   * Resolves once more than `seen` things happened, or after `boundMs`: a failure bound, or progress
   * no event reports (a worker started by another process and re-attached here).
   */
  after: (seen: number, boundMs: number): Promise<void> =>
    new Promise<void>((resolve) => {
      if (count > seen || boundMs <= 0) return resolve();
      const done = () => {
        clearTimeout(timer);
        emitter.off('progress', done);
        resolve();
      };
      const timer = setTimeout(done, boundMs);
      emitter.on('progress', done);
    }),
};

/**
 * The longest a harness round waits for runner progress: what no runner event reports (a review
 * leg's process, a queued job not yet taken) is looked at again after it.
 */
export const PROGRESS_MS = 1000;
