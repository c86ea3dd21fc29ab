// What the composed bot wires for dispatch through the job queue: the dispatcher the orchestrator
// calls, the bot's own consumer that runs queued jobs with the local Runner (off when only remote
// runners should work), and the cron tick as a singleton job so one replica runs each slot.
import { hostname } from 'node:os';
import type { Logger } from '../observability/logger.ts';
import { enqueueCronTick } from '../queue/dispatch.ts';
import { createDispatcher, type Dispatcher } from '../queue/dispatcher.ts';
import { type LocalConsumer, type LocalConsumerDeps, startLocalConsumer } from '../queue/local-consumer.ts';
import { botHostName, hostQueue } from '../queue/runner-queues.ts';
import type { JobQueue } from '../queue/types.ts';
import type { RunnerPort } from '../runner/runner-port.ts';
import type { RunStore } from '../store/run-store.ts';
import type { AttemptReceipt } from '../store/runner-tokens.ts';

export interface QueueDispatchDeps {
  /** The runner side's queue (`openRunnerSide(…).queue`): the very object the hub serves from. */
  queue: JobQueue;
  registry: { getReceipt(attemptId: string): Promise<AttemptReceipt | undefined> };
  store: RunStore;
  runner: Pick<RunnerPort, 'execute' | 'limit'>;
  logger: Logger;
  /** This replica's name on its own jobs and leases; default `bot-<host>-<pid>`. */
  name?: string;
  /** This machine's name (default `os.hostname()`): jobs on its attempts' worktrees go to `host/bot@<machine>`. */
  machine?: string;
  /** Run queued jobs here too (default true); false leaves every job to `blitz-bot runner` agents. */
  localRunner?: boolean;
  pollMs?: number;
  /** Seconds a runner holds an attempt job before it goes to another (the dispatcher's default otherwise). */
  leaseSeconds?: number;
  /** The store's health: the local consumer's claims back off while the store is unavailable. */
  gate?: LocalConsumerDeps['gate'];
}

export interface QueueDispatch {
  dispatcher: Dispatcher;
  name: string;
  start(): void;
  /** Runs `tick` if this replica wins the slot's `cron/reconcile` job; otherwise does nothing. */
  cronTick(tick: () => Promise<void>, periodSeconds: number, at?: Date): Promise<boolean>;
  stop(): Promise<void>;
}

export const createQueueDispatch = (d: QueueDispatchDeps): QueueDispatch => {
  const name = d.name ?? `bot-${hostname()}-${process.pid}`;
  const machine = d.machine ?? hostname();
  const queues = new Set<string>();
  let consumer: LocalConsumer | undefined;
  const dispatcher = createDispatcher({
    queue: d.queue,
    store: d.store,
    registry: d.registry,
    localHost: botHostName(machine),
    machine,
    ...(d.leaseSeconds ? { leaseSeconds: d.leaseSeconds } : {}),
    onQueue: (q) => queues.add(q),
    // The embedded queue is in memory: its jobs start now, as a direct call to the Runner did.
    afterLocalEnqueue: async () => consumer?.drain(),
  });
  return {
    dispatcher,
    name,
    start() {
      if (d.localRunner === false || consumer) return;
      consumer = startLocalConsumer({
        queue: d.queue,
        runner: d.runner,
        holder: name,
        hostQueue: hostQueue(botHostName(machine)),
        queues,
        logger: d.logger.child({ name: 'local-consumer' }),
        ...(d.pollMs ? { pollMs: d.pollMs } : {}),
        ...(d.gate ? { gate: d.gate } : {}),
      });
    },
    async cronTick(tick, periodSeconds, at = new Date()) {
      await enqueueCronTick(d.queue, 'reconcile', at, periodSeconds);
      const job = await d.queue.claim(['cron/reconcile'], name);
      if (!job) return false;
      try {
        await tick();
        await d.queue.complete(job, name);
      } catch (err) {
        await d.queue.fail(job, name, err instanceof Error ? err.message : String(err));
        throw err;
      }
      return true;
    },
    async stop() {
      await consumer?.stop();
      consumer = undefined;
    },
  };
};
