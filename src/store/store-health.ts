// Whether the store can be used now, as the bot has seen it: every failed store operation that is the
// store's fault (PostgreSQL unreachable, its connection dropped; SQLite full, locked or failing to
// write) marks an outage; reconcile passes and job claims then back off (bounded exponential, on an
// injectable clock) instead of failing every tick; a probe (`SELECT 1`) or the next operation that
// goes through ends it, except a store that refuses writes (full, locked, read-only), which only a
// write (the write probe, on the same backoff) shows to be back. /healthz answers 503 with the reason meanwhile. An outage longer
// than `notifyAfterMs` is told once (onLongOutage), and its end once more (onRecovered, with how long
// it lasted); a short blip is only logged.
import type { Logger } from '../observability/logger.ts';

/**
 * `unreachable`: the server cannot be reached or dropped the connection (a probe can tell when it is
 * back). `refused`: the store answers but cannot write (disk full, locked, I/O error): only a real
 * write can tell, so the next operation after the backoff decides.
 */
export type StoreFault = 'unreachable' | 'refused';

const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EAI_AGAIN',
  // admin_shutdown, crash_shutdown, cannot_connect_now
  '57P01',
  '57P02',
  '57P03',
]);
const unreachableWords =
  /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection ended unexpectedly|Client was closed and is not queryable|cannot reach Postgres/i;
const refusedCodes = /^SQLITE_(FULL|BUSY|LOCKED|IOERR|READONLY|CANTOPEN|PROTOCOL)/;
const refusedWords =
  /database or disk is full|database is locked|disk I\/O error|No space left on device|ENOSPC|in a read-only transaction/i;

const codeOf = (err: object): string | undefined =>
  'code' in err && typeof err.code === 'string' ? err.code : undefined;

