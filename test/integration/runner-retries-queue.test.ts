// Retries go back to the queue (issue 14): an unsolved attempt, the bot's own or a remote runner's,
// is retried as a new attempt job built from the job the bot stored (one retry further, its failure
// fed back), which any runner may claim; nothing is started from what a runner reported, and a
// replayed report or a second call enqueues nothing more.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.ts';
import { createDispatcher } from '../../src/queue/dispatcher.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { attemptQueue, botHostName } from '../../src/queue/runner-queues.ts';
import { createRunnerHub } from '../../src/remote-runner/hub.ts';
import { createRetryRequeue } from '../../src/remote-runner/requeue-retry.ts';
import type { AttemptResult } from '../../src/remote-runner/schema.ts';
import { attemptJobSchema, type RunnerJob } from '../../src/runner/types.ts';
import { openSqliteRunnerRegistry } from '../../src/store/runner-tokens-sqlite.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { createOrigin } from '../support/git.ts';
import { attemptJob, fakeEntry, makeHarness, settle } from '../support/runner-harness.ts';

const repo = { owner: 'acme', name: 'app' };
const q = attemptQueue('blitz', repo);

const bot = async () => {
  const runs = openSqliteRunStore(':memory:');
  await runs.createRun({
    id: 'run-1',
    forge: 'github',
    repo: 'acme/app',
    kind: 'blitz',
    milestoneNumber: 1,
    milestoneTitle: 'M1',
    slug: 'm1',
    options: {},
    state: 'running',
    integrationBranch: 'blitz/m1',
  });
  const queue = new InProcessQueue();
  const dispatcher = createDispatcher({ queue, store: runs, localHost: botHostName('here') });
  const requeue = createRetryRequeue({ dispatcher, ledger: runs.ledger, retries: 1, logger: silentLogger() });
  return { runs, queue, dispatcher, requeue };
};

describe('retries go back to the queue', () => {
  it('the bot’s own unsolved attempt becomes a queued job another runner can claim, not a local restart', async () => {
    const b = await bot();
    const origin = await createOrigin();
    const h = makeHarness({ ledger: b.runs.ledger, runner: { retries: 1 }, requeue: b.requeue });
    const job = attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'fail' }));
    const r = await h.runner.execute(job);
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const first = await settle(h, r.attempt.id);
    expect(first.outcome).toBe('unsolved');
    // Nothing was started here: the only attempt is the first, and no retry event was emitted.
    expect((await b.runs.ledger.listByRun('run-1')).map((a) => a.id)).toEqual([r.attempt.id]);
    expect(h.events.some((e) => e.type === 'attempt.retried')).toBe(false);
    // Another runner claims the retry: the stored job, one retry further, with the failure fed back.
    const claimed = await b.queue.claim([q], 'host-b');
    expect(claimed).not.toBeNull();
    const payload = attemptJobSchema.parse(claimed!.payload);
    const { retry: _r, failureFeedback: _f, ...rest } = payload;
    const { retry: _r0, ...stored } = attemptJobSchema.parse(job);
    expect(rest).toEqual(stored);
    expect(payload.retry).toBe(1);
    expect(payload.failureFeedback).toContain('tests failed: expected 200, got 500');
    expect((await b.runs.listRunIssues('run-1'))[0]).toMatchObject({ state: 'dispatched', attempts: 2 });
    // A second call for the same attempt (a replay, another replica) enqueues nothing more.
    expect(await b.requeue((await b.runs.ledger.get(first.id))!)).toBe(false);
    expect(await b.queue.claim([q], 'host-c')).toBeNull();
  }, 60_000);

  it('a remote runner’s unsolved report enqueues the retry from the stored job, whatever the report says', async () => {
    const b = await bot();
    const registry = openSqliteRunnerRegistry(':memory:');
    const hub = createRunnerHub({
      queue: b.queue,
      registry,
      ledger: b.runs.ledger,
      logger: silentLogger(),
      onUnsolved: b.requeue,
    });
    const stored = attemptJob('https://forge.example/acme/app.git', fakeEntry()) as Extract<
      RunnerJob,
      { kind: 'attempt' }
    >;
    expect(await b.dispatcher.attempt(stored, 1, async () => undefined)).toBe(true);
    const advert = { tools: ['custom'], roles: ['blitz' as const], repos: ['acme/app'], maxSessions: 1 };
    const tokens = [
      (await registry.createToken('host-a')).token,
      (await registry.createToken('host-b')).token,
    ];
    await hub.register(await hub.authenticate(`Bearer ${tokens[0]}`), advert);
    await hub.register(await hub.authenticate(`Bearer ${tokens[1]}`), advert);
    // As the HTTP routes do for every request: the runner read after it registered.
    const a = await hub.authenticate(`Bearer ${tokens[0]}`);
    const other = await hub.authenticate(`Bearer ${tokens[1]}`);
    const held = (await hub.claim(a))!;
    const ref = { queue: held.queue, id: held.id };
    const result: AttemptResult = {
      id: 'att-r1',
      runId: 'run-1',
      issue: { repo, number: 7 },
      // A runner claiming a later retry than the job it holds changes nothing the bot runs.
      retry: 7,
      launchedAt: '2026-01-01T00:00:00.000Z',
      startedAt: '2026-01-01T00:00:00.000Z',
      originShaAtStart: null,
      nudges: 0,
      tokens: { input: 0, output: 0 },
    };
    await hub.report(a, { kind: 'started', job: ref, seq: 1, attempt: result });
    expect((await b.runs.ledger.get('att-r1'))?.job.retry).toBe(0);
    const ended = {
      kind: 'progress' as const,
      job: ref,
      seq: 2,
      attempt: { ...result, outcome: 'unsolved' as const, failureSummary: 'Exited with code 3' },
    };
    expect(await hub.report(a, ended)).toEqual({ applied: true });
    // The retry is a new job; the other runner takes it, built from the bot's stored job.
    const retry = (await hub.claim(other))!;
    expect(retry).not.toBeNull();
    expect(retry.id).not.toBe(held.id);
    const payload = attemptJobSchema.parse(retry.payload);
    expect(payload).toEqual({
      ...attemptJobSchema.parse(stored),
      retry: 1,
      failureFeedback: 'Exited with code 3',
    });
    // The same report again, or another unsolved report, enqueues nothing more.
    expect(await hub.report(a, ended)).toEqual({ applied: false });
    await hub.report(a, { ...ended, seq: 3 });
    expect(await b.queue.claim([q], 'host-c')).toBeNull();
  }, 60_000);
});
