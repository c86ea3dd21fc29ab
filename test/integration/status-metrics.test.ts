// /metrics with the run and attempt gauges fed from a real SQLite store on scrape, and the forge
// counters the forge clients call.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { runFigures } from '../../src/status/run-figures.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { finishedRunId, seedFinishedRun } from '../fixtures/runs/finished-run.ts';
import { removeDir, tempDir } from '../support/git.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const setup = async () => {
  const dir = tempDir('blitz-metrics-');
  const file = join(dir, 'blitz.db');
  const store = openSqliteStore(file);
  const runs = openSqliteRunStore(file);
  cleanups.push(
    () => removeDir(dir),
    () => store.close(),
    () => runs.close(),
  );
  await seedFinishedRun(runs);
  const metrics = createMetrics();
  const app = createApp({
    store,
    metrics,
    logger: createLogger({ level: 'silent' }),
    version: 't',
    receive: async () => {
      throw new Error('no webhook expected');
    },
  });
  return { app, metrics, runs };
};

const line = (text: string, name: string): number | undefined => {
  const found = text.split('\n').find((l) => l.startsWith(`${name} `));
  return found === undefined ? undefined : Number(found.slice(name.length + 1));
};

describe('/metrics run figures', () => {
  it('stays empty until a source is set, then shows runs, attempts, worker seconds and tokens from the store', async () => {
    const { app, metrics, runs } = await setup();
    const before = await (await app.request('/metrics')).text();
    expect(before).toContain('# TYPE blitz_runs gauge');
    expect(before).not.toMatch(/^blitz_runs\{/m);
    metrics.setRunFigures(() => runFigures({ runs, ledger: runs.ledger }));
    const text = await (await app.request('/metrics')).text();
    expect(line(text, 'blitz_runs{state="done"}')).toBe(1);
    expect(line(text, 'blitz_runs{state="running"}')).toBe(1);
    expect(line(text, 'blitz_attempts{outcome="unsolved",tool="aider"}')).toBe(4);
    expect(line(text, 'blitz_attempts{outcome="solved",tool="claude"}')).toBe(1);
    expect(line(text, 'blitz_attempts{outcome="stalled",tool="codex"}')).toBe(1);
    // Every fixture attempt took 4 minutes: 5 aider, 3 claude, 1 codex.
    expect(line(text, 'blitz_worker_seconds{tool="aider"}')).toBe(5 * 240);
    expect(line(text, 'blitz_worker_seconds{tool="codex"}')).toBe(240);
    expect(line(text, 'blitz_tokens{tool="claude",kind="input"}')).toBe(6300 + 5000);
    expect(line(text, 'blitz_tokens{tool="codex",kind="output"}')).toBe(700);
  });

  it('follows the store: a run changing state moves between the gauges on the next scrape', async () => {
    const { app, metrics, runs } = await setup();
    let reads = 0;
    metrics.setRunFigures(() => {
      reads++;
      return runFigures({ runs, ledger: runs.ledger });
    });
    await app.request('/metrics');
    expect(reads).toBe(1);
    await runs.updateRun(finishedRunId, { state: 'cancelled' });
    metrics.setRunFigures(() => runFigures({ runs, ledger: runs.ledger }));
    const text = await (await app.request('/metrics')).text();
    expect(line(text, 'blitz_runs{state="cancelled"}')).toBe(1);
    expect(line(text, 'blitz_runs{state="done"}')).toBeUndefined();
  });

  it('shows a broken source as empty gauges instead of failing the scrape', async () => {
    const { app, metrics } = await setup();
    metrics.setRunFigures(async () => {
      throw new Error('database locked');
    });
    const res = await app.request('/metrics');
    expect(res.status).toBe(200);
    expect(await res.text()).not.toMatch(/^blitz_runs\{/m);
  });

  it('counts forge requests and keeps the last rate-limit remaining per forge', async () => {
    const { app, metrics } = await setup();
    metrics.forgeRequests.inc({ forge: 'github', outcome: 'ok' });
    metrics.forgeRequests.inc({ forge: 'github', outcome: 'ok' });
    metrics.forgeRequests.inc({ forge: 'gitea', outcome: '5xx' });
    metrics.forgeRateLimitRemaining.set({ forge: 'github' }, 4999);
    metrics.forgeRateLimitRemaining.set({ forge: 'github' }, 4998);
    const text = await (await app.request('/metrics')).text();
    expect(line(text, 'blitz_forge_requests_total{forge="github",outcome="ok"}')).toBe(2);
    expect(line(text, 'blitz_forge_requests_total{forge="gitea",outcome="5xx"}')).toBe(1);
    expect(line(text, 'blitz_forge_rate_limit_remaining{forge="github"}')).toBe(4998);
  });
});
