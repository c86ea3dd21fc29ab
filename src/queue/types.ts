// The job queue port: named queues of JSON jobs, claimed with a lease by one holder, completed or
// failed (retried with backoff up to a limit), and made visible again when a holder dies and its
// lease runs out. Two engines: in-process (embedded default) and PostgreSQL on pg-boss.

export interface EnqueueOptions {
  /**
   * At most one job per (queue, key), whatever its state: a second enqueue with the same key is a
   * no-op that returns null. Cron ticks use `name:slot`, dispatches `run:issue:try`.
   */
  singletonKey?: string;
  /** Not visible to claims before this time. */
  runAfter?: Date;
  /** Retries after a failure or an expired lease (default 2). */
  retryLimit?: number;
  /** Base of the exponential backoff between retries (default 5 s; 0 retries at once). */
  retryDelaySeconds?: number;
  /** How long a claim holds the job without a heartbeat (default 60 s). */
  leaseSeconds?: number;
}

export type JobState = 'queued' | 'active' | 'completed' | 'failed';

export interface JobRef {
  queue: string;
  id: string;
}

export interface LeasedJob extends JobRef {
  payload: unknown;
  /** 0 on the first claim, then one more per retry. */
  retryCount: number;
  holder: string;
  leaseSeconds: number;
}

/** A job `release` or `drop` changed, and where it went. */
export interface DroppedJob extends JobRef {
  payload: unknown;
  state: JobState;
}

export interface JobInfo extends JobRef {
  state: JobState;
  payload: unknown;
  retryCount: number;
  /** Who holds (active) or last held (completed, failed) the job. */
  holder?: string;
  output?: unknown;
  leaseSeconds: number;
}

/** Something that runs SQL inside the caller's transaction (a pg client in BEGIN…COMMIT). */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /**
   * Where the transaction batches (PostgreSQL's shared ones): runs one `… RETURNING` statement
   * together with the others sent in this turn, as one statement; answers as `executeSql` does.
   */
  executeBatched?(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface JobQueue {
  readonly engine: 'in-process' | 'postgres';
  /** Returns the job id, or null when a job with the same singletonKey already exists. */
  enqueue(queue: string, payload: unknown, opts?: EnqueueOptions): Promise<string | null>;
  /**
   * Claims the oldest visible job of the queues named (FIFO by creation across them; a retried job
   * keeps its place once its backoff ends), leased to `holder`. Each job goes to one claimer only.
   */
  claim(queues: readonly string[], holder: string): Promise<LeasedJob | null>;
  /** Extends the lease; `not_found` when the job is unknown, `conflict` when another holds it. */
  heartbeat(ref: JobRef, holder: string): Promise<void>;
  /** Idempotent for the holder: completing a job it already completed changes nothing. */
  complete(ref: JobRef, holder: string, output?: unknown): Promise<{ applied: boolean }>;
  /** Fails the attempt: the job is retried after a backoff, or failed for good past the limit. */
  fail(ref: JobRef, holder: string, error: string): Promise<{ applied: boolean }>;
  get(ref: JobRef): Promise<JobInfo | undefined>;
  /** Makes jobs whose lease ran out visible again (or failed, past the retry limit). */
  expireLeases(): Promise<void>;
  /**
   * Takes every job `holder` holds away from it, as an expired lease would but now: visible at once to
   * the next claimer (a retry), or failed past the retry limit. For a holder known to be gone.
   */
  release(holder: string, error: string): Promise<DroppedJob[]>;
  /** Fails every unfinished job of `queue` (queued, retrying or active) for good, with `error` as its output. */
  drop(queue: string, error: string): Promise<DroppedJob[]>;
  close(): Promise<void>;
}

export const defaultEnqueue = { retryLimit: 2, retryDelaySeconds: 5, leaseSeconds: 60 } as const;

/** Backoff before retry n (1-based): delay · 2^(n-1), capped at one hour. */
export const backoffSeconds = (delaySeconds: number, retry: number): number =>
  Math.min(3600, delaySeconds * 2 ** Math.max(0, retry - 1));
