// The forge-agnostic half of a webhook route, after the signature check: normalise, record the
// delivery (dedupe), enqueue the processing, and say what to answer. Nothing here waits for a forge.
import { z } from 'zod';
import { isAppError } from '../errors.ts';
import type { ForgeKind } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { DeliveryOutcome, Store } from '../store/types.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import type { Normalized } from './events.ts';
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

export const createReceiver = (deps: ReceiveDeps) => {
  const { store, queue, metrics, logger } = deps;

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
      ...(normalized.outcome === 'ignored' ? { reason: normalized.reason } : {}),
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
    const work: DeliveryWork = { forge: r.forge, deliveryId: r.deliveryId, events: normalized.events };
    queue.enqueue(`${r.forge}:${r.deliveryId}`, async () => {
      await deps.process(work);
      await store.markDeliveryProcessed(r.forge, r.deliveryId);
    });
    log.info({ events: normalized.events.length }, 'delivery accepted');
    return { status: 202, outcome, events: normalized.events.length };
  };
};
