// The default single process with no remote runner: the orchestrator's dispatches go through the job
// queue and the bot's own consumer runs them with the local Runner (real git, the fake agent CLI),
// so there is one code path. And the local supervisor leaves remote runners' attempts alone.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueueDispatch, type QueueDispatch } from '../../src/compose/queue-dispatch.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { localOnlyLedger } from '../../src/queue/local-consumer.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { createOrigin, originSha, tempDir } from '../support/git.ts';
import { attemptJob, fakeEntry, makeHarness, settle } from '../support/runner-harness.ts';

const stops: QueueDispatch[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s.stop();
});

const openRuns = async () => {
  const runs = openSqliteRunStore(join(tempDir('blitz-local-'), 'blitz.db'));
  await runs.createRun({
    id: 'run-1',
    forge: 'gitea',
    repo: 'acme/app',
    kind: 'blitz',
    milestoneNumber: 1,
    milestoneTitle: 'M1',
    slug: 'm1',
    options: {},
    state: 'running',
    integrationBranch: 'main',
  });
  return runs;
};

describe('dispatch through the queue with no remote runner', () => {
  it('runs a dispatched attempt with the local Runner and records its row once', async () => {
    const runs = await openRuns();
    const origin = await createOrigin();
    const h = makeHarness({ ledger: localOnlyLedger(runs.ledger, 'm1') });
    const queue = new InProcessQueue();
    const d = createQueueDispatch({
      queue,
      registry: { getReceipt: async () => undefined },
      store: runs,
      runner: h.runner,
      logger: silentLogger(),
      name: 'bot',
      machine: 'm1',
      pollMs: 100,
    });
    stops.push(d);
    d.start();
    const job = attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'push' }));
    if (job.kind !== 'attempt') throw new Error('not an attempt');
    const record = (w: Parameters<Parameters<typeof d.dispatcher.attempt>[2]>[0]) =>
      w.upsertRunIssue('run-1', 'acme/app', 7, { state: 'dispatched', attempts: 1 });
    expect(await d.dispatcher.attempt(job, 1, record)).toBe(true);
    expect(await d.dispatcher.attempt(job, 1, record)).toBe(false);

    // The embedded queue lives in memory, so the job has started by the time the dispatch returns.
    const [started, ...others] = await runs.ledger.listByRun('run-1');
    expect(others).toEqual([]);
    expect(started).toMatchObject({
      runId: 'run-1',
      issue: { repo: { owner: 'acme', name: 'app' }, number: 7 },
    });
    const done = await settle(h, started!.id);
    expect(done.outcome).toBe('solved');
    expect(await originSha(origin.url, done.branch)).not.toBeNull();
    expect(await runs.listRunIssues('run-1')).toEqual([
      expect.objectContaining({ number: 7, state: 'dispatched', attempts: 1 }),
    ]);
    expect(await runs.ledger.listByRun('run-1')).toHaveLength(1);

    // A cleanup after that attempt goes to this machine's bot queue and is run by its consumer.
    const ref = await d.dispatcher.toHost(
      { kind: 'cleanup', repo: { owner: 'acme', name: 'app' }, mergedInto: 'main', attemptIds: [done.id] },
      done.id,
    );
    expect(ref.queue).toBe('host/bot@m1');
    expect((await queue.get({ queue: ref.queue, id: ref.id! }))?.state).toBe('completed');
  }, 60_000);

  it('keeps remote runners’ and other machines’ attempts out of the local supervisor: their records are left as they are', async () => {
    const runs = await openRuns();
    const origin = await createOrigin();
    const local = makeHarness({ ledger: runs.ledger });
    const { attempt } = (await local.runner.execute(
      attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'push' })),
    )) as { attempt: { id: string } };
    const solved = await settle(local, attempt.id);
    // The same record as a remote runner's attempt (the hub names the runner behind the report),
    // still running, even with this host's paths and live pid in it.
    const { outcome: _o, endedAt: _e, ...open } = solved;
    await runs.ledger.create({ ...open, id: 'remote-1', runner: 'east', pid: solved.pid! });
    // And as the bot's own runner on another machine (a replica there) would record it: same paths.
    // (Of another issue: the store keeps one open attempt per issue of a run.)
    const next = { ...open.issue, number: open.issue.number + 1 };
    await runs.ledger.create({ ...open, issue: next, id: 'other-machine-1', host: 'm2', pid: solved.pid! });
    const reported = await runs.ledger.get('remote-1');
    const theirs = await runs.ledger.get('other-machine-1');
    // Over the whole ledger a supervisor would take them for dead local workers of its own.
    expect((await runs.ledger.listOpen()).map((r) => r.id).sort()).toEqual(['other-machine-1', 'remote-1']);
    const filtered = makeHarness({ ledger: localOnlyLedger(runs.ledger, 'm1') });
    expect(await filtered.ledger.listOpen()).toEqual([]);
    await filtered.runner.tick();
    expect(await runs.ledger.get('remote-1')).toEqual(reported);
    expect(await runs.ledger.get('other-machine-1')).toEqual(theirs);
    // On its own machine the same attempt is supervised.
    expect((await localOnlyLedger(runs.ledger, 'm2').listOpen()).map((r) => r.id)).toEqual([
      'other-machine-1',
    ]);
  }, 60_000);
});
