// How the orchestrator hands runner jobs to the job queue instead of calling a Runner itself. An
// attempt is enqueued with its `dispatched` row (in one transaction on PostgreSQL, so there is no job
// without its row and no row without its job), keyed `run:issue:try` so a twin dispatch from another
// replica is a no-op. Resume, cancel and cleanup go to the host that ran the attempt.
import { dispatchRunnerJob } from '../queue/dispatch.ts';
import { attemptQueue, hostQueue } from '../queue/runner-queues.ts';
import type { JobQueue, SqlExecutor } from '../queue/types.ts';
import type { RunnerJob } from '../runner/types.ts';
import type { RunIssuePatch, RunIssueRecord, RunStore } from '../store/run-store.ts';
import type { AttemptReceipt } from '../store/runner-tokens.ts';

/** The writes a dispatch decision makes (the run store, or one of its transactions). */
export interface DispatchWrites {
  upsertRunIssue(runId: string, repo: string, number: number, patch: RunIssuePatch): Promise<RunIssueRecord>;
}

/** A run store that can join a queue insert to its writes (the PostgreSQL one). */
type Transactional = {
  transaction<T>(fn: (tx: DispatchWrites & SqlExecutor) => Promise<T>): Promise<T>;
};

export interface DispatcherDeps {
  queue: JobQueue;
  store: RunStore;
  /** Receipts of remote runners' reports: which host ran an attempt. */
  registry?: { getReceipt(attemptId: string): Promise<AttemptReceipt | undefined> };
  /** The name the bot's own consumer claims under (attempts without a receipt ran there). */
  localHost: string;
  /** Told each queue an attempt went to, so the local consumer pulls it too. */
  onQueue?: (queue: string) => void;
  leaseSeconds?: number;
  /**
   * Called once a job is enqueued on the in-process engine: the local consumer starts it at once, so
   * a restart right after a dispatch loses no job (that queue lives in memory).
   */
  afterLocalEnqueue?: () => Promise<unknown>;
}

type AttemptJobInput = Extract<RunnerJob, { kind: 'attempt' }>;

export interface Dispatcher {
  /**
   * Records the decision with `record` and enqueues the attempt with it; false when the key
   * `runId:issue:attemptNo` was already dispatched (by this or another replica): nothing changes.
   */
  attempt(
    job: AttemptJobInput,
    attemptNo: number,
    record: (w: DispatchWrites) => Promise<unknown>,
  ): Promise<boolean>;
  /** Sends a resume, cancel or cleanup job to the runner that holds the attempt's worktree. */
  toHost(
    job: Exclude<RunnerJob, { kind: 'attempt' }>,
    attemptId: string,
  ): Promise<{ queue: string; id: string | null }>;
}

const isTransactional = (s: RunStore): s is RunStore & Transactional =>
  typeof (s as Partial<Transactional>).transaction === 'function';

export const createDispatcher = (d: DispatcherDeps): Dispatcher => {
  const leaseSeconds = d.leaseSeconds ?? 120;
  return {
    async attempt(job, attemptNo, record) {
      const singletonKey = `${job.runId}:${job.issue.repo.owner}/${job.issue.repo.name}#${job.issue.number}:${attemptNo}`;
      d.onQueue?.(attemptQueue(job.branchStyle, job.issue.repo));
      if (d.queue.engine === 'postgres' && isTransactional(d.store)) {
        // A twin (null id) rolls the row back too: the replica that won the key wrote it.
        const twin = new Error('twin dispatch');
        try {
          return await d.store.transaction(async (tx) => {
            await record(tx);
            const id = await dispatchRunnerJob(d.queue, job, { singletonKey, leaseSeconds, tx });
            if (id === null) throw twin;
            return true;
          });
        } catch (err) {
          if (err === twin) return false;
          throw err;
        }
      }
      const id = await dispatchRunnerJob(d.queue, job, { singletonKey, leaseSeconds });
      if (id === null) return false;
      await record(d.store);
      if (d.queue.engine === 'in-process') await d.afterLocalEnqueue?.();
      return true;
    },

    async toHost(job, attemptId) {
      const host = (await d.registry?.getReceipt(attemptId))?.runnerName ?? d.localHost;
      const queue = hostQueue(host);
      d.onQueue?.(queue);
      const id = await dispatchRunnerJob(d.queue, job, { host, leaseSeconds });
      if (d.queue.engine === 'in-process') await d.afterLocalEnqueue?.();
      return { queue, id };
    },
  };
};
