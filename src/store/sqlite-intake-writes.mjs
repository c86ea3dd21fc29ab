// The SQLite intake's writes (delivery sightings, intents, "processed" marks, leases, failure counts and
// holds) on one better-sqlite3 connection, and a batch of them in one transaction. Plain JavaScript: the
// store's writer thread (sqlite-writer-worker.mjs) runs it, where no TypeScript loader is, and so does
// an in-memory store on the calling thread (sqlite-store.ts). The SQL texts come from the caller.

/**
 * Prepares the writes on `db`. `sql` holds the statements' texts (sqlite-store.ts, `intakeWriteSql`).
 * A write is `{ op, args }`; `batch(writes)` runs them in order in one transaction and answers each.
 */
export const prepareIntakeWrites = (db, sql) => {
  const insertFirst = db.prepare(sql.insertFirst);
  const insertAny = db.prepare(sql.insertAny);
  const insertIntent = db.prepare(sql.insertIntent);
  const selectIntent = db.prepare(sql.selectIntent);
  const markProcessed = db.prepare(sql.markProcessed);
  const lease = db.prepare(sql.lease);
  const countFailure = db.prepare(sql.countFailure);
  const attempts = db.prepare(sql.attempts).pluck();
  const hold = db.prepare(sql.hold);

  const ops = {
    record(d) {
      const row = {
        forge: d.forge,
        deliveryId: d.deliveryId,
        event: d.event,
        action: d.action ?? null,
        reason: d.reason ?? null,
        at: new Date().toISOString(),
      };
      if (d.outcome === 'rejected') {
        insertAny.run({ ...row, outcome: 'rejected' });
        return 'rejected';
      }
      const accepted = d.outcome === 'accepted';
      const events = accepted && d.events ? JSON.stringify(d.events) : null;
      const held = accepted && d.lease ? d.lease : { holder: null, until: null };
      if (insertFirst.run({ ...row, outcome: d.outcome, events, ...held }).changes === 1) return d.outcome;
      insertAny.run({ ...row, outcome: 'duplicate', reason: 'delivery id already seen' });
      return 'duplicate';
    },
    intent(i) {
      const at = new Date().toISOString();
      const inserted = insertIntent.run({
        forge: i.forge,
        repo: i.repo,
        issueNumber: i.issueNumber ?? null,
        command: JSON.stringify(i.command),
        sender: i.sender,
        deliveryId: i.deliveryId,
        seq: i.seq,
        at,
      });
      // A new row is what was just written: its id and time. A repeated one is read as it was stored.
      if (inserted.changes === 1) return { created: true, id: Number(inserted.lastInsertRowid), at };
      return { created: false, row: selectIntent.get(i.forge, i.deliveryId, i.seq) };
    },
    mark({ forge, deliveryId }) {
      markProcessed.run(new Date().toISOString(), forge, deliveryId);
    },
    lease({ forge, deliveryId, holder, until, now }) {
      return lease.run(holder, until, forge, deliveryId, now, holder).changes === 1;
    },
    failure({ forge, deliveryId, error }) {
      countFailure.run(error, forge, deliveryId);
      return attempts.get(forge, deliveryId) ?? 0;
    },
    hold({ forge, deliveryId, retryAfter, failedAt }) {
      hold.run(retryAfter, failedAt, forge, deliveryId);
    },
  };

  const run = (w) => {
    const op = ops[w.op];
    if (!op) throw new Error(`unknown SQLite intake write: ${String(w.op)}`);
    return op(w.args);
  };
  // IMMEDIATE: the write lock from BEGIN; other connections write the same file (the run store).
  const batch = db.transaction((writes) => writes.map(run));
  return { batch: (writes) => batch.immediate(writes), run };
};
