// A job delivered twice must not start two workers on one issue. The bot is killed while setting an
// attempt up: its claimed job stays active until the lease runs out, while the restarted bot ends that
// attempt (lost before start) and dispatches the issue anew. When the old job is delivered again, the
// issue already has its open attempt: the job is dropped with a log line, and one worker runs.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { startLocalConsumer } from '../../src/queue/local-consumer.ts';
import { openRunStore } from '../../src/store/open-store.ts';
import { memoryLogger } from '../support/blitz-harness.ts';
import { createOrigin, tempDir } from '../support/git.ts';
import { attemptJob, fakeEntry, makeHarness } from '../support/runner-harness.ts';

describe('an attempt job delivered again after its issue was dispatched anew', () => {
  it('is dropped with a log line: one worker runs the issue', async () => {
    const origin = await createOrigin();
    const dir = tempDir('blitz-redeliver-');
    const store = await openRunStore(`sqlite:${join(dir, 'blitz.db')}`);
    let t = Date.parse('2026-01-01T00:00:00Z');
    const queue = new InProcessQueue({ now: () => t });
    const { logger, lines } = memoryLogger();
    const h = makeHarness({ workspace: join(dir, 'ws'), ledger: store.ledger });
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
      const open = await store.ledger.listOpen();
      expect(open).toHaveLength(1);
      expect((await queue.get({ queue: 'attempts', id: second! }))?.state).toBe('completed');

      // The killed holder's lease runs out (and the retry's backoff): dispatch 1 is delivered again.
      t += 121_000;
      await queue.expireLeases();
      t += 5_000;
      expect(await consumer.drain()).toBe(1);

      // Still one open attempt, the one already running; the stale job is done, not retried.
      expect((await store.ledger.listOpen()).map((a) => a.id)).toEqual([open[0]!.id]);
      expect(await store.ledger.listByRun('run-1')).toHaveLength(1);
      const stale = await queue.get({ queue: 'attempts', id: first! });
      expect(stale).toMatchObject({ state: 'completed', retryCount: 1, holder: 'bot-restarted' });
      expect(stale?.output).toMatchObject({ attemptIds: [] });
      const dropped = lines.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('stale attempt job'));
      expect(dropped).toMatchObject({ job: { id: first }, openAttempt: open[0]!.id });
    } finally {
      await consumer.stop();
      for (const a of await store.ledger.listOpen())
        await h.runner.execute({ kind: 'cancel', attemptId: a.id }).catch(() => undefined);
      await store.close();
    }
  });
});
