// The last gap of issue 39's lost runners: a job on a *shared* attempt queue that only the lost runner
// served (no live runner advertises that role and repository, and the bot runs no workers itself) has
// nobody to run it. The sweep drops it with that reason instead of leaving it queued forever, at the
// sweep that marks the runner and at every later one; a queue a live runner (or the bot's own runner)
// serves keeps its jobs for them. Real SQLite registry, the in-process queue, the real sweep.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { attemptQueue } from '../../src/queue/runner-queues.ts';
import { sweepLostRunners, unservedReason } from '../../src/remote-runner/lost-runners.ts';
import { InMemoryAttemptLedger } from '../../src/runner/ledger.ts';
import type { RunnerRegistry } from '../../src/store/runner-tokens.ts';
import { openSqliteRunnerRegistry } from '../../src/store/runner-tokens-sqlite.ts';

const LOST_AFTER = 120;
const start = new Date('2026-12-07T10:00:00Z');
const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
const app = attemptQueue('blitz', { owner: 'acme', name: 'app' });
const lib = attemptQueue('blitz', { owner: 'acme', name: 'lib' });

let registry: RunnerRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

/** Runner `a` serves acme/app and acme/lib, `b` acme/app only; `a` was last heard at 0 s, `b` at `bSeen`. */
const setup = async (localRunnerServesAttempts: boolean) => {
  registry = openSqliteRunnerRegistry(':memory:');
  const queue = new InProcessQueue({ now: () => at(0).getTime() });
  const advert = (repos: string[]) => ({
    tools: ['claude'],
    roles: ['blitz' as const],
    repos,
    maxSessions: 2,
  });
  const a = (await registry.createToken('a')).info;
  const b = (await registry.createToken('b')).info;
  await registry.advertise(a.id, advert(['acme/app', 'acme/lib']), at(0).toISOString());
  await registry.advertise(b.id, advert(['acme/app']), at(0).toISOString());
  const deps = {
    registry,
    queue,
    ledger: new InMemoryAttemptLedger(),
    logger: silentLogger(),
    lostAfterSeconds: LOST_AFTER,
    since: at(0),
    localRunnerServesAttempts,
  };
  return { registry, queue, deps, a, b };
};

describe('a lost runner that alone served a shared queue', () => {
  it('drops the jobs only it could run, with the reason, and leaves the others for the live runner', async () => {
    const { registry, queue, deps, b } = await setup(false);
    const held = await queue.enqueue(lib, { kind: 'attempt', n: 1 });
    expect((await queue.claim([lib], 'a'))?.id).toBe(held);
    const waiting = await queue.enqueue(lib, { kind: 'attempt', n: 2 });
    const forB = await queue.enqueue(app, { kind: 'attempt', n: 3 });
    await registry.seen(b.id, at(LOST_AFTER + 50).toISOString());

    const [lost, ...others] = await sweepLostRunners(deps, at(LOST_AFTER + 60));
    expect(others).toEqual([]);
    expect(lost?.runner).toBe('a');
    expect(lost?.dropped.map((j) => j.id).sort()).toEqual([held, waiting].sort());
    expect(lost?.released.map((j) => j.id)).toEqual([]);
    const reason = unservedReason('a', at(0).toISOString(), lib);
    for (const id of [held!, waiting!]) {
      const job = await queue.get({ queue: lib, id });
      expect(job?.state).toBe('failed');
      expect(job?.output).toMatchObject({ error: reason });
    }
    expect(reason).toContain(`no live runner serves ${lib}`);
    // acme/app is b's too: its job stays queued, and b gets it.
    expect((await queue.claim([app], 'b'))?.id).toBe(forB);

    // Work sent later to the queue nobody serves is dropped at the next sweep, not left queued.
    const later = await queue.enqueue(lib, { kind: 'attempt', n: 4 });
    expect(await sweepLostRunners(deps, at(LOST_AFTER + 70))).toEqual([]);
    expect((await queue.get({ queue: lib, id: later! }))?.state).toBe('failed');
  });

  it('keeps them queued when the bot runs workers itself, and releases the held one to be claimed again', async () => {
    const { queue, deps } = await setup(true);
    const held = await queue.enqueue(lib, { kind: 'attempt', n: 1 });
    expect((await queue.claim([lib], 'a'))?.id).toBe(held);
    const [lost] = await sweepLostRunners(deps, at(LOST_AFTER + 60));
    expect(lost?.dropped).toEqual([]);
    expect(lost?.released.map((j) => j.id)).toEqual([held]);
    expect((await queue.claim([lib], 'bot-local'))?.id).toBe(held);
  });
});
