// The gates run by the real judge over a real git origin: the smoke check runs at the commit the
// build was green on, even when the integration branch moved since (the ship step finds that move).
import { afterEach, describe, expect, it } from 'vitest';
import { commitAndPush, createOrigin, gitIn, removeDir, tempDir, testEnv } from '../../test/support/git.ts';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import { silentLogger } from '../observability/logger.ts';
import type { RunnerJob } from '../runner/types.ts';
import type { OrchestratorDeps, RunCtx } from '../runs/context.ts';
import { foldResults, writeProgress } from '../runs/run-writer.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { createEffects } from './run-effects.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

describe('the gates as judged', () => {
  it('runs the smoke check at the commit the build was green on, not at a head pushed since', async () => {
    const origin = await createOrigin();
    dirs.push(origin.root);
    const built = await commitAndPush(origin.work, { 'a.txt': 'a\n' }, 'merge #1', 'blitz/m1');
    const pushedSince = await commitAndPush(origin.work, { 'b.txt': 'b\n' }, 'by hand', 'blitz/m1');
    const workspace = tempDir('blitz-gates-');
    dirs.push(workspace);

    const store = openSqliteRunStore(':memory:');
    await store.createRun({ ...newRun('r1'), state: 'gating' });
    await writeProgress(store, 'r1', () => ({
      build: { status: 'passed', covers: [], failures: 0, sha: built },
      smoke: 'none',
    }));
    const ran: { name: string; head: string }[] = [];
    const deps = {
      store,
      logger: silentLogger(),
      config: { runner: { workspace } },
      cloneUrl: async () => origin.url,
      runner: {
        gitContext: async () => ({ env: testEnv() }),
        execute: async (job: RunnerJob) => {
          if (job.kind !== 'gate') throw new Error(`unexpected job ${job.kind}`);
          ran.push({ name: job.name, head: await gitIn(job.cwd ?? '.', 'rev-parse', 'HEAD') });
          return { kind: 'gate', name: job.name, result: { exitCode: 0, timedOut: false, tail: '' } };
        },
      },
    } as unknown as OrchestratorDeps;
    let background: (() => Promise<void>) | undefined;
    const effects = createEffects(deps, {
      background: (fn) => {
        background = fn;
      },
      reconcileSoon: () => {},
      flushDashboard: async () => {},
    });
    const ctx = {
      run: (await store.getRun('r1'))!,
      repoConfig: { smoke: ['node', '-e', '0'] },
      forge: {},
      repo: { owner: 'acme', name: 'app' },
      rows: new Map(),
    } as unknown as RunCtx;
    await effects.startGate(ctx, 'smoke', []);
    await background!();
    await foldResults(store, 'r1');

    expect(ran).toEqual([{ name: 'smoke', head: built }]);
    expect(pushedSince).not.toBe(built);
    expect((await store.getRun('r1'))!.progress).toMatchObject({
      smoke: 'passed',
      smokeGate: { sha: built },
    });
    await store.close();
  });
});
