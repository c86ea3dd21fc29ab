// The forge-agnostic half of a webhook route, after the signature check: normalise, record the
// delivery (dedupe), enqueue the processing, and say what to answer. Nothing here waits for a forge.
import { z } from 'zod';
import { isAppError } from '../errors.ts';
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
}

export interface Received {
  forge: ForgeKind;
  deliveryId: string;
  event: string;
  payload: unknown;
  normalize: (event: string, payload: unknown) => Normalized;
}

export interface ReceiveResult {
  /** 200 for a redelivery, 202 for a delivery taken (accepted or ignored). */
  status: 200 | 202;
  outcome: DeliveryOutcome;
  events: number;
}

const withAction = z.object({ action: z.string().max(100) });

/** Queue a delivery's processing; it is marked processed (and its stored events dropped) when done. */
export const enqueueDelivery = (
  deps: Pick<ReceiveDeps, 'store' | 'queue' | 'process'>,
  work: DeliveryWork,
): boolean =>
  deps.queue.enqueue(`${work.forge}:${work.deliveryId}`, async () => {
    await deps.process(work);
    await deps.store.markDeliveryProcessed(work.forge, work.deliveryId);
  });

/**
 * At start: queue again the accepted deliveries whose processing never finished. Intents are keyed by
 * (delivery, position), so a command stored before the interruption is not stored twice.
 */
export const resumeUnprocessed = async (deps: ReceiveDeps): Promise<number> => {
  let resumed = 0;
  for (const d of await deps.store.listUnprocessedDeliveries()) {
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

export const createReceiver = (deps: ReceiveDeps) => {
  const { store, metrics, logger } = deps;

  return async (r: Received): Promise<ReceiveResult> => {
    const action = withAction.safeParse(r.payload).data?.action;
    const sighting = {
      forge: r.forge,
      deliveryId: r.deliveryId,
      event: r.event,
      ...(action ? { action } : {}),
    };
    const log = logger.child({ forge: r.forge, delivery: r.deliveryId, event: r.event, action });
    let normalized: Normalized;
    try {
      normalized = r.normalize(r.event, r.payload);
    } catch (err) {
      if (isAppError(err, 'invalid_payload')) {
        // Signed by the forge but not the shape we read: recorded, without taking the delivery id.
        await store.recordDelivery({ ...sighting, outcome: 'rejected', reason: err.message });
        metrics.deliveries.inc({ forge: r.forge, event: r.event, outcome: 'rejected' });
        log.warn({ path: err.details.path }, 'webhook payload failed its schema');
      }
      throw err;
    }
    const taken = normalized.outcome;
    const { outcome } = await store.recordDelivery({
      ...sighting,
      outcome: taken,
      ...(normalized.outcome === 'ignored' ? { reason: normalized.reason } : { events: normalized.events }),
    });
    metrics.deliveries.inc({ forge: r.forge, event: r.event, outcome });
    if (outcome === 'duplicate') {
      log.info('redelivery ignored');
      return { status: 200, outcome, events: 0 };
    }
    if (normalized.outcome === 'ignored') {
      log.debug({ reason: normalized.reason }, 'delivery ignored');
      return { status: 202, outcome, events: 0 };
    }
    enqueueDelivery(deps, { forge: r.forge, deliveryId: r.deliveryId, events: normalized.events });
    log.info({ events: normalized.events.length }, 'delivery accepted');
    return { status: 202, outcome, events: normalized.events.length };
  };
};
