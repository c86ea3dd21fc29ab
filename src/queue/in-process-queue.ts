// The embedded queue engine: jobs in this process's memory. A restart loses queued jobs on purpose:
// every job is derived from store state by the level-triggered reconcile, which enqueues it again
// (singleton keys keep that from doubling), so the SQLite default needs no second durable table.
// A claim looks only at the heads of the queues it names and the leases it may expire: queued jobs
// sit in per-queue lists in enqueue order, active ones in their own set, finished ones in finish
// order for the retention purge. No claim scans every job the queue ever held.
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import {
  backoffSeconds,
  type DroppedJob,
  defaultEnqueue,
  type EnqueueOptions,
  type JobInfo,
  type JobQueue,
  type JobRef,
  type LeasedJob,
} from './types.ts';

interface Entry extends JobInfo {
  visibleAt: number;
  leaseUntil: number;
  retryLimit: number;
  retryDelaySeconds: number;
  leaseSeconds: number;
  seq: number;
  singleton?: string;
  finishedAt?: number;
}

/** Finished jobs (and their singleton keys) are forgotten after this long, as pg-boss archives them. */
const RETENTION_MS = 60 * 60 * 1000;

export class InProcessQueue implements JobQueue {
  readonly engine = 'in-process' as const;
  private readonly jobs = new Map<string, Entry>();
  private readonly singletons = new Set<string>();
  /** Queued jobs per queue, in `seq` order. */
  private readonly queued = new Map<string, Entry[]>();
  private readonly active = new Set<Entry>();
  /** Completed and failed jobs, in the order they finished (the retention purge reads the front). */
  private finished: Entry[] = [];
  private seq = 0;

  constructor(private readonly clock: { now(): number } = { now: () => Date.now() }) {}

  async enqueue(queue: string, payload: unknown, opts: EnqueueOptions = {}): Promise<string | null> {
    const singleton = opts.singletonKey === undefined ? undefined : `${queue}\u0000${opts.singletonKey}`;
    if (singleton !== undefined) {
      if (this.singletons.has(singleton)) return null;
      this.singletons.add(singleton);
    }
    const id = randomUUID();
    const entry: Entry = {
      queue,
      id,
      state: 'queued',
      payload: structuredClone(payload),
      retryCount: 0,
      visibleAt: opts.runAfter?.getTime() ?? this.clock.now(),
      leaseUntil: 0,
      retryLimit: opts.retryLimit ?? defaultEnqueue.retryLimit,
      retryDelaySeconds: opts.retryDelaySeconds ?? defaultEnqueue.retryDelaySeconds,
      leaseSeconds: opts.leaseSeconds ?? defaultEnqueue.leaseSeconds,
      seq: this.seq++,
      ...(singleton ? { singleton } : {}),
    };
    this.jobs.set(id, entry);
    this.toQueued(entry);
    return id;
  }

  async claim(queues: readonly string[], holder: string): Promise<LeasedJob | null> {
    await this.expireLeases();
    const now = this.clock.now();
    let next: Entry | undefined;
    let from: Entry[] | undefined;
    let at = -1;
    for (const queue of new Set(queues)) {
      const list = this.queued.get(queue);
      if (!list) continue;
      // The first visible job of this queue: usually its head (only a retry's backoff hides one).
      const i = list.findIndex((j) => j.visibleAt <= now);
      if (i >= 0 && (!next || list[i]!.seq < next.seq)) {
        next = list[i];
        from = list;
        at = i;
      }
    }
    if (!next || !from) return null;
    from.splice(at, 1);
    if (from.length === 0) this.queued.delete(next.queue);
    next.state = 'active';
    next.holder = holder;
    next.leaseUntil = now + next.leaseSeconds * 1000;
    this.active.add(next);
    return {
      queue: next.queue,
      id: next.id,
      payload: structuredClone(next.payload),
      retryCount: next.retryCount,
      holder,
      leaseSeconds: next.leaseSeconds,
    };
  }

  async heartbeat(ref: JobRef, holder: string): Promise<void> {
    const j = this.held(ref, holder);
    j.leaseUntil = this.clock.now() + j.leaseSeconds * 1000;
  }

  async complete(ref: JobRef, holder: string, output?: unknown): Promise<{ applied: boolean }> {
    const j = this.mustGet(ref);
    if (j.state === 'completed' && j.holder === holder) return { applied: false };
    this.held(ref, holder);
    j.state = 'completed';
    j.output = structuredClone(output);
    this.toFinished(j);
    return { applied: true };
  }

