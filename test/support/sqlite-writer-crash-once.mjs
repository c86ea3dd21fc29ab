// A SQLite writer thread that dies once, for the tests: when the file `<database>.crash` exists, the
// first batch it is handed throws outside any handler before the batch is written (the thread ends, as
// a native crash or an abort would end it) and the file is removed, so the next thread works normally.
import { existsSync, rmSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
// The real writer, imported first: its handler queues each batch and writes it on the next turn.
import '../../src/store/sqlite-writer-worker.mjs';

const marker = `${workerData.path}.crash`;
parentPort.on('message', (m) => {
  if (m.kind !== 'write' || !existsSync(marker)) return;
  rmSync(marker);
  throw new Error('writer thread crashed (test)');
});
