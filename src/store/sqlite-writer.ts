// The SQLite store's writes on a thread of their own (sqlite-writer-worker.mjs, a `node:worker_threads`
// Worker with its own connection to the WAL file): the event loop only hands each write over and
// awaits its answer, and the statements and commits run beside it. The writes of one turn go over in
// one message; the thread commits whatever has arrived in one transaction (group commit). A write is
// answered only after its transaction committed, or with the error that refused it (alone: a refused
// batch is retried one write at a time). A thread that stops (a crash, an abort) fails every write it
// had been handed and not answered with a `store_error` (never a false "kept"); the writes not handed
// over yet, and the next ones, go to a new thread.
import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.ts';
import type { IntakeWrite, IntakeWriteSql, IntakeWrites } from './sqlite-intake-writes.mjs';

export interface SqliteWriter {
  write<K extends keyof IntakeWrites>(
    op: K,
    args: IntakeWrites[K]['args'],
  ): Promise<IntakeWrites[K]['answer']>;
  /** Writes everything handed over so far, then closes the thread's connection and ends it. */
  close(): Promise<void>;
}

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Answer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: RemoteError };
interface RemoteError {
  name: string;
  message: string;
  code?: string;
}

export const writerScript = new URL('./sqlite-writer-worker.mjs', import.meta.url);

/** The error a write refused on the thread rejects with: its message, name and SQLite code kept. */
const rebuilt = (e: RemoteError): Error => {
  const err = new Error(e.message) as Error & { code?: string };
  err.name = e.name;
  if (e.code !== undefined) err.code = e.code;
  return err;
};

/**
 * The writer for the SQLite file at `path` (already created and migrated). `script` is the thread's
 * module (tests give one that fails on purpose).
 */
export const createSqliteWriter = (
  path: string,
  sql: IntakeWriteSql,
  opts: { script?: URL } = {},
): SqliteWriter => {
  let thread: Worker | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;
  let nextId = 0;
  /** Writes handed over and not answered yet, by id. */
  const waiting = new Map<number, Waiting>();
  /** This turn's writes, sent together once it ends. */
  let outIds: number[] = [];
  let outItems: IntakeWrite[] = [];
  let scheduled = false;

  const stopped = (thisThread: Worker, reason: string) => {
    if (thread !== thisThread) return;
    thread = undefined;
    const err = new AppError(
      'store_error',
      `the SQLite writer thread stopped (${reason}); the write was not confirmed`,
      {},
    );
    // Only the writes handed to this thread: those of this turn, not sent yet, go to the next thread
    // (failing them here, then sending them, would write what was answered as not kept).
    const unsent = new Set(outIds);
    for (const [id, w] of waiting) {
      if (unsent.has(id)) continue;
      waiting.delete(id);
      w.reject(err);
    }
  };

  const start = (): Worker => {
    const t = new Worker(opts.script ?? writerScript, { workerData: { path, sql } });
    t.on('message', (answers: Answer[]) => {
      for (const a of answers) {
        const w = waiting.get(a.id);
        if (!w) continue;
        waiting.delete(a.id);
        if (a.ok) w.resolve(a.value);
        else w.reject(rebuilt(a.error));
      }
      // An idle writer does not keep the process alive; one with writes in flight, or closing, does.
      if (waiting.size === 0 && !closed) t.unref();
    });
    t.on('error', (err) => stopped(t, err.message));
    t.on('exit', (code) => stopped(t, `exit code ${code}`));
    return t;
  };

  const send = () => {
    scheduled = false;
    if (outIds.length === 0) return;
    const ids = outIds;
    const items = outItems;
    outIds = [];
    outItems = [];
    thread ??= start();
    thread.ref();
    try {
      thread.postMessage({ kind: 'write', ids, items });
    } catch {
      // A value that cannot be copied to the thread (a function, a symbol): handed over one at a time,
      // so only that write fails, with nothing of it written.
      for (const [k, id] of ids.entries()) {
        try {
          thread.postMessage({ kind: 'write', ids: [id], items: [items[k]] });
        } catch (cause) {
          const why = 'a write could not be handed to the SQLite writer thread';
          waiting.get(id)?.reject(new AppError('store_error', why, {}, { cause }));
          waiting.delete(id);
        }
      }
      if (waiting.size === 0 && !closed) thread.unref();
    }
  };

  return {
    write(op, args) {
      if (closed) return Promise.reject(new AppError('store_error', 'the SQLite store is closed'));
      const id = nextId++;
      outIds.push(id);
      outItems.push({ op, args } as IntakeWrite);
      if (!scheduled) {
        scheduled = true;
        setImmediate(send);
      }
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      });
    },
    close() {
      closing ??= (async () => {
        closed = true;
        send();
        const t = thread;
        if (!t) return;
        t.ref();
        const exited = new Promise<void>((resolve) => t.once('exit', () => resolve()));
        t.postMessage({ kind: 'close' });
        await exited;
      })();
      return closing;
    },
  };
};
