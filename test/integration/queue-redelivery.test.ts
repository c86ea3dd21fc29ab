// A job delivered twice must not start two workers on one issue. The bot is killed while setting an
// attempt up: its claimed job stays active until the lease runs out (on PostgreSQL the pg-boss job
// outlives the bot; in process, a setup that outlasts its lease does the same), while the restarted
// bot ends that attempt (lost before start) and dispatches the issue anew. When the old job is
// delivered again, the issue already has its open attempt: the job is dropped with a log line, and
// one worker runs. Leases are run out by moving time, never by waiting.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { startLocalConsumer } from '../../src/queue/local-consumer.ts';
import { queueSchemaFor } from '../../src/queue/open-queue.ts';
import { PgBossQueue } from '../../src/queue/pg-boss-queue.ts';
import type { JobQueue, JobRef } from '../../src/queue/types.ts';
import type { AttemptLedger } from '../../src/runner/types.ts';
import { openRunStore } from '../../src/store/open-store.ts';
import { memoryLogger } from '../support/blitz-harness.ts';
import { createOrigin, tempDir } from '../support/git.ts';
import { expireLeaseNow } from '../support/job-leases.ts';
import { pgForFile } from '../support/pg.ts';
import { attemptJob, fakeEntry, makeHarness } from '../support/runner-harness.ts';

const pg = await pgForFile();

/** The scenario on one engine; `expire` runs out the lease of an active job and its retry's backoff. */
const redelivered = async (
  dir: string,
  ledger: AttemptLedger,
  queue: JobQueue,
  expire: (ref: JobRef) => Promise<void>,
): Promise<void> => {
  const origin = await createOrigin();
  const { logger, lines } = memoryLogger();
  const h = makeHarness({ workspace: join(dir, 'ws'), ledger });
  const consumer = startLocalConsumer({
    queue,
    runner: h.runner,
    holder: 'bot-restarted',
    hostQueue: 'host/bot@test',
    queues: new Set(['attempts']),
    logger,
    pollMs: 3_600_000,
  });
  try {
    const job = attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'stall' }));
    const opts = { leaseSeconds: 120, retryDelaySeconds: 5 };
    // Dispatch 1, claimed by the bot that is then killed during the setup: never completed.
    const first = await queue.enqueue('attempts', job, { ...opts, singletonKey: 'run-1:acme/app#7:1' });
    expect((await queue.claim(['attempts'], 'bot-killed'))?.id).toBe(first);
    // The restarted bot dispatches the issue again (attempt 2) and its consumer starts that worker.
    const second = await queue.enqueue('attempts', job, { ...opts, singletonKey: 'run-1:acme/app#7:2' });
    expect(await consumer.drain()).toBe(1);
    const open = await ledger.listOpen();
    expect(open).toHaveLength(1);
    expect((await queue.get({ queue: 'attempts', id: second! }))?.state).toBe('completed');

    // The killed holder's lease runs out: dispatch 1 is delivered again, to the restarted bot.
    await expire({ queue: 'attempts', id: first! });
    expect(await consumer.drain()).toBe(1);

    // Still one open attempt, the one already running; the stale job is done, not retried.
    expect((await ledger.listOpen()).map((a) => a.id)).toEqual([open[0]!.id]);
    expect(await ledger.listByRun('run-1')).toHaveLength(1);
    const stale = await queue.get({ queue: 'attempts', id: first! });
    expect(stale).toMatchObject({ state: 'completed', retryCount: 1, holder: 'bot-restarted' });
    expect(stale?.output).toMatchObject({ attemptIds: [] });
    const dropped = lines.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('stale attempt job'));
    expect(dropped).toMatchObject({ job: { id: first }, openAttempt: open[0]!.id });
  } finally {
    await consumer.stop();
    for (const a of await ledger.listOpen())
      await h.runner.execute({ kind: 'cancel', attemptId: a.id }).catch(() => undefined);
  }
};

describe('an attempt job delivered again after its issue was dispatched anew', () => {
  it('in process, on SQLite: is dropped with a log line, and one worker runs the issue', async () => {
    const dir = tempDir('blitz-redeliver-');
    const store = await openRunStore(`sqlite:${join(dir, 'blitz.db')}`);
    let t = Date.parse('2026-01-01T00:00:00Z');
    const queue = new InProcessQueue({ now: () => t });
    try {
      await redelivered(dir, store.ledger, queue, async () => {
        t += 121_000;
        await queue.expireLeases();
        t += 5_000;
      });
    } finally {
      await store.close();
    }
  });

  it.skipIf(!pg.available)(
    'on pg-boss: is dropped with a log line, and one worker runs the issue',
    async () => {
      const schemas = pg.schemas();
      const schema = await schemas.create();
      const store = await openRunStore(schemas.urlFor(schema));
      const queue = await PgBossQueue.open({
        connectionString: schemas.urlFor(schema),
        schema: queueSchemaFor(schema),
        logger: silentLogger(),
      });
      try {
        await redelivered(tempDir('blitz-redeliver-pg-'), store.ledger, queue, (ref) =>
          expireLeaseNow(schemas.admin, queueSchemaFor(schema), queue, ref),
        );
      } finally {
        await queue.close();
        await store.close();
        await schemas.admin.query(`DROP SCHEMA IF EXISTS ${queueSchemaFor(schema)} CASCADE`);
      }
    },
  );
});
