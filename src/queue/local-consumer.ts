// The bot's own consumer of the job queue: with no remote runner (the single-process default) it
// claims dispatched jobs like a runner would and executes them with the local Runner, so every
// dispatch takes the same path through the queue. Its supervisor sees only local attempts.
import type { Logger } from '../observability/logger.ts';
import type { RunnerPort } from '../runner/runner-port.ts';
import {
  type AttemptLedger,
  type AttemptRecord,
  asClaimed,
  isOpenAttemptRefusal,
  runnerJobSchema,
} from '../runner/types.ts';
import { jobOutput } from './dispatch.ts';
import type { JobQueue, LeasedJob } from './types.ts';

/**
 * Attempts stored before the hub recorded `runner` carry it only in their paths, which the hub itself
 * wrote as `runner://<name>/…` (a local attempt's paths are absolute paths in the workspace). This can
 * only ever make an attempt remote, never local.
 */
const legacyRunnerOf = (r: { exitPath: string }): string | undefined =>
  /^runner:\/\/([^/]+)\//.exec(r.exitPath)?.[1];

/**
 * The remote runner that reported an attempt, by who reported it: the hub sets `runner` from the
 * runner token behind the report. Undefined for the bot's own attempts.
 */
export const remoteRunnerOf = (r: Pick<AttemptRecord, 'runner' | 'exitPath'>): string | undefined =>
  r.runner ?? legacyRunnerOf(r);

/** Attempts a remote runner reported: the bot never supervises, signals or resumes them. */
export const isRemoteAttempt = (r: Pick<AttemptRecord, 'runner' | 'exitPath'>): boolean =>
  remoteRunnerOf(r) !== undefined;

/** An attempt of this machine's own runner (not a remote runner's, not another machine's replica's). */
export const isLocalAttempt = (
  r: Pick<AttemptRecord, 'exitPath' | 'host' | 'runner'>,
  machine: string,
): boolean => !isRemoteAttempt(r) && (r.host === undefined || r.host === machine);

/**
 * The ledger as the bot's local Runner on `machine` must see it: remote runners' attempts and those of
 * replicas on other machines (all in one shared ledger) are left out of its supervision.
 */
export const localOnlyLedger = (ledger: AttemptLedger, machine: string): AttemptLedger => ({
  create: (r) => ledger.create(r),
  get: (id) => ledger.get(id),
  update: (id, patch) => ledger.update(id, patch),
  listByRun: (runId) => ledger.listByRun(runId),
  listByIssue: (issue) => ledger.listByIssue(issue),
  listOpen: async () => (await ledger.listOpen()).filter((r) => isLocalAttempt(r, machine)),
  totalsByIssue: (issue) => ledger.totalsByIssue(issue),
  totalsByRun: (runId) => ledger.totalsByRun(runId),
});

export interface LocalConsumerDeps {
  queue: JobQueue;
  runner: Pick<RunnerPort, 'execute' | 'limit'>;
  /** The holder name on every job this consumer claims (the replica's name). */
  holder: string;
  /** The host queue it pulls besides the attempt queues: `host/bot@<machine>`, where this machine's attempts' jobs go. */
  hostQueue: string;
  /** Attempt queues to pull from (the dispatcher adds each one it uses: `onQueue`). */
  queues: Set<string>;
  logger: Logger;
  pollMs?: number;
  /**
   * The store's health (store/store-health.ts): while the store is unavailable the polls back off
   * with it instead of failing every `pollMs`.
   */
  gate?: { attempt(fn: () => Promise<void>): Promise<{ ran: boolean; error?: unknown }> };
}

export interface LocalConsumer {
  /** Claims and executes jobs until none is visible; returns how many it ran. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

const runOne = async (d: LocalConsumerDeps, job: LeasedJob): Promise<void> => {
  const parsed = runnerJobSchema.safeParse(job.payload);
  if (!parsed.success) {
    await d.queue.fail(job, d.holder, 'The job payload is not a runner job.');
    return;
  }
  try {
    const result = await d.runner.execute(asClaimed(parsed.data, job.retryCount));
    // An attempt runs on after it starts; the local supervisor (not the lease) watches it from here.
    const output =
      result.kind === 'attempt' ? { kind: 'attempt', attemptIds: [result.attempt.id] } : jobOutput(result);
    await d.queue.complete(job, d.holder, output);
  } catch (err) {
    if (isOpenAttemptRefusal(err)) {
      // A stale attempt job (redelivered after its issue was dispatched again): dropped, not retried.
      d.logger.info(
        { job: { queue: job.queue, id: job.id }, openAttempt: err.openAttempt },
        'stale attempt job dropped: its issue has an open attempt',
      );
      await d.queue.complete(job, d.holder, { kind: 'attempt', attemptIds: [], dropped: err.message });
      return;
    }
    const error = err instanceof Error ? err.message : String(err);
    d.logger.warn({ job: { queue: job.queue, id: job.id }, error }, 'local job failed');
    await d.queue.fail(job, d.holder, error);
  }
};

/** Starts the bot's local consumer; `drain()` also lets a caller run what is queued now. */
export const startLocalConsumer = (d: LocalConsumerDeps): LocalConsumer => {
  d.queues.add(d.hostQueue);
  let stopped = false;
  let draining: Promise<number> | undefined;
  const drainOnce = async (): Promise<number> => {
    let ran = 0;
    while (!stopped) {
      const job = await d.queue.claim([...d.queues], d.holder);
      if (!job) break;
      await runOne(d, job);
      ran++;
    }
    return ran;
  };
  const drain = () => {
    draining ??= drainOnce().finally(() => {
      draining = undefined;
    });
    return draining;
  };
  const poll = async () => {
    if (!d.gate) return void (await drain());
    await d.gate.attempt(async () => void (await drain()));
  };
  const timer = setInterval(() => {
    void poll().catch((err: unknown) => d.logger.error({ err }, 'local consumer pass failed'));
  }, d.pollMs ?? 500);
  return {
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await draining?.catch(() => undefined);
    },
  };
};
