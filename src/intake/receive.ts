// The forge-agnostic half of a webhook route, after the signature check: normalise, record the
// delivery (dedupe), enqueue the processing, and say what to answer. Nothing here waits for a forge.
// With several replicas on one database, a delivery being processed is leased to its replica, so
// another replica replays it only once that lease ran out (the replica died mid-delivery).
import { hostname } from 'node:os';
import { z } from 'zod';
import { AppError, isAppError } from '../errors.ts';
import type { ForgeKind } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { DeliveryOutcome, Store } from '../store/types.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import { forgeEventSchema, type Normalized } from './events.ts';
import type { DeliveryWork } from './process-events.ts';

export interface ReceiveDeps {
  store: Store;
  queue: DeliveryQueue;
  process: (work: DeliveryWork) => Promise<void>;
  metrics: Metrics;
  logger: Logger;
  /** This replica's name on delivery leases (default host:pid); replicas must differ. */
  holder?: string;
  /** How long a delivery lease lasts without renewal (default 120 s; renewed while processing). */
  leaseSeconds?: number;
  /** Time for leases and retry backoff (default the system clock). */
  clock?: { now(): Date };
  /** Repeats `fn` every `ms` until stopped: the lease renewal's timer (default setInterval). */
  every?: Every;
  /** A delivery whose processing keeps failing: how often it is tried, and the backoff between tries. */
  retry?: DeliveryRetryPolicy;
}

export type Every = (ms: number, fn: () => void) => { stop(): void };

const intervalTimer: Every = (ms, fn) => {
  const timer = setInterval(fn, ms);
  return { stop: () => clearInterval(timer) };
};

export interface DeliveryRetryPolicy {
  /** Tries in all before the delivery is marked failed (default 5). */
  maxAttempts: number;
  /** Wait after the first failure, doubled after each further one (default 30 s). */
  baseSeconds: number;
  /** The longest wait (default 15 min). */
  maxSeconds: number;
}

export const defaultDeliveryRetry: DeliveryRetryPolicy = { maxAttempts: 5, baseSeconds: 30, maxSeconds: 900 };

/** Seconds to wait after the `failures`-th failure: base · 2^(failures-1), capped. */
export const retryDelaySeconds = (failures: number, policy: DeliveryRetryPolicy): number =>
  Math.min(policy.maxSeconds, policy.baseSeconds * 2 ** Math.max(0, failures - 1));

export interface Received {
  forge: ForgeKind;
  deliveryId: string;
  event: string;
  payload: unknown;
  normalize: (event: string, payload: unknown) => Normalized;
}

export interface ReceiveResult {
  /** 200 for a redelivery, 202 for a delivery taken (accepted, ignored, or spooled while the store is down). */
  status: 200 | 202;
  outcome: DeliveryOutcome | 'spooled';
  events: number;
}

/** The payload's `action` for the delivery's record, when it has a short one (no schema yet). */
const actionOf = (payload: unknown): string | undefined => {
  const action =
    typeof payload === 'object' && payload !== null ? (payload as { action?: unknown }).action : undefined;
  return typeof action === 'string' && action.length <= 100 ? action : undefined;
};

const defaultHolder = `${hostname()}:${process.pid}`;

/** Deliveries this process has queued and not finished, per delivery queue (never replayed by it). */
const inFlight = new WeakMap<DeliveryQueue, Set<string>>();
const inFlightOf = (queue: DeliveryQueue): Set<string> => {
  const set = inFlight.get(queue) ?? new Set<string>();
  inFlight.set(queue, set);
  return set;
};

type LeaseDeps = Pick<ReceiveDeps, 'store' | 'holder' | 'leaseSeconds' | 'clock'>;

const nowOf = (deps: Pick<ReceiveDeps, 'clock'>): number =>
  (deps.clock ?? { now: () => new Date() }).now().getTime();

/** This replica's lease on a delivery taken at `now` (ms): its holder and end. */
const leaseFrom = (deps: LeaseDeps, now: number): { holder: string; until: string } => ({
  holder: deps.holder ?? defaultHolder,
  until: new Date(now + (deps.leaseSeconds ?? 120) * 1000).toISOString(),
});

/** Takes or renews this replica's lease on a delivery; false when another replica holds it. */
const lease = (deps: LeaseDeps, work: Pick<DeliveryWork, 'forge' | 'deliveryId'>): Promise<boolean> => {
  const now = nowOf(deps);
  const { holder, until } = leaseFrom(deps, now);
  return deps.store.leaseDelivery(work.forge, work.deliveryId, holder, until, new Date(now).toISOString());
};

type FailureDeps = Pick<ReceiveDeps, 'store' | 'logger' | 'clock' | 'retry'> & {
  metrics?: Pick<ReceiveDeps['metrics'], 'deliveryFailures'>;
};

/**
 * A processing failed (the forge answered 500, the repository cannot be read…): counted, and tried again
 * after a growing wait, at most `maxAttempts` times in all; then the delivery is marked failed, never
 * replayed, and shown on the status page and in /metrics. The queue goes on with the next delivery.
 */
