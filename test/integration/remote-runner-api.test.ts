// /api/runner/* through the bot's Hono app (in-process requests): tokens, register, claim, leases,
// idempotent attempt reports, and every refusal — each refusal leaves the ledger and queue as they were.
import { beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { attemptQueue } from '../../src/queue/runner-queues.ts';
import { runnerClockHeader } from '../../src/remote-runner/clock-skew.ts';
import { createRunnerHub } from '../../src/remote-runner/hub.ts';
import type { AttemptResult } from '../../src/remote-runner/schema.ts';
import { attemptJobSchema } from '../../src/runner/types.ts';
import { openSqliteRunnerRegistry } from '../../src/store/runner-tokens-sqlite.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { attemptJob, fakeEntry } from '../support/runner-harness.ts';

const repo = { owner: 'acme', name: 'app' };
const advert = { tools: ['custom'], roles: ['blitz'], repos: ['acme/app'], maxSessions: 2 };

const setup = async () => {
  const registry = openSqliteRunnerRegistry(':memory:');
  const runs = openSqliteRunStore(':memory:');
  const queue = new InProcessQueue();
  // The bot's clock: moved on by the tests that need time to pass.
  const clock = { at: Date.parse('2026-01-01T12:00:00.000Z'), now: () => new Date(clock.at) };
  const hub = createRunnerHub({ queue, registry, ledger: runs.ledger, logger: silentLogger(), clock });
  const app = createApp({
    store: openSqliteStore(':memory:'),
    metrics: createMetrics(),
    logger: silentLogger(),
    version: 't',
    receive: async () => {
      throw new Error('no webhook expected');
    },
    runnerHub: hub,
  });
  const a = (await registry.createToken('host-a')).token;
  const b = (await registry.createToken('host-b')).token;
  const call = (path: string, token: string | undefined, body: unknown, runnerClock?: string) =>
    app.request(`/api/runner/${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(runnerClock ? { [runnerClockHeader]: runnerClock } : {}),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const job = attemptJob('/nowhere/origin.git', fakeEntry());
  const jobId = (await queue.enqueue(attemptQueue('blitz', repo), job))!;
  return {
    clock,
    registry,
    ledger: runs.ledger,
    queue,
    call,
    a,
    b,
    jobRef: { queue: attemptQueue('blitz', repo), id: jobId },
  };
};

type Setup = Awaited<ReturnType<typeof setup>>;

const record = (id = 'att-1', over: Partial<AttemptResult> = {}): AttemptResult => ({
  id,
  runId: 'run-1',
  issue: { repo, number: 7 },
  retry: 0,
  launchedAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  originShaAtStart: null,
  nudges: 0,
  tokens: { input: 0, output: 0 },
  ...over,
});

let s: Setup;
beforeEach(async () => {
  s = await setup();
});

const registerAndClaim = async (token: string) => {
  expect((await s.call('register', token, advert)).status).toBe(200);
  const res = await s.call('claim', token, {});
  expect(res.status).toBe(200);
  return ((await res.json()) as { job: { queue: string; id: string } | null }).job;
};

describe('runner API', () => {
  it('refuses a missing, wrong or revoked token with 401 and records nothing', async () => {
    expect((await s.call('register', undefined, advert)).status).toBe(401);
    expect((await s.call('register', `${s.a}x`, advert)).status).toBe(401);
    await s.registry.revokeToken('host-a');
    const revoked = await s.call('register', s.a, advert);
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toMatchObject({ error: 'unauthorized' });
    expect((await s.call('claim', s.a, {})).status).toBe(401);
    expect(
      (await s.call('reports', s.a, { kind: 'started', job: s.jobRef, seq: 1, attempt: record() })).status,
    ).toBe(401);
    expect((await s.registry.listTokens()).find((t) => t.name === 'host-a')?.advert).toBeUndefined();
    expect(await s.ledger.get('att-1')).toBeUndefined();
    expect(await s.queue.get(s.jobRef)).toMatchObject({ state: 'queued' });
  });

  it('refuses a malformed advert, claim or report with 400', async () => {
    expect((await s.call('register', s.a, { ...advert, maxSessions: 0 })).status).toBe(400);
    expect((await s.call('register', s.a, { ...advert, repos: ['not-a-repo'] })).status).toBe(400);
    expect((await s.call('register', s.a, '{not json')).status).toBe(400);
    expect((await s.call('claim', s.a, { job: { queue: 1 } })).status).toBe(400);
    const { startedAt: _w, ...partial } = record();
    const bad = await s.call('reports', s.a, { kind: 'started', job: s.jobRef, seq: 1, attempt: partial });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'bad_request' });
    expect(
      (await s.call('reports', s.a, { kind: 'finished', job: s.jobRef, seq: 1, attempt: record() })).status,
    ).toBe(400);
    expect(await s.ledger.get('att-1')).toBeUndefined();
  });

  it('keeps the typed cause a runner reports, and refuses one outside the closed sets with 400', async () => {
    await registerAndClaim(s.a);
    const ended = (failureCause: unknown) => ({
      kind: 'started',
      job: s.jobRef,
      seq: 1,
      attempt: {
        ...record(),
        endedAt: '2026-01-01T00:05:00.000Z',
        outcome: 'environment_failure',
        failureSummary: 'Environment failure: model endpoint unreachable.',
        failureCause,
      },
    });
    for (const bogus of [
      { kind: 'bogus' },
      { kind: 'environment', cause: 'made_up' },
      { kind: 'environment', cause: 'provider_limit', resetAt: 'tomorrow' },
      { kind: 'environment', cause: 'provider_limit', resetAt: '2026-01-01T15:00:00+08:00' },
      { kind: 'missing_tool', tool: '/bin/sh' },
      'provider_limit',
    ]) {
      const res = await s.call('reports', s.a, ended(bogus));
      expect(res.status, JSON.stringify(bogus)).toBe(400);
      expect(await s.ledger.get('att-1')).toBeUndefined();
    }
    const limit = { kind: 'environment', cause: 'provider_limit', resetAt: '2026-01-01T15:00:00.000Z' };
    expect((await s.call('reports', s.a, ended(limit))).status).toBe(200);
    expect(await s.ledger.get('att-1')).toMatchObject({
      outcome: 'environment_failure',
      failureCause: limit,
    });
  });

  it('hears a runner on its every request, and takes the times of a runner ten minutes behind on the bot’s clock', async () => {
    // The runner's clock reads 11:50 when the bot's reads 12:00.
    const behind = (botMs: number) => new Date(botMs - 600_000).toISOString();
    expect((await s.call('register', s.a, advert, behind(s.clock.at))).status).toBe(200);
    const claimed = await s.call('claim', s.a, {}, behind(s.clock.at));
    expect(((await claimed.json()) as { job: unknown }).job).not.toBeNull();
    expect((await s.registry.listTokens()).find((t) => t.name === 'host-a')).toMatchObject({
      lastSeenAt: '2026-01-01T12:00:00.000Z',
      clockSkewMs: -600_000,
    });
    const started = record('att-1', { launchedAt: behind(s.clock.at), startedAt: behind(s.clock.at) });
    const res = await s.call(
      'reports',
      s.a,
      { kind: 'started', job: s.jobRef, seq: 1, attempt: started },
      behind(s.clock.at),
    );
    expect(res.status).toBe(200);
    expect(await s.ledger.get('att-1')).toMatchObject({
      launchedAt: '2026-01-01T12:00:00.000Z',
      startedAt: '2026-01-01T12:00:00.000Z',
      runnerClockSkewMs: -600_000,
    });
    // Five minutes on (its clock measured 10 min 0.4 s behind now: the attempt keeps its first offset,
    // so its launch time reads the same in every report).
    s.clock.at += 300_000;
    const ended = { ...started, endedAt: behind(s.clock.at), outcome: 'solved' as const, exitCode: 0 };
    const later = await s.call(
      'reports',
      s.a,
      { kind: 'progress', job: s.jobRef, seq: 2, attempt: ended },
      new Date(s.clock.at - 600_400).toISOString(),
    );
    expect(later.status).toBe(200);
    expect(await s.ledger.get('att-1')).toMatchObject({
      launchedAt: '2026-01-01T12:00:00.000Z',
      endedAt: '2026-01-01T12:05:00.000Z',
    });
    expect((await s.registry.listTokens()).find((t) => t.name === 'host-a')).toMatchObject({
      lastSeenAt: '2026-01-01T12:05:00.000Z',
    });
  });

  it('makes a runner register before it claims', async () => {
    const res = await s.call('claim', s.a, {});
    expect(res.status).toBe(409);
    expect(await s.queue.get(s.jobRef)).toMatchObject({ state: 'queued' });
  });

  it('claims from the queues of the advert the runner registered last', async () => {
    const claim = async () => ((await (await s.call('claim', s.a, {})).json()) as { job: unknown }).job;
    expect((await s.call('register', s.a, { ...advert, repos: ['acme/other'] })).status).toBe(200);
    expect(await claim()).toBeNull();
    expect((await s.call('register', s.a, advert)).status).toBe(200);
    expect(await claim()).toMatchObject(s.jobRef);
    expect(await s.queue.get(s.jobRef)).toMatchObject({ state: 'active', holder: 'host-a' });
  });

  it('gives a job to one runner and refuses it, its heartbeat and completion to the other (409)', async () => {
    const job = await registerAndClaim(s.a);
    expect(job).toMatchObject(s.jobRef);
    expect(await registerAndClaim(s.b)).toBeNull();
    expect((await s.call('claim', s.b, { job: s.jobRef })).status).toBe(409);
    expect((await s.call('heartbeat', s.b, { job: s.jobRef })).status).toBe(409);
    expect((await s.call('complete', s.b, { job: s.jobRef })).status).toBe(409);
    expect((await s.call('fail', s.b, { job: s.jobRef, error: 'x' })).status).toBe(409);
    expect((await s.call('heartbeat', s.a, { job: s.jobRef })).status).toBe(200);
    expect((await s.call('claim', s.a, { job: s.jobRef })).status).toBe(200);
    expect(await s.queue.get(s.jobRef)).toMatchObject({ state: 'active', holder: 'host-a' });
  });

  it('applies attempt reports once per sequence number, in order, and completes a job once', async () => {
    await registerAndClaim(s.a);
    const started = { kind: 'started', job: s.jobRef, seq: 1, attempt: record() };
    expect(await (await s.call('reports', s.a, started)).json()).toEqual({ applied: true });
    expect(await (await s.call('reports', s.a, started)).json()).toEqual({ applied: false });
    const done = {
      kind: 'progress',
      job: s.jobRef,
      seq: 3,
      attempt: record('att-1', { outcome: 'solved', endedAt: '2026-01-01T00:10:00.000Z', nudges: 2 }),
    };
    expect(await (await s.call('reports', s.a, done)).json()).toEqual({ applied: true });
    // An older report delivered late (a flushed buffer) does not undo the newer one.
    const older = { kind: 'progress', job: s.jobRef, seq: 2, attempt: record('att-1', { nudges: 1 }) };
    expect(await (await s.call('reports', s.a, older)).json()).toEqual({ applied: false });
    expect(await s.ledger.listByRun('run-1')).toEqual([
      expect.objectContaining({ id: 'att-1', outcome: 'solved', nudges: 2, runner: 'host-a' }),
    ]);
    const complete = { job: s.jobRef, output: { outcome: 'solved' } };
    expect(await (await s.call('complete', s.a, complete)).json()).toEqual({ applied: true });
    expect(await (await s.call('complete', s.a, complete)).json()).toEqual({ applied: false });
  });

  it('builds the attempt from the job the bot stored: no path, pid or command of the runner is kept', async () => {
    await registerAndClaim(s.a);
    await s.call('reports', s.a, { kind: 'started', job: s.jobRef, seq: 1, attempt: record() });
    const stored = await s.ledger.get('att-1');
    const job = attemptJobSchema.parse((await s.queue.get(s.jobRef))!.payload);
    expect(stored).toMatchObject({
      runner: 'host-a',
      job,
      rosterEntry: job.entry.name,
      branch: 'm1/7-add-a-health-route',
      logPath: '',
      worktree: '',
      exitPath: '',
    });
    expect(stored?.pid).toBeUndefined();
  });

  it('answers 404 for a report about an attempt it never heard of, or of another run or issue', async () => {
    await registerAndClaim(s.a);
    const unknown = { kind: 'progress', job: s.jobRef, seq: 5, attempt: record('att-9') };
    expect((await s.call('reports', s.a, unknown)).status).toBe(404);
    await s.call('reports', s.a, { kind: 'started', job: s.jobRef, seq: 1, attempt: record() });
    const otherRun = {
      kind: 'progress',
      job: s.jobRef,
      seq: 6,
      attempt: record('att-1', { runId: 'run-2' }),
    };
    expect((await s.call('reports', s.a, otherRun)).status).toBe(404);
    const noJob = {
      kind: 'started',
      job: { queue: s.jobRef.queue, id: 'nope' },
      seq: 1,
      attempt: record('att-2'),
    };
    expect((await s.call('reports', s.a, noJob)).status).toBe(404);
    expect((await s.ledger.listByRun('run-1')).map((r) => r.id)).toEqual(['att-1']);
    expect(await s.ledger.listByRun('run-2')).toEqual([]);
  });

  it('refuses an attempt started under a job another runner holds, or for another issue', async () => {
    await registerAndClaim(s.a);
    await s.call('register', s.b, advert);
    const stolen = { kind: 'started', job: s.jobRef, seq: 1, attempt: record('att-b') };
    expect((await s.call('reports', s.b, stolen)).status).toBe(409);
    const wrongIssue = {
      kind: 'started',
      job: s.jobRef,
      seq: 1,
      attempt: record('att-x', { issue: { repo, number: 99 } }),
    };
    expect((await s.call('reports', s.a, wrongIssue)).status).toBe(400);
    expect(await s.ledger.listByRun('run-1')).toEqual([]);
  });
});
