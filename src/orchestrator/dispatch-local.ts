// The bot's own consumer of the job queue: with no remote runner (the single-process default) it
// claims dispatched jobs like a runner would and executes them with the local Runner, so every
// dispatch takes the same path through the queue. Its supervisor sees only local attempts.
import type { Logger } from '../observability/logger.ts';
import { jobOutput } from '../queue/dispatch.ts';
import { hostQueue } from '../queue/runner-queues.ts';
import type { JobQueue, LeasedJob } from '../queue/types.ts';
import { type AttemptLedger, runnerJobSchema } from '../runner/types.ts';
import type { RunnerPort } from './context.ts';

/** Attempts a remote runner reported: their `runner://` paths would look like dead workers here. */
export const isRemoteAttempt = (r: { exitPath: string }): boolean => r.exitPath.startsWith('runner://');

/** The ledger as the bot's local Runner must see it: remote attempts left out of supervision. */
export const localOnlyLedger = (ledger: AttemptLedger): AttemptLedger => ({
  create: (r) => ledger.create(r),
  get: (id) => ledger.get(id),
  update: (id, patch) => ledger.update(id, patch),
  listByRun: (runId) => ledger.listByRun(runId),
  listByIssue: (issue) => ledger.listByIssue(issue),
  listOpen: async () => (await ledger.listOpen()).filter((r) => !isRemoteAttempt(r)),
  totalsByIssue: (issue) => ledger.totalsByIssue(issue),
  totalsByRun: (runId) => ledger.totalsByRun(runId),
});

export interface LocalConsumerDeps {
  queue: JobQueue;
  runner: Pick<RunnerPort, 'execute' | 'limit'>;
  /** The holder name; resume/cancel/cleanup jobs of local attempts go to `host/<localHost>`. */
  localHost: string;
  /** Attempt queues to pull from (the dispatcher adds each one it uses: `onQueue`). */
  queues: Set<string>;
  logger: Logger;
  pollMs?: number;
}

export interface LocalConsumer {
  /** Claims and executes jobs until none is visible; returns how many it ran. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

const runOne = async (d: LocalConsumerDeps, job: LeasedJob): Promise<void> => {
  const parsed = runnerJobSchema.safeParse(job.payload);
  if (!parsed.success) {
    await d.queue.fail(job, d.localHost, 'The job payload is not a runner job.');
    return;
  }
  try {
    const result = await d.runner.execute(parsed.data);
    // An attempt runs on after it starts; the local supervisor (not the lease) watches it from here.
    const output =
      result.kind === 'attempt' ? { kind: 'attempt', attemptIds: [result.attempt.id] } : jobOutput(result);
    await d.queue.complete(job, d.localHost, output);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    d.logger.warn({ job: { queue: job.queue, id: job.id }, error }, 'local job failed');
    await d.queue.fail(job, d.localHost, error);
  }
};

/** Starts the bot's local consumer; `drain()` also lets a caller run what is queued now. */
export const startLocalConsumer = (d: LocalConsumerDeps): LocalConsumer => {
  d.queues.add(hostQueue(d.localHost));
  let stopped = false;
  let draining: Promise<number> | undefined;
  const drainOnce = async (): Promise<number> => {
    let ran = 0;
    while (!stopped) {
      const job = await d.queue.claim([...d.queues], d.localHost);
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
  const timer = setInterval(() => {
    void drain().catch((err: unknown) => d.logger.error({ err }, 'local consumer pass failed'));
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