const deliveryFailed = async (deps: FailureDeps, work: DeliveryWork, err: unknown): Promise<void> => {
  const policy = deps.retry ?? defaultDeliveryRetry;
  const error = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  const failures = await deps.store.countDeliveryFailure(work.forge, work.deliveryId, error);
  const now = nowOf(deps);
  const log = { forge: work.forge, delivery: work.deliveryId, failures, err };
  if (failures >= policy.maxAttempts) {
    await deps.store.holdDelivery(work.forge, work.deliveryId, { failedAt: new Date(now).toISOString() });
    deps.metrics?.deliveryFailures.inc({ forge: work.forge, outcome: 'failed' });
    deps.logger.error(log, 'delivery failed for good after its last retry; it is not tried again');
    return;
  }
  const retryAfter = new Date(now + retryDelaySeconds(failures, policy) * 1000).toISOString();
  await deps.store.holdDelivery(work.forge, work.deliveryId, { retryAfter });
  deps.metrics?.deliveryFailures.inc({ forge: work.forge, outcome: 'retry' });
  deps.logger.warn({ ...log, retryAfter }, 'delivery processing failed; tried again later');
};

/**
 * The lane does not wait for the "processed" mark: it rides in the store's next write, beside the next
 * delivery's work (one commit for both, not one each). A mark lost in a crash, or refused, lets the
 * delivery be resumed and processed again, as a crash just before the mark always did: no intent is
 * stored twice (keyed by comment and line) and only a new one is acknowledged; a refusal or usage
 * reply may be posted again. The window is one turn of the event loop (SQLite) or one batch's round
 * trip, or on a quiet bot up to 20 ms waiting for a sighting batch to ride in (PostgreSQL).
 */
const markProcessed = (
  deps: Pick<ReceiveDeps, 'store' | 'logger'>,
  work: Pick<DeliveryWork, 'forge' | 'deliveryId'>,
): Promise<void> =>
  deps.store.markDeliveryProcessed(work.forge, work.deliveryId).catch((err: unknown) => {
    deps.logger.warn(
      { forge: work.forge, delivery: work.deliveryId, err },
      'processed mark not written; the delivery will be resumed and processed again',
    );
  });

/**
 * Deliveries about one repository are processed in the order they arrived; those about different
 * repositories (or about none) side by side.
 */
const laneOf = (work: DeliveryWork): string => {
  const repo = work.events.find((e) => 'repo' in e)?.repo;
  return repo ? `${work.forge}:${repo.owner}/${repo.name}` : `${work.forge}:${work.deliveryId}`;
};

/**
 * Queue a delivery's processing; it is marked processed (and its stored events dropped) when done.
 * `leasedUntil` (ISO): the lease this replica took with the delivery's record; while less than one
 * renewal period of it has passed, the processing starts without taking it again.
 */
export const enqueueDelivery = (
  deps: Pick<
    ReceiveDeps,
    'store' | 'queue' | 'process' | 'logger' | 'holder' | 'leaseSeconds' | 'clock' | 'retry' | 'every'
  > & {
    metrics?: Pick<ReceiveDeps['metrics'], 'deliveryFailures'>;
  },
  work: DeliveryWork,
  leasedUntil?: string,
): boolean => {
  const key = `${work.forge}:${work.deliveryId}`;
  const mine = inFlightOf(deps.queue);
  const queued = deps.queue.enqueue(
    key,
    async () => {
      // Until its "processed" mark is written, the delivery stays in flight here (never resumed here).
      let marked: Promise<void> | undefined;
      try {
        // Renewed at the start (it may have waited behind others), unless it was taken with the record
        // a moment ago, and while it runs.
        const renewMs = ((deps.leaseSeconds ?? 120) * 1000) / 3;
        const fresh = leasedUntil !== undefined && nowOf(deps) < Date.parse(leasedUntil) - 2 * renewMs;
        if (!fresh && !(await lease(deps, work))) {
          deps.logger.info({ delivery: work.deliveryId }, 'delivery taken over by another replica');
          return;
        }
        const renew = (deps.every ?? intervalTimer)(
          renewMs,
          () => void lease(deps, work).catch(() => undefined),
        );
        try {
          await deps.process(work);
        } catch (err) {
          renew.stop();
          await deliveryFailed(deps, work, err);
          return;
        } finally {
          renew.stop();
        }
        marked = markProcessed(deps, work);
      } finally {
        if (marked) deps.queue.track(marked.finally(() => mine.delete(key)));
        else mine.delete(key);
      }
    },
    laneOf(work),
  );
  if (queued) mine.add(key);
  return queued;
};

/**
 * At start, and periodically: queue again the accepted deliveries whose processing never finished and
 * that no live replica holds (its lease ran out, or it never began). Intents are keyed by (comment,
 * line) or (delivery, position), so a command stored before the interruption is not stored twice.
 */
