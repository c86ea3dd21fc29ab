// A runner's report may carry the tail of a failed worker's log (issue 14): the bot keeps it with
// control characters stripped, cut to its last LOG_EXCERPT_CHARS and redacted, and shows it on the
// attempt's status page; the report schema stays strict (an oversized excerpt is refused with the
// report, an unknown key too), and a refused report changes nothing.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { createRedactor } from '../../src/observability/redact.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { attemptQueue } from '../../src/queue/runner-queues.ts';
import { createRunnerHub } from '../../src/remote-runner/hub.ts';
import { type AttemptResult, LOG_EXCERPT_CHARS } from '../../src/remote-runner/schema.ts';
import { redactingLedger } from '../../src/runner/redacting-ledger.ts';
import { apiAttemptOf } from '../../src/status/api-data.ts';
import { attemptPage } from '../../src/status/attempt-page.ts';
import { openSqliteRunnerRegistry } from '../../src/store/runner-tokens-sqlite.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { attemptJob, fakeEntry } from '../support/runner-harness.ts';

const repo = { owner: 'acme', name: 'app' };
const secret = 'gitea-token-0123456789abcdef';
const pat = `ghp_${'Zx9'.repeat(10)}`;

const setup = async () => {
  const registry = openSqliteRunnerRegistry(':memory:');
  const runs = openSqliteRunStore(':memory:');
  const queue = new InProcessQueue();
  const ledger = redactingLedger(runs.ledger, createRedactor([secret]));
  const hub = createRunnerHub({ queue, registry, ledger, logger: silentLogger() });
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
  const token = (await registry.createToken('host-a')).token;
  const call = (path: string, body: unknown) =>
    app.request(`/api/runner/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  const q = attemptQueue('blitz', repo);
  const id = (await queue.enqueue(q, attemptJob('/nowhere/origin.git', fakeEntry())))!;
  expect(
    (await call('register', { tools: ['custom'], roles: ['blitz'], repos: ['acme/app'], maxSessions: 1 }))
      .status,
  ).toBe(200);
  expect((await call('claim', {})).status).toBe(200);
  return { runs, call, job: { queue: q, id } };
};

const result = (over: Partial<AttemptResult> & Record<string, unknown> = {}) => ({
  id: 'att-1',
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

describe('log excerpts in runner reports', () => {
  it('keeps a hostile excerpt stripped, cut and redacted, and shows it on the attempt page', async () => {
    const s = await setup();
    expect((await s.call('reports', { kind: 'started', job: s.job, seq: 1, attempt: result() })).status).toBe(
      200,
    );
    const tail = `token ${secret} and ${pat}\n\u001b[31mred\u001b[0m \u202Eevil\u0000 Authorization: Basic Zm9vOmJhcg==\nthe end`;
    const hostile = `${'x'.repeat(50_000)}\n${tail}`;
    const ended = result({
      outcome: 'unsolved',
      endedAt: '2026-01-01T00:10:00.000Z',
      failureSummary: 'Exited with code 3',
      logExcerpt: hostile,
    });
    expect((await s.call('reports', { kind: 'progress', job: s.job, seq: 2, attempt: ended })).status).toBe(
      200,
    );
    const stored = (await s.runs.ledger.get('att-1'))!;
    const kept = stored.logExcerpt!;
    expect(kept.length).toBeLessThanOrEqual(LOG_EXCERPT_CHARS);
    expect(kept).toContain('the end');
    expect(kept).toContain('red');
    expect(kept).toContain('evil');
    for (const bad of [secret, pat, 'Zm9vOmJhcg==', '\u001b', '\u202E', '\u0000'])
      expect(kept, `kept ${JSON.stringify(bad)}`).not.toContain(bad);
    expect(kept).toContain('[redacted]');
    const html = String(await attemptPage({ runId: 'run-1', attempt: apiAttemptOf(stored, 1) }));
    expect(html).toContain('id="log-excerpt"');
    expect(html).toContain('the end');
    expect(html).not.toContain(secret);
  });

  it('refuses an oversized excerpt or an unknown key with the report, and stores nothing of it', async () => {
    const s = await setup();
    const huge = result({ logExcerpt: 'y'.repeat(70_000) });
    const res = await s.call('reports', { kind: 'started', job: s.job, seq: 1, attempt: huge });
    expect(res.status).toBe(400);
    const extra = result({ logPath: '/etc/shadow' });
    expect((await s.call('reports', { kind: 'started', job: s.job, seq: 1, attempt: extra })).status).toBe(
      400,
    );
    expect(await s.runs.ledger.get('att-1')).toBeUndefined();
  });
});
