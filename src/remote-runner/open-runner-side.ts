// Composition of the runner side of `serve`: the job queue, the runner registry and the attempt
// ledger on DATABASE_URL, and the hub /api/runner/* serves. The orchestrator dispatches through
// the same `queue` object (with the in-process engine it must be this very instance).
import type { Logger } from '../observability/logger.ts';
import type { Redact } from '../observability/redact.ts';
import { openJobQueue } from '../queue/open-queue.ts';
import type { JobQueue } from '../queue/types.ts';
import { redactingLedger } from '../runner/redacting-ledger.ts';
import type { AttemptLedger, AttemptRecord } from '../runner/types.ts';
import { openRunnerRegistry, openRunStore } from '../store/open-store.ts';
import type { RunnerRegistry } from '../store/runner-tokens.ts';
import { createRunnerHub, type RunnerHub } from './hub.ts';

export interface RunnerSide {
  hub: RunnerHub;
  queue: JobQueue;
  registry: RunnerRegistry;
  ledger: AttemptLedger;
  /** Sets what the hub does with an attempt a remote runner's report ended unsolved (its retry). */
  onUnsolved(fn: (record: AttemptRecord) => Promise<unknown>): void;
  /** Sets what the hub does with an attempt a remote runner's report just ended (a pass of its run). */
  onEnded(fn: (record: AttemptRecord) => void): void;
  close(): Promise<void>;
}

export const openRunnerSide = async (
  databaseUrl: string,
  logger: Logger,
  redact: Redact,
  /** The bot's clock for what runners do (heard-from times, their clock offsets). */
  clock?: { now(): Date },
): Promise<RunnerSide> => {
  const queue = await openJobQueue(databaseUrl, { logger });
  const registry = await openRunnerRegistry(databaseUrl);
  const runs = await openRunStore(databaseUrl);
  // What remote runners report (final reports, failure summaries) is stored redacted.
  const ledger = redactingLedger(runs.ledger, redact);
  let unsolved: ((record: AttemptRecord) => Promise<unknown>) | undefined;
  let ended: ((record: AttemptRecord) => void) | undefined;
  return {
    hub: createRunnerHub({
      queue,
      registry,
      ledger,
      logger: logger.child({ name: 'runners' }),
      ...(clock ? { clock } : {}),
      onUnsolved: async (r) => unsolved?.(r),
      onEnded: (r) => ended?.(r),
    }),
    onUnsolved(fn) {
      unsolved = fn;
    },
    onEnded(fn) {
      ended = fn;
    },
    queue,
    registry,
    ledger: runs.ledger,
    async close() {
      await queue.close();
      await registry.close();
      await runs.close();
    },
  };
};