export const resumeUnprocessed = async (deps: ReceiveDeps): Promise<number> => {
  let resumed = 0;
  const mine = inFlightOf(deps.queue);
  for (const d of await deps.store.listUnprocessedDeliveries(new Date(nowOf(deps)).toISOString())) {
    if (mine.has(`${d.forge}:${d.deliveryId}`) || !(await lease(deps, d))) continue;
    const events = z.array(forgeEventSchema).safeParse(d.events);
    if (!events.success) {
      deps.logger.error(
        { forge: d.forge, delivery: d.deliveryId },
        'stored events no longer parse; delivery dropped',
      );
      await deps.store.markDeliveryProcessed(d.forge, d.deliveryId);
      continue;
    }
    if (enqueueDelivery(deps, { forge: d.forge, deliveryId: d.deliveryId, events: events.data })) resumed++;
  }
  if (resumed > 0) deps.logger.info({ resumed }, 'resumed unprocessed deliveries');
  return resumed;
};

/** Retries, every `everyMs`, the unprocessed deliveries whose replica stopped holding them. */
export const startDeliveryRetry = (deps: ReceiveDeps, everyMs = 30_000): { stop(): void } => {
  const timer = setInterval(() => {
    void resumeUnprocessed(deps).catch((err: unknown) =>
      deps.logger.error({ err }, 'retry of unprocessed deliveries failed'),
    );
  }, everyMs);
  return { stop: () => clearInterval(timer) };
};

/**
 * The store did not take a delivery (it is unreachable, its disk is full…): an AppError `store_error`
 * that says what normalising had decided (`taken`), so the caller can keep an accepted delivery in the
 * spool (intake/spooled-receive.ts) and let an ignored one go.
 */
export const storeRefused = (cause: unknown, taken: 'accepted' | 'ignored'): AppError =>
  new AppError(
    'store_error',
    `the store did not take the delivery: ${cause instanceof Error ? cause.message : String(cause)}`.slice(
      0,
      500,
    ),
    { taken },
    { cause },
  );

export const createReceiver = (deps: ReceiveDeps) => {
  const { store, metrics, logger } = deps;

  const receive = async (r: Received): Promise<ReceiveResult> => {
    const action = actionOf(r.payload);
    const sighting = {
      forge: r.forge,
      deliveryId: r.deliveryId,
      event: r.event,
      ...(action ? { action } : {}),
    };
    // The hot path answers before it logs anything worth a child logger: made on first use only.
    let child: Logger | undefined;
    const log = {
      get: () => (child ??= logger.child({ forge: r.forge, delivery: r.deliveryId, event: r.event, action })),
    };
    let normalized: Normalized;
    try {
      normalized = r.normalize(r.event, r.payload);
    } catch (err) {
      if (isAppError(err, 'invalid_payload')) {
        // Signed by the forge but not the shape we read: recorded, without taking the delivery id (the
        // 400 is the answer whether or not the store could take the record).
        await store
          .recordDelivery({ ...sighting, outcome: 'rejected', reason: err.message })
          .catch((cause: unknown) => log.get().warn({ err: cause }, 'rejected delivery not recorded'));
        metrics.deliveries.inc({ forge: r.forge, event: r.event, outcome: 'rejected' });
        log.get().warn({ path: err.details.path }, 'webhook payload failed its schema');
      }
      throw err;
    }
    const taken = normalized.outcome;
    // An accepted delivery is leased to this replica in the same write: its processing is queued here.
    const leased = taken === 'accepted' ? leaseFrom(deps, nowOf(deps)) : undefined;
    const { outcome } = await store
      .recordDelivery({
        ...sighting,
        outcome: taken,
        ...(normalized.outcome === 'ignored'
          ? { reason: normalized.reason }
          : { events: normalized.events, ...(leased ? { lease: leased } : {}) }),
      })
      .catch((cause: unknown) => {
        throw storeRefused(cause, taken);
      });
    metrics.deliveries.inc({ forge: r.forge, event: r.event, outcome });
    if (outcome === 'duplicate') {
      log.get().info('redelivery ignored');
      return { status: 200, outcome, events: 0 };
    }
    if (normalized.outcome === 'ignored') {
      if (logger.isLevelEnabled('debug')) log.get().debug({ reason: normalized.reason }, 'delivery ignored');
      return { status: 202, outcome, events: 0 };
    }
    enqueueDelivery(
      deps,
      { forge: r.forge, deliveryId: r.deliveryId, events: normalized.events },
      leased?.until,
    );
    if (logger.isLevelEnabled('info'))
      log.get().info({ events: normalized.events.length }, 'delivery accepted');
    return { status: 202, outcome, events: normalized.events.length };
  };

  // While a webhook is being answered, queued processing waits (bounded by the queue's maxDeferMs): the
  // answer, not the work after it, is what the forge is timing.
  return async (r: Received): Promise<ReceiveResult> => {
    const answered = deps.queue.answering();
    try {
      return await receive(r);
    } finally {
      answered();
    }
  };
};
