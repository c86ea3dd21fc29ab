// How the bot hands work to runners through the queue: runner jobs on their queue (per role and
// repo, or a host's own), and cron ticks as singleton jobs keyed `name:slot`, so a tick seen by
// several replicas at once runs once.
import type { RunnerJobResult } from '../runner/runner.ts';
import type { RunnerJob } from '../runner/types.ts';
import type { PgBossQueue } from './pg-boss-queue.ts';
import { queueForJob } from './runner-queues.ts';
import type { EnqueueOptions, JobQueue, SqlExecutor } from './types.ts';

export interface DispatchOptions extends EnqueueOptions {
  /** Runner that holds the worktrees a resume, cancel, cleanup or gate job acts on. */
  host?: string;
  /** The store transaction that records the decision (Postgres): the job commits with it. */
  tx?: SqlExecutor;
}

/** Enqueues a runner job; null when its singletonKey was already used (a twin dispatch). */
export const dispatchRunnerJob = async (
  queue: JobQueue,
  job: RunnerJob,
  opts: DispatchOptions = {},
): Promise<string | null> => {
  const { host, tx, ...enqueue } = opts;
  const name = queueForJob(job, host);
  if (tx && queue.engine === 'postgres') {
    return (queue as PgBossQueue).enqueueInTransaction(tx, name, job, enqueue);
  }
  return queue.enqueue(name, job, enqueue);
};

/** The start of the cron slot `at` falls in, as an ISO string (the `slot` of `name:slot`). */
export const cronSlot = (at: Date, periodSeconds: number): string => {
  const ms = periodSeconds * 1000;
  return new Date(Math.floor(at.getTime() / ms) * ms).toISOString();
};

/** Enqueues the tick of `name` for the slot `at` falls in; null when a replica already did. */
export const enqueueCronTick = (
  queue: JobQueue,
  name: string,
  at: Date,
  periodSeconds: number,
  payload: Record<string, unknown> = {},
): Promise<string | null> => {
  const slot = cronSlot(at, periodSeconds);
  return queue.enqueue(
    `cron/${name}`,
    { ...payload, slot },
    { singletonKey: `${name}:${slot}`, retryLimit: 0 },
  );
};

/**
 * What a runner stores as the output of a finished non-attempt job: its kind, and for a gate its
 * result (exit code, timeout, output tail), which the bot reads back from the queue.
 */
export const jobOutput = (result: Exclude<RunnerJobResult, { kind: 'attempt' }>): unknown =>
  result.kind === 'gate' ? { kind: 'gate', name: result.name, result: result.result } : { kind: result.kind };
