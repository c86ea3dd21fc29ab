// Types of sqlite-intake-writes.mjs (plain JavaScript, so a worker thread can run it).
import type Database from 'better-sqlite3';
import type { ForgeKind } from '../forges/types.ts';
import type { DeliveryOutcome, NewDelivery, NewIntent } from './types.ts';

export interface IntakeWriteSql {
  insertFirst: string;
  insertAny: string;
  insertIntent: string;
  selectIntent: string;
  markProcessed: string;
  lease: string;
  countFailure: string;
  attempts: string;
  hold: string;
}

type Key = { forge: ForgeKind; deliveryId: string };

/** One write and what it answers. */
export interface IntakeWrites {
  record: { args: NewDelivery; answer: DeliveryOutcome };
  intent: {
    args: NewIntent;
    answer: { created: true; id: number; at: string } | { created: false; row: unknown };
  };
  mark: { args: Key; answer: undefined };
  lease: { args: Key & { holder: string; until: string; now: string }; answer: boolean };
  failure: { args: Key & { error: string }; answer: number };
  hold: { args: Key & { retryAfter: string | null; failedAt: string | null }; answer: undefined };
}

export type IntakeWrite = {
  [K in keyof IntakeWrites]: { op: K; args: IntakeWrites[K]['args'] };
}[keyof IntakeWrites];

export declare const prepareIntakeWrites: (
  db: Database.Database,
  sql: IntakeWriteSql,
) => {
  /** The writes in order, in one transaction; a write that throws rolls back the whole batch. */
  batch: (writes: readonly IntakeWrite[]) => unknown[];
  /** One write, in whatever transaction is open (none: its own). */
  run: (write: IntakeWrite) => unknown;
};
