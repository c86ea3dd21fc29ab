// The SQLite store's writer thread (started by sqlite-writer.ts): its own better-sqlite3 connection to
// the store's WAL file, which the opening thread has already created and migrated. The writes that
// arrive together (every message queued while it was busy, and those of one turn) share one
// transaction: one commit for all. A batch the database refuses is run again one write at a time, each
// in its own transaction, so one bad write fails alone. Each write is answered by its id, in order.
// Plain JavaScript: no TypeScript loader runs in a worker thread under the tests.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { prepareIntakeWrites } from './sqlite-intake-writes.mjs';

const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
const writes = prepareIntakeWrites(db, workerData.sql);

/** Ids and writes waiting for the next transaction. */
let ids = [];
let items = [];
let scheduled = false;

const failed = (id, err) => ({
  id,
  ok: false,
  error: {
    name: err instanceof Error ? err.name : 'Error',
    message: err instanceof Error ? err.message : String(err),
    ...(err && typeof err === 'object' && 'code' in err ? { code: String(err.code) } : {}),
  },
});

const flush = () => {
  scheduled = false;
  if (items.length === 0) return;
  const batchIds = ids;
  const batch = items;
  ids = [];
  items = [];
  let answers;
  try {
    const values = writes.batch(batch);
    answers = values.map((value, k) => ({ id: batchIds[k], ok: true, value }));
  } catch (err) {
    if (batch.length === 1) answers = [failed(batchIds[0], err)];
    else
      answers = batch.map((w, k) => {
        try {
          return { id: batchIds[k], ok: true, value: writes.batch([w])[0] };
        } catch (one) {
          return failed(batchIds[k], one);
        }
      });
  }
  parentPort.postMessage(answers);
};

parentPort.on('message', (m) => {
  if (m.kind === 'close') {
    // Everything sent before the close is written and answered first; then the connection closes, and
    // the thread ends once its answers are out (closing the port could drop them).
    flush();
    db.close();
    parentPort.unref();
    return;
  }
  for (const [k, id] of m.ids.entries()) {
    ids.push(id);
    items.push(m.items[k]);
  }
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
});
