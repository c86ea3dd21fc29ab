// The embedded queue engine: jobs in this process's memory. A restart loses queued jobs on purpose:
// every job is derived from store state by the level-triggered reconcile, which enqueues it again
// (singleton keys keep that from doubling), so the SQLite default needs no second durable table.
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import {
  backoffSeconds,
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
  private seq = 0;

  constructor(private readonly clock: { now(): number } = { now: () => Date.now() }) {}

  async enqueue(queue: string, payload: unknown, opts: EnqueueOptions = {}): Promise<string | null> {
    const singleton = opts.singletonKey === undefined ? undefined : `${queue}\u0000${opts.singletonKey}`;
    if (singleton !== undefined) {
      if (this.singletons.has(singleton)) return null;
      this.singletons.add(singleton);
    }
    const id = randomUUID();
    this.jobs.set(id, {
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
    });
    return id;
  }

  async claim(queues: readonly string[], holder: string): Promise<LeasedJob | null> {
    await this.expireLeases();
    const now = this.clock.now();
    const wanted = new Set(queues);
    let next: Entry | undefined;
    for (const j of this.jobs.values()) {
      if (j.state !== 'queued' || !wanted.has(j.queue) || j.visibleAt > now) continue;
      if (!next || j.seq < next.seq) next = j;
    }
    if (!next) return null;
    next.state = 'active';
    next.holder = holder;
    next.leaseUntil = now + next.leaseSeconds * 1000;
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
    j.finishedAt = this.clock.now();
    j.output = structuredClone(output);
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
    for (const j of this.jobs.values()) {
      if (j.state === 'active' && j.leaseUntil <= now) this.retryOrFail(j, 'lease expired');
      if (j.finishedAt !== undefined && now - j.finishedAt > RETENTION_MS) {
        this.jobs.delete(j.id);
        if (j.singleton) this.singletons.delete(j.singleton);
      }
    }
  }

  async close(): Promise<void> {}

  private retryOrFail(j: Entry, error: string): void {
    j.output = { error };
    if (j.retryCount >= j.retryLimit) {
      j.state = 'failed';
      j.finishedAt = this.clock.now();
      return;
    }
    j.retryCount += 1;
    j.state = 'queued';
    j.visibleAt = this.clock.now() + backoffSeconds(j.retryDelaySeconds, j.retryCount) * 1000;
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
