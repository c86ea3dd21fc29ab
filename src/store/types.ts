// The persistence port: what the rest of the bot may ask of the store. Every method is async so a
// Postgres engine can implement the same interface; SQLite (sqlite-store.ts) is the embedded default.
import type { ForgeKind } from '../forges/types.ts';

export type DeliveryOutcome = 'accepted' | 'ignored' | 'duplicate' | 'rejected';

export interface NewDelivery {
  forge: ForgeKind;
  deliveryId: string;
  event: string;
  action?: string;
  /** accepted / ignored consume the id; rejected is recorded without consuming it. */
  outcome: Exclude<DeliveryOutcome, 'duplicate'>;
  /** Why it was ignored or rejected, in words (never a secret or a payload). */
  reason?: string;
  /** The normalised events of an accepted delivery, kept until it is processed. */
  events?: unknown[];
  /**
   * An accepted delivery whose processing this replica queues: leased to it with the id, in the same
   * write, so the processing need not take the lease again before it starts.
   */
  lease?: { holder: string; until: string };
}

export interface UnprocessedDelivery {
  forge: ForgeKind;
  deliveryId: string;
  /** As stored: the caller validates them again before use. */
  events: unknown;
}

export interface Delivery {
  forge: ForgeKind;
  deliveryId: string;
  event: string;
  action?: string;
  outcome: DeliveryOutcome;
  reason?: string;
  receivedAt: string;
  processedAt?: string;
  /** Times its processing failed so far. */
  attempts: number;
  /** The last processing error, in words. */
  error?: string;
  /** When it was given up on after its last retry (never replayed after). */
  failedAt?: string;
}

export interface NewIntent {
  forge: ForgeKind;
  /** `owner/name` */
  repo: string;
  issueNumber?: number;
  /** The command as data (the parsed slash command, or the signal that stands for one). */
  command: unknown;
  sender: string;
  deliveryId: string;
  /** Position of the command inside its delivery: (forge, deliveryId, seq) is unique. */
  seq: number;
}

export interface Intent extends NewIntent {
  id: number;
  status: string;
  createdAt: string;
}

export interface Store {
  /**
   * Record a sighting of a delivery. Returns `duplicate` (and records that sighting) when the id was
   * already accepted or ignored, so the caller does nothing a second time.
   */
  recordDelivery(d: NewDelivery): Promise<{ outcome: DeliveryOutcome }>;
  /** Marks an accepted delivery done and drops its stored events. */
  markDeliveryProcessed(forge: ForgeKind, deliveryId: string): Promise<void>;
  /**
   * Accepted deliveries whose processing never finished (a crash or restart in between), oldest first:
   * never a failed one, and none waiting for a retry later than `now` (ISO; absent: no wait honoured).
   */
  listUnprocessedDeliveries(now?: string): Promise<UnprocessedDelivery[]>;
  /** Counts a failed processing of a delivery (keeps `error`, drops its lease); returns the failures so far. */
  countDeliveryFailure(forge: ForgeKind, deliveryId: string, error: string): Promise<number>;
  /** After a failure: try again no sooner than `retryAfter`, or never again (`failedAt`). */
  holdDelivery(
    forge: ForgeKind,
    deliveryId: string,
    hold: { retryAfter: string } | { failedAt: string },
  ): Promise<void>;
  /** Deliveries given up on, newest first (the status page). */
  listFailedDeliveries(limit?: number): Promise<Delivery[]>;
  /**
   * Leases an unprocessed accepted delivery to `holder` until `until` (ISO): granted when it is
   * unleased, its lease ran out before `now`, or `holder` already holds it (a renewal). False when
   * another holder's lease is live, or the delivery is processed or unknown.
   */
  leaseDelivery(
    forge: ForgeKind,
    deliveryId: string,
    holder: string,
    until: string,
    now: string,
  ): Promise<boolean>;
  listDeliveries(filter?: { forge?: ForgeKind; deliveryId?: string }): Promise<Delivery[]>;
  /** Idempotent on (forge, deliveryId, seq): `created` is false when it already existed. */
  addIntent(intent: NewIntent): Promise<{ created: boolean; intent: Intent }>;
  listIntents(filter?: { forge?: ForgeKind; repo?: string }): Promise<Intent[]>;
  /** True when the store answers a trivial query. */
  ping(): Promise<boolean>;
  /**
   * Resolves when the store takes a write now; rejects with the store's own error (full, locked)
   * when not. Absent: `ping` is the best the store can tell.
   */
  pingWrite?(): Promise<void>;
  close(): Promise<void>;
}