  async fail(ref: JobRef, holder: string, error: string): Promise<{ applied: boolean }> {
    const j = this.mustGet(ref);
    // Already failed (or re-queued by that failure) by this holder: a repeated report changes nothing.
    if (j.state !== 'active' && j.holder === holder) return { applied: false };
    this.held(ref, holder);
    this.retryOrFail(j, error);
    return { applied: true };
  }

  async get(ref: JobRef): Promise<JobInfo | undefined> {
    const j = this.jobs.get(ref.id);
    if (!j || j.queue !== ref.queue) return undefined;
    const { queue, id, state, payload, retryCount, holder, output, leaseSeconds } = j;
    return structuredClone({ queue, id, state, payload, retryCount, holder, output, leaseSeconds });
  }

  async expireLeases(): Promise<void> {
    const now = this.clock.now();
    for (const j of this.active) if (j.leaseUntil <= now) this.retryOrFail(j, 'lease expired');
    let purge = 0;
    while (purge < this.finished.length && now - this.finished[purge]!.finishedAt! > RETENTION_MS) {
      const j = this.finished[purge++]!;
      this.jobs.delete(j.id);
      if (j.singleton) this.singletons.delete(j.singleton);
    }
    if (purge > 0) this.finished = this.finished.slice(purge);
  }

  async release(holder: string, error: string): Promise<DroppedJob[]> {
    const out: DroppedJob[] = [];
    for (const j of [...this.active]) {
      if (j.holder !== holder) continue;
      this.retryOrFail(j, error, 0);
      out.push(this.dropped(j));
    }
    return out;
  }

  async drop(queue: string, error: string): Promise<DroppedJob[]> {
    const out: DroppedJob[] = [];
    const waiting = this.queued.get(queue) ?? [];
    this.queued.delete(queue);
    for (const j of [...waiting, ...[...this.active].filter((a) => a.queue === queue)]) {
      j.output = { error };
      j.state = 'failed';
      this.toFinished(j);
      out.push(this.dropped(j));
    }
    return out;
  }

  async close(): Promise<void> {}

  private dropped(j: Entry): DroppedJob {
    return { queue: j.queue, id: j.id, payload: structuredClone(j.payload), state: j.state };
  }

  /** Back in the queue after a backoff (`delaySeconds`, default the job's own), or failed past its limit. */
  private retryOrFail(j: Entry, error: string, delaySeconds?: number): void {
    j.output = { error };
    if (j.retryCount >= j.retryLimit) {
      j.state = 'failed';
      this.toFinished(j);
      return;
    }
    j.retryCount += 1;
    j.state = 'queued';
    j.visibleAt =
      this.clock.now() + (delaySeconds ?? backoffSeconds(j.retryDelaySeconds, j.retryCount)) * 1000;
    this.active.delete(j);
    this.toQueued(j);
  }

  private toFinished(j: Entry): void {
    j.finishedAt = this.clock.now();
    this.active.delete(j);
    this.finished.push(j);
  }

  /** Into its queue's list at its `seq` place (the end, but for a retried job). */
  private toQueued(j: Entry): void {
    const list = this.queued.get(j.queue);
    if (!list) {
      this.queued.set(j.queue, [j]);
      return;
    }
    let i = list.length;
    while (i > 0 && list[i - 1]!.seq > j.seq) i--;
    list.splice(i, 0, j);
  }

  private mustGet(ref: JobRef): Entry {
    const j = this.jobs.get(ref.id);
    if (!j || j.queue !== ref.queue) throw new AppError('not_found', `No job ${ref.id} in ${ref.queue}.`);
    return j;
  }

  /** The job, if `holder` holds its lease now. */
  private held(ref: JobRef, holder: string): Entry {
    const j = this.mustGet(ref);
    if (j.state !== 'active' || j.holder !== holder) {
      throw new AppError('conflict', `Job ${ref.id} is not leased to ${holder}.`, { state: j.state });
    }
    if (j.leaseUntil <= this.clock.now()) {
      this.retryOrFail(j, 'lease expired');
      throw new AppError('conflict', `The lease of job ${ref.id} ran out before ${holder} came back.`);
    }
    return j;
  }
}
