// How the orchestrator hands runner jobs to the job queue instead of calling a Runner itself. An
// attempt is enqueued with its `dispatched` row (in one transaction on PostgreSQL, so there is no job
// without its row and no row without its job), keyed `run:issue:try` so a twin dispatch from another
// replica is a no-op. Resume, cancel and cleanup go to the host that ran the attempt.

import type { AttemptRecord, RunnerJob } from '../runner/types.ts';
import type { RunStore } from '../store/run-store.ts';
import type { AttemptReceipt } from '../store/runner-tokens.ts';
import { dispatchRunnerJob } from './dispatch.ts';
import { isLocalAttempt, remoteRunnerOf } from './local-consumer.ts';
import { attemptQueue, botHostName, hostQueue } from './runner-queues.ts';
import type { JobInfo, JobQueue, SqlExecutor } from './types.ts';

/** The writes a dispatch decision makes (the run store, or one of its transactions). */
export interface DispatchWrites {
  upsertRunIssue: RunStore['upsertRunIssue'];
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
  /** The host name whose queue the bot's own consumer pulls (attempts without a receipt ran there). */
  localHost: string;
  /** This machine (AttemptRecord.host of the attempts the bot's own runner starts here). */
  machine?: string;
  /** Told each queue an attempt went to, so the local consumer pulls it too. */
  onQueue?: (queue: string) => void;
  leaseSeconds?: number;
  /**
   * Called once a job is enqueued on the in-process engine: the local consumer starts it at once, so
   * a restart right after a dispatch loses no job (that queue lives in memory).
   */
  afterLocalEnqueue?: () => Promise<unknown>;
}

export type AttemptJob = Extract<RunnerJob, { kind: 'attempt' }>;

export interface Dispatcher {
  /** This machine, as the bot's own runner writes it on its attempts. */
  readonly machine?: string;
  /**
   * Records the decision with `record` and enqueues the attempt with it; false when the key
   * `runId:issue:attemptNo` was already dispatched (by this or another replica): nothing changes.
   */
  attempt(
    job: AttemptJob,
    attemptNo: number,
    record: (w: DispatchWrites) => Promise<unknown>,
  ): Promise<boolean>;
  /** A job sent earlier, as the queue holds it now (state, holder, output); undefined once forgotten. */
  job(ref: { queue: string; id: string }): Promise<JobInfo | undefined>;
  /**
   * Sends a resume, cancel, cleanup or gate job to the runner that holds the attempt's worktree: the
   * remote runner of its receipt, else the bot's runner on `machine` (the attempt's host), else here.
   */
  toHost(
    job: Exclude<RunnerJob, { kind: 'attempt' }>,
    attemptId: string,
    machine?: string,
  ): Promise<{ queue: string; id: string | null }>;
}

/** Seconds a runner holds an attempt job without a heartbeat before it goes to another. */
export const defaultLeaseSeconds = 120;

const isTransactional = (s: RunStore): s is RunStore & Transactional =>
  typeof (s as Partial<Transactional>).transaction === 'function';

export const createDispatcher = (d: DispatcherDeps): Dispatcher => {
  const leaseSeconds = d.leaseSeconds ?? defaultLeaseSeconds;
  return {
    ...(d.machine ? { machine: d.machine } : {}),
    async attempt(job, attemptNo, record) {
      const singletonKey = `${job.runId}:${job.issue.repo.owner}/${job.issue.repo.name}#${job.issue.number}:${attemptNo}`;
      d.onQueue?.(attemptQueue(job.branchStyle, job.issue.repo));
      if (d.queue.engine === 'postgres' && isTransactional(d.store)) {
        // A twin (null id) rolls the row back too: the replica that won the key wrote it.
        const twin = new Error('twin dispatch');
        try {
          return await d.store.transaction(async (tx) => {
            // The row and the job go out together (neither needs the other's answer): one round trip
            // on the transaction's pipelined connection instead of two. Both settle before either
            // failure is thrown, so no statement is left unanswered behind the rollback.
            const [recorded, sent] = await Promise.allSettled([
              record(tx),
              dispatchRunnerJob(d.queue, job, { singletonKey, leaseSeconds, tx }),
            ]);
            if (recorded.status === 'rejected') throw recorded.reason;
            if (sent.status === 'rejected') throw sent.reason;
            if (sent.value === null) throw twin;
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

    job: (ref) => d.queue.get(ref),

    async toHost(job, attemptId, machine) {
      const host =
        (await d.registry?.getReceipt(attemptId))?.runnerName ??
        (machine && machine !== d.machine ? botHostName(machine) : d.localHost);
      const queue = hostQueue(host);
      d.onQueue?.(queue);
      const id = await dispatchRunnerJob(d.queue, job, { host, leaseSeconds });
      if (d.queue.engine === 'in-process') await d.afterLocalEnqueue?.();
      return { queue, id };
    },
  };
};

type HostJob = Extract<RunnerJob, { kind: 'resume' | 'cancel' | 'cleanup' }>;

/**
 * Whether an attempt's worktree is on this machine: not a remote runner's attempt nor one a replica
 * on another machine started (an untagged one is here).
 */
export const attemptIsHere = (
  deps: { dispatcher: Pick<Dispatcher, 'machine'> },
  a: Pick<AttemptRecord, 'exitPath' | 'host' | 'runner'>,
): boolean => isLocalAttempt(a, deps.dispatcher.machine ?? a.host ?? '');

/**
 * Runs a resume, cancel or cleanup job where the attempts' worktrees are: a remote runner's attempt
 * through its host queue (the job sent is returned), a local one on the bot's own Runner. A cleanup
 * over attempts of several hosts is split per host.
 */
export const onAttemptHost = async (
  deps: {
    dispatcher: Pick<Dispatcher, 'machine' | 'toHost'>;
    runner: { execute(job: RunnerJob): Promise<unknown> };
  },
  job: HostJob,
  attempts: readonly Pick<AttemptRecord, 'id' | 'exitPath' | 'host' | 'runner'>[],
): Promise<{ queue: string; id: string | null } | undefined> => {
  const d = deps.dispatcher;
  const local = attempts.filter((a) => attemptIsHere(deps, a));
  const remote = attempts.filter((a) => !local.includes(a));
  const hostOf = (a: (typeof attempts)[number]) => remoteRunnerOf(a) ?? botHostName(a.host!);
  if (job.kind === 'cleanup') {
    if (local.length > 0 || attempts.length === 0)
      await deps.runner.execute({ ...job, attemptIds: local.map((a) => a.id) });
    const byHost = new Map<string, (typeof attempts)[number][]>();
    for (const a of remote) byHost.set(hostOf(a), [...(byHost.get(hostOf(a)) ?? []), a]);
    for (const group of byHost.values())
      await d.toHost({ ...job, attemptIds: group.map((a) => a.id) }, group[0]!.id, group[0]!.host);
    return undefined;
  }
  if (remote.length > 0) return d.toHost(job, job.attemptId, remote[0]!.host);
  await deps.runner.execute(job);
  return undefined;
};