/** The store fault an error (or anything in its `cause` chain) is, or undefined when it is not the store's. */
export const storeFaultOf = (err: unknown, depth = 0): StoreFault | undefined => {
  if (typeof err !== 'object' || err === null || depth > 8) return undefined;
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : '';
  // PostgreSQL SQLSTATE class 08: connection exception.
  if (code && (unreachableCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return 'unreachable';
  // PostgreSQL: disk_full, read_only_sql_transaction (a server made read-only, a standby after failover).
  if ((code && refusedCodes.test(code)) || code === 'ENOSPC' || code === '53100' || code === '25006')
    return 'refused';
  if (unreachableWords.test(message)) return 'unreachable';
  if (refusedWords.test(message)) return 'refused';
  if (err instanceof AggregateError)
    for (const e of err.errors) {
      const f = storeFaultOf(e, depth + 1);
      if (f) return f;
    }
  return 'cause' in err ? storeFaultOf(err.cause, depth + 1) : undefined;
};

export interface StoreOutageInfo {
  since: Date;
  /** One line: what failed, e.g. `connect ECONNREFUSED 127.0.0.1:5432`. */
  reason: string;
  fault: StoreFault;
  /** How long it has lasted (or lasted), in whole seconds. */
  seconds: number;
}

export type StoreStatus =
  | { ok: true }
  | { ok: false; reason: string; since: string; downSeconds: number; fault: StoreFault };

export interface StoreHealthOptions {
  /** `PostgreSQL` or `SQLite`: in the reason. */
  engine: string;
  /** True when the store answers (`Store.ping`). */
  probe: () => Promise<boolean>;
  /**
   * Resolves when the store takes a write now, throws its error when not (`probeWrite` in
   * open-store.ts). Given, it alone ends a `refused` outage (full, locked): an operation that went
   * through may only have read, which a full disk still allows, and the health would come and go.
   */
  writeProbe?: () => Promise<void>;
  logger: Logger;
  clock?: { now(): Date };
  /** The wait before the next try after n failures: baseMs·2^(n-1), at most maxMs (default 1 s … 30 s). */
  backoff?: { baseMs: number; maxMs: number };
  /** Probe period while the store is up (default 15 s): an idle bot notices an outage too. */
  upProbeMs?: number;
  /** An outage this long is told (onLongOutage); default 60 s. */
  notifyAfterMs?: number;
  onLongOutage?: (o: StoreOutageInfo) => Promise<void>;
  /** The end of an outage that was told. */
  onRecovered?: (o: StoreOutageInfo & { until: Date }) => Promise<void>;
  /** Timers of the watch loop (tests drive `check()` themselves and never start it). */
  timers?: {
    setTimeout(fn: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
  };
}

export interface StoreHealth {
  /** An operation failed: true (and an outage marked or prolonged) when it is the store's fault. */
  failed(err: unknown): boolean;
  /** An operation went through: ends an outage. */
  succeeded(): void;
  /** Whether a store operation (a reconcile pass, a claim) should go now: false while backing off. */
  mayTry(): boolean;
  /** Milliseconds until the next try is due (0 when it may go now). */
  retryInMs(): number;
  /**
   * Runs `fn` unless backing off (then resolves `{ ran: false }`); a success with no store fault
   * reported meanwhile ends an outage; a store fault it throws is recorded and not rethrown.
   */
  attempt(fn: () => Promise<void>): Promise<{ ran: boolean; error?: unknown }>;
  /** One step of the watch: tells a long outage, and probes when a probe is due. */
  check(): Promise<void>;
  status(): StoreStatus;
  /** The last outage that ended, while this process runs (the dashboard's line). */
  lastOutage(): { since: Date; until: Date } | undefined;
  /** Who is told of a long outage and its end (set once the notifiers exist; replaces the options'). */
  tellWith(hooks: Pick<StoreHealthOptions, 'onLongOutage' | 'onRecovered'>): void;
  /**
   * Called at the end of every outage, told or not (the spool's replay, the recovery of what was
   * missed); a listener's failure is logged.
   */
  whenBack(listener: (o: { since: Date; until: Date }) => Promise<void> | void): void;
  start(): void;
  stop(): void;
}

/** The write probe of a store: its own (`pingWrite`: a one-row commit), or its ping where it has none. */
export const writeProbeOf =
  (store: { ping(): Promise<boolean>; pingWrite?(): Promise<void> }) => async (): Promise<void> => {
    if (store.pingWrite) return store.pingWrite();
    if (!(await store.ping()))
      throw Object.assign(new Error('the store does not answer'), { code: 'ECONNREFUSED' });
  };

const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
};

const reasonOf = (err: unknown): string => {
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 3 && e instanceof Error; i++) {
    if (e.message && !parts.some((p) => p.includes(e instanceof Error ? e.message : '')))
      parts.push(e.message);
    e = e.cause;
  }
  return oneLine(parts.join(': ') || String(err));
};

interface Outage {
  since: Date;
  reason: string;
  fault: StoreFault;
  told: boolean;
  failures: number;
  nextTryAt: number;
}

export const createStoreHealth = (o: StoreHealthOptions): StoreHealth => {
  const clock = o.clock ?? { now: () => new Date() };
  const backoff = o.backoff ?? { baseMs: 1_000, maxMs: 30_000 };
  const notifyAfterMs = o.notifyAfterMs ?? 60_000;
  const timers = o.timers ?? {
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms).unref(),
    clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
  };
  let outage: Outage | undefined;
  let last: { since: Date; until: Date } | undefined;
  /** Bumped at each store fault: an attempt that saw one in its time is not a success. */
  let faults = 0;
  let checking: Promise<void> | undefined;
  let timer: unknown;
  let running = false;
  const backListeners: ((o: { since: Date; until: Date }) => Promise<void> | void)[] = [];
  let hooks: Pick<StoreHealthOptions, 'onLongOutage' | 'onRecovered'> = {
    ...(o.onLongOutage ? { onLongOutage: o.onLongOutage } : {}),
    ...(o.onRecovered ? { onRecovered: o.onRecovered } : {}),
  };

  const info = (x: Outage, at: Date): StoreOutageInfo => ({
    since: x.since,
    reason: x.reason,
    fault: x.fault,
    seconds: Math.round((at.getTime() - x.since.getTime()) / 1000),
  });

  const failed = (err: unknown): boolean => {
    const fault = storeFaultOf(err);
    if (!fault) return false;
    faults += 1;
    const now = clock.now();
    if (!outage) {
      outage = { since: now, reason: reasonOf(err), fault, told: false, failures: 0, nextTryAt: 0 };
      o.logger.error(
        { reason: outage.reason, fault },
        `${o.engine} store unavailable: reconcile passes and job claims back off, webhooks go to the spool`,
      );
    } else if (fault === 'unreachable' || outage.fault === 'refused') {
      outage.fault = fault;
      outage.reason = reasonOf(err);
    }
    outage.failures += 1;
    const wait = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(outage.failures - 1, 30));
    outage.nextTryAt = now.getTime() + wait;
    o.logger.warn({ retryInMs: wait, failures: outage.failures }, `${o.engine} store still unavailable`);
    return true;
  };

  const succeeded = (): void => {
    if (!outage) return;
    const ended = outage;
    outage = undefined;
    const until = clock.now();
    last = { since: ended.since, until };
    const i = info(ended, until);
    o.logger.info({ downSeconds: i.seconds, since: ended.since.toISOString() }, `${o.engine} store is back`);
    for (const listener of backListeners)
      void Promise.resolve()
        .then(() => listener({ since: ended.since, until }))
        .catch((err: unknown) => o.logger.error({ err }, 'after the store came back: a follow-up failed'));
    const onRecovered = hooks.onRecovered;
    if (ended.told && onRecovered)
      void onRecovered({ ...i, until }).catch((err: unknown) =>
        o.logger.error({ err }, 'telling the end of the store outage failed'),
      );
  };

  const mayTry = (): boolean => !outage || clock.now().getTime() >= outage.nextTryAt;

  const tellIfLong = async (): Promise<void> => {
    const x = outage;
    if (!x || x.told) return;
    const now = clock.now();
    if (now.getTime() - x.since.getTime() < notifyAfterMs) return;
    x.told = true;
    await hooks
      .onLongOutage?.(info(x, now))
      .catch((err: unknown) => o.logger.error({ err }, 'telling the store outage failed'));
  };

  /** A write tried on the backoff's schedule: the only end of a `refused` outage when there is one. */
  const checkWrite = async (writeProbe: () => Promise<void>): Promise<void> => {
    const before = faults;
    try {
      await writeProbe();
    } catch (err) {
      failed(
        storeFaultOf(err)
          ? err
          : Object.assign(new Error(`the ${o.engine} store does not take writes`), { code: 'SQLITE_IOERR' }),
      );
      return;
    }
    if (faults === before) succeeded();
  };

  const checkOnce = async (): Promise<void> => {
    await tellIfLong();
    if (outage?.fault === 'refused' && o.writeProbe) {
      if (mayTry()) await checkWrite(o.writeProbe);
      return;
    }
    // Only a write can tell that a full or locked store takes writes again: the next operation does.
    if (outage && (outage.fault === 'refused' || !mayTry())) return;
    const before = faults;
    let ok = false;
    let error: unknown;
    try {
      ok = await o.probe();
    } catch (err) {
      error = err;
    }
    if (ok) {
      if (faults === before) succeeded();
    } else
      failed(
        storeFaultOf(error)
          ? error
          : Object.assign(new Error(`the ${o.engine} store does not answer`), { code: 'ECONNREFUSED' }),
      );
  };

  const check = (): Promise<void> => {
    checking ??= checkOnce().finally(() => {
      checking = undefined;
    });
    return checking;
  };

  const schedule = () => {
    if (!running) return;
    const now = clock.now().getTime();
    let at = now + (o.upProbeMs ?? 15_000);
    if (outage) {
      at = outage.fault === 'refused' && !o.writeProbe ? now + backoff.maxMs : outage.nextTryAt;
      if (!outage.told) at = Math.min(at, outage.since.getTime() + notifyAfterMs);
    }
    timer = timers.setTimeout(
      () => {
        void check()
          .catch((err: unknown) => o.logger.error({ err }, 'store health check failed'))
          .finally(schedule);
      },
      Math.max(50, at - now),
    );
  };

  return {
    failed,
    succeeded,
    mayTry,
    async attempt(fn) {
      if (!mayTry()) return { ran: false };
      const before = faults;
      try {
        await fn();
      } catch (error) {
        if (!failed(error)) throw error;
        return { ran: true, error };
      }
      // A refused store is back only once a write went through (the write probe), when there is one.
      if (faults === before && !(outage?.fault === 'refused' && o.writeProbe)) succeeded();
      return { ran: true };
    },
    check,
    retryInMs: () => (outage ? Math.max(0, outage.nextTryAt - clock.now().getTime()) : 0),
    status() {
      if (!outage) return { ok: true };
      const now = clock.now();
      return {
        ok: false,
        reason: `store: ${o.engine} ${outage.fault === 'unreachable' ? 'unreachable' : 'refuses writes'}: ${outage.reason}`,
        since: outage.since.toISOString(),
        downSeconds: info(outage, now).seconds,
        fault: outage.fault,
      };
    },
    lastOutage: () => last,
    tellWith(h) {
      hooks = h;
    },
    whenBack(listener) {
      backListeners.push(listener);
    },
    start() {
      if (running) return;
      running = true;
      schedule();
    },
    stop() {
      running = false;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
    },
  };
};
