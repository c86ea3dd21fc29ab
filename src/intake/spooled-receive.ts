// The receiver with a spool in front of its store: a verified, well-formed delivery the store cannot
// take goes to the spool on disk (intake/spool.ts) and is answered 202 once it is there, instead of
// failing and being lost (Gitea never redelivers). While anything is spooled, new deliveries queue
// behind it there, so the store sees them in the order they arrived. The spool is replayed oldest
// first through the receiver itself (the store's own dedupe by delivery id makes a second replay of one
// a `duplicate`) at start, when a delivery is spooled, and on a timer that backs off while the store
// stays away; each replayed file is removed. A delivery that fails its schema is refused before any of
// this (400), so a bad one is never spooled.
import { isAppError } from '../errors.ts';
import type { ForgeKind } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Normalized } from './events.ts';
import { normalizeGitea } from './gitea/normalize.ts';
import { normalizeGithub } from './github/normalize.ts';
import type { Received, ReceiveResult } from './receive.ts';
import type { Spool } from './spool.ts';

const normalizers: Record<ForgeKind, (event: string, payload: unknown) => Normalized> = {
  github: normalizeGithub,
  gitea: normalizeGitea,
};

export interface SpoolRetry {
  /** Wait after the first failed replay, doubled after each further one (default 1 s). */
  baseMs: number;
  /** The longest wait (default 60 s). */
  maxMs: number;
}

export const defaultSpoolRetry: SpoolRetry = { baseMs: 1_000, maxMs: 60_000 };

export interface SpooledReceiveDeps {
  /** The receiver (createReceiver): throws `store_error` when its store did not take a delivery. */
  receive: (r: Received) => Promise<ReceiveResult>;
  spool: Spool;
  metrics: Pick<Metrics, 'spoolDepth' | 'spooled'>;
  logger: Logger;
  retry?: SpoolRetry;
  clock?: { now(): Date };
  /**
   * Told of each refusal (store/store-health.ts): a store that cannot take a delivery is an outage
   * on /healthz and for the notice, as a failed reconcile is (SQLite full or locked: intake may be
   * the only writer while no run is live).
   */
  health?: { failed(err: unknown): boolean };
}

export interface SpooledReceiver {
  receive: (r: Received) => Promise<ReceiveResult>;
  /** Replays what is spooled now (serialised: a call while one runs waits for it). True when emptied. */
  replay(): Promise<boolean>;
  /** Stops the replay timer (a replay under way finishes its current delivery). */
  stop(): void;
}

export const createSpooledReceiver = (deps: SpooledReceiveDeps): SpooledReceiver => {
  const { spool, metrics, logger } = deps;
  const retry = deps.retry ?? defaultSpoolRetry;
  const now = () => (deps.clock ?? { now: () => new Date() }).now();
  let running: Promise<boolean> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let stopped = false;
  const gauge = () => metrics.spoolDepth.set(spool.depth());
  gauge();

  const toSpool = async (r: Received, why: unknown): Promise<ReceiveResult> => {
    if (why !== undefined) deps.health?.failed(why);
    try {
      await spool.add({
        forge: r.forge,
        deliveryId: r.deliveryId,
        event: r.event,
        payload: r.payload,
        receivedAt: now().toISOString(),
      });
    } catch (err) {
      metrics.spooled.inc({ outcome: 'refused' });
      logger.error(
        { forge: r.forge, delivery: r.deliveryId, event: r.event, depth: spool.depth(), err },
        'store unreachable and the delivery could not be spooled; answered 503 so the forge sees a failure',
      );
      throw err;
    } finally {
      gauge();
    }
    metrics.spooled.inc({ outcome: 'spooled' });
    logger.warn(
      { forge: r.forge, delivery: r.deliveryId, event: r.event, depth: spool.depth(), err: why },
      'store unreachable; delivery spooled to disk, replayed when the store is back',
    );
    schedule(0);
    return { status: 202, outcome: 'spooled', events: 0 };
  };

  const schedule = (ms: number) => {
    if (stopped || running) return;
    if (timer) {
      if (ms > 0) return;
      clearTimeout(timer);
    }
    timer = setTimeout(() => {
      timer = undefined;
      void replay();
    }, ms);
    timer.unref();
  };

  /** One pass over the spool; false when the store refused one (the rest stays, in order). */
  const pass = async (): Promise<boolean> => {
    const { files, setAside } = spool.list();
    for (const name of setAside)
      logger.error(
        { file: `${spool.dir}/${name}.bad` },
        'spooled delivery unreadable; set aside, not replayed',
      );
    if (files.length === 0) return true;
    logger.info({ depth: files.length }, 'replaying spooled deliveries');
    let replayed = 0;
    for (const { name, entry } of files) {
      const normalize = normalizers[entry.forge];
      try {
        const result = await deps.receive({ ...entry, normalize });
        logger.info(
          { forge: entry.forge, delivery: entry.deliveryId, outcome: result.outcome },
          'spooled delivery replayed',
        );
      } catch (err) {
        if (isAppError(err, 'invalid_payload')) {
          // It passed when it came in; a bot upgraded since reads it differently. Not replayable.
          logger.error(
            { forge: entry.forge, delivery: entry.deliveryId, err },
            'spooled delivery no longer passes its schema; dropped',
          );
        } else {
          logger.warn(
            { forge: entry.forge, delivery: entry.deliveryId, replayed, left: spool.depth(), err },
            'store still unreachable; spool replay stopped, tried again later',
          );
          return false;
        }
      }
      await spool.remove(name);
      metrics.spooled.inc({ outcome: 'replayed' });
      gauge();
      replayed++;
    }
    logger.info({ replayed, left: spool.depth() }, 'spool replayed');
    return true;
  };

  const replay = (): Promise<boolean> => {
    running ??= (async () => {
      try {
        // Deliveries spooled during a pass are taken by the next one.
        while (!stopped) {
          if (!(await pass())) return false;
          if (spool.depth() === 0) return true;
        }
        return false;
      } catch (err) {
        logger.error({ err }, 'spool replay failed; tried again later');
        return false;
      }
    })().then((emptied) => {
      running = undefined;
      gauge();
      if (emptied) failures = 0;
      else {
        failures++;
        schedule(Math.min(retry.maxMs, retry.baseMs * 2 ** (failures - 1)));
      }
      return emptied;
    });
    return running;
  };

  const receive = async (r: Received): Promise<ReceiveResult> => {
    if (spool.depth() > 0) {
      // Behind what is spooled, in order. Bad input is still refused first (throws invalid_payload).
      if (r.normalize(r.event, r.payload).outcome === 'ignored') return ignoredWhileDown();
      return toSpool(r, undefined);
    }
    try {
      return await deps.receive(r);
    } catch (err) {
      if (!isAppError(err, 'store_error')) throw err;
      // Nothing to keep for a delivery the bot ignores anyway.
      if (err.details.taken === 'ignored') return ignoredWhileDown();
      return toSpool(r, err);
    }
  };

  return {
    receive,
    replay,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
};

const ignoredWhileDown = (): ReceiveResult => ({ status: 202, outcome: 'ignored', events: 0 });
