// One writer of run state: a background build's result that lands while a pass is working is kept,
// a write computed from a stale read is refused by name, and the posted-keys list stays bounded.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../observability/logger.ts';
import { createEffects, type GateFinding } from '../orchestrator/run-effects.ts';
import type { IssueOutcome } from '../plan/issue-outcomes.ts';
import { isStaleRunWrite, type RunIssuePatch, type RunRecord } from '../store/run-store.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import type { OrchestratorDeps, RunCtx } from './context.ts';
import {
  foldResults,
  markPosted,
  maxPosted,
  postedKey,
  recordGateResult,
  setProgress,
  writeIssue,
  writeOutcome,
  writeRun,
} from './run-writer.ts';

const newRun = {
  id: 'r1',
  forge: 'github' as const,
  repo: 'acme/app',
  kind: 'blitz' as const,
  milestoneNumber: 1,
  milestoneTitle: 'M1',
  slug: 'm1',
  options: { maxSessions: 2 },
  state: 'running' as const,
  integrationBranch: 'blitz/m1',
};

const setup = async () => {
  const store = openSqliteRunStore(':memory:');
  await store.createRun(newRun);
  return store;
};

/** A promise the test settles by hand: the gate finishes exactly when the test says. */
const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('one writer of run state', () => {
  it('a build result that arrives during a pass is never lost', async () => {
    const store = await setup();
    const gate = deferred<GateFinding>();
    const gateStarted = deferred<void>();
    let background: (() => Promise<void>) | undefined;
    const passesAsked: string[] = [];
    const deps = { store, logger: silentLogger() } as unknown as OrchestratorDeps;
    const effects = createEffects(deps, {
      background: (fn) => {
        background = fn;
      },
      reconcileSoon: (runId) => passesAsked.push(runId),
      flushDashboard: async () => {},
      judgeGate: async () => {
        gateStarted.resolve();
        return gate.promise;
      },
    });
    const startCtx = {
      run: (await store.getRun('r1'))!,
      repoConfig: { build: ['make', 'check'] },
    } as unknown as RunCtx;
    await effects.startGate(startCtx, 'build', ['acme/app#1']);
    expect((await store.getRun('r1'))!.progress.build).toMatchObject({
      status: 'running',
      covers: ['acme/app#1'],
    });

    // A pass begins: it reads the run (build running) and works from that read.
    const pass = { run: (await store.getRun('r1'))! } as Pick<RunCtx, 'run'>;
    const staleProgress = pass.run.progress;
    // Meanwhile the build finishes green. It records a row and asks for a pass: the run itself is untouched.
    const running = background!();
    await gateStarted.promise;
    gate.resolve({ status: 'passed' });
    await running;
    expect(passesAsked).toEqual(['r1']);
    expect((await store.getRun('r1'))!.version).toBe(pass.run.version);
    expect(await store.listRunResults('r1')).toHaveLength(1);
    // The pass goes on writing from its read: a merge count, a posted report, and its graph.
    await setProgress(deps, pass, (p) => ({ mergedSinceReview: (p.mergedSinceReview ?? 0) + 1 }));
    await markPosted(store, 'r1', 'cycle:acme/app#1,acme/app#2');
    await writeRun(store, 'r1', (now) => ({
      progress: { ...now.progress, graph: [{ number: 1, title: 't', state: 'merged', blockedBy: [] }] },
    }));
    expect(staleProgress.build?.status).toBe('running');

    // The pass that was asked for folds the result in first: the build is green, nothing the pass wrote is lost.
    await foldResults(store, 'r1');
    const after = (await store.getRun('r1'))!;
    expect(after.progress.build).toMatchObject({ status: 'passed', covers: ['acme/app#1'], failures: 0 });
    expect(after.progress.mergedSinceReview).toBe(1);
    expect(after.progress.graph).toHaveLength(1);
    expect(after.progress.posted).toEqual([postedKey('cycle:acme/app#1,acme/app#2')]);
    expect(await store.listRunResults('r1')).toEqual([]);
    await store.close();
  });

  it('a result recorded while a pass folds the others is kept for the next pass', async () => {
    const store = await setup();
    await writeRun(store, 'r1', (r) => ({
      progress: {
        ...r.progress,
        build: { status: 'running', gate: 'g1', covers: [], failures: 0 },
        smoke: 'running',
      },
    }));
    await recordGateResult(store, 'r1', { name: 'build', gate: 'g1', status: 'passed', failures: 0 });
    // The smoke check ends just after this pass listed the results, before it drops them.
    const folding = {
      ...store,
      listRunResults: async (runId: string) => {
        const listed = await store.listRunResults(runId);
        await recordGateResult(store, runId, { name: 'smoke', status: 'passed', sha: 'abc' });
        return listed;
      },
    };
    await foldResults(folding, 'r1');
    let run = (await store.getRun('r1'))!;
    expect(run.progress.build?.status).toBe('passed');
    expect(run.progress.smoke).toBe('running');
    // The next pass folds it.
    await foldResults(store, 'r1');
    run = (await store.getRun('r1'))!;
    expect(run.progress.smoke).toBe('passed');
    expect(await store.listRunResults('r1')).toEqual([]);
    await store.close();
  });

  it('a red build result counts the failure and names the responsible merge', async () => {
    const store = await setup();
    let background: (() => Promise<void>) | undefined;
    const deps = { store, logger: silentLogger() } as unknown as OrchestratorDeps;
    const effects = createEffects(deps, {
      background: (fn) => {
        background = fn;
      },
      reconcileSoon: () => {},
      flushDashboard: async () => {},
      judgeGate: async () => ({ status: 'failed', tail: 'error TS2322', responsible: 'acme/app#2' }),
    });
    const ctx = { run: (await store.getRun('r1'))!, repoConfig: { build: ['make'] } } as unknown as RunCtx;
    await effects.startGate(ctx, 'build', ['acme/app#1', 'acme/app#2']);
    await background!();
    await foldResults(store, 'r1');
    expect((await store.getRun('r1'))!.progress.build).toMatchObject({
      status: 'failed',
      failures: 1,
      tail: 'error TS2322',
      responsible: 'acme/app#2',
    });
    await store.close();
  });

  it('a result for an older build start is dropped, and folding twice changes nothing', async () => {
    const store = await setup();
    await writeRun(store, 'r1', (r) => ({
      progress: {
        ...r.progress,
        build: { status: 'running', gate: 'new', covers: ['acme/app#3'], failures: 0 },
      },
    }));
    await recordGateResult(store, 'r1', { name: 'build', gate: 'old', status: 'passed', failures: 0 });
    await foldResults(store, 'r1');
    expect((await store.getRun('r1'))!.progress.build?.status).toBe('running');
    await recordGateResult(store, 'r1', { name: 'build', gate: 'new', status: 'passed', failures: 0 });
    await foldResults(store, 'r1');
    const once = (await store.getRun('r1'))!;
    expect(once.progress.build).toMatchObject({ status: 'passed', gate: 'new' });
    // The same row again (a crash between the fold and the drop): the gate is no longer running.
    await recordGateResult(store, 'r1', { name: 'build', gate: 'new', status: 'failed', failures: 1 });
    await foldResults(store, 'r1');
    expect((await store.getRun('r1'))!.progress.build?.status).toBe('passed');
    await store.close();
  });

  it('a write computed from a stale read fails with StaleRunWriteError and changes nothing', async () => {
    const store = await setup();
    const read: RunRecord = (await store.getRun('r1'))!;
    await writeRun(store, 'r1', (r) => ({ progress: { ...r.progress, smoke: 'passed' } }));
    // Tried: writing back the whole progress as it was read before the smoke result.
    const err = await store
      .updateRun('r1', { progress: { ...read.progress, wave: 9 } }, { version: read.version })
      .catch((e: unknown) => e);
    expect(isStaleRunWrite(err)).toBe(true);
    expect(err).toMatchObject({ code: 'conflict', expected: read.version, found: read.version + 1 });
    const now = (await store.getRun('r1'))!;
    expect(now.progress).toEqual({ smoke: 'passed' });
    expect(now.version).toBe(read.version + 1);
    await store.close();
  });

  it('posted keys are kept hashed and bounded; a repeat posts nothing, an old unhashed key still counts', async () => {
    const store = await setup();
    await writeRun(store, 'r1', (r) => ({ progress: { ...r.progress, posted: ['plan'] } }));
    expect((await markPosted(store, 'r1', 'plan')).first).toBe(false);
    for (let i = 0; i < maxPosted + 50; i++)
      expect((await markPosted(store, 'r1', `notify:blocked:${'x'.repeat(500)}:${i}`)).first).toBe(true);
    const posted = (await store.getRun('r1'))!.progress.posted!;
    expect(posted).toHaveLength(maxPosted);
    expect(posted.every((k) => k.length === 16)).toBe(true);
    expect((await markPosted(store, 'r1', `notify:blocked:${'x'.repeat(500)}:${maxPosted + 49}`)).first).toBe(
      false,
    );
    await store.close();
  });
});

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );

describe('the one place', () => {
  it('no source file outside the store writes a run except run-writer.ts', () => {
    const writers = sourceFiles('src')
      .filter((f) => !f.startsWith(join('src', 'store')))
      .filter((f) => /\.updateRun\(/.test(readFileSync(f, 'utf8')));
    expect(writers).toEqual([join('src', 'runs', 'run-writer.ts')]);
  });

  it('no source file outside the store writes an issue row except run-writer.ts', () => {
    const writers = sourceFiles('src')
      .filter((f) => !f.startsWith(join('src', 'store')))
      .filter((f) => /\.upsertRunIssue\(/.test(readFileSync(f, 'utf8')));
    expect(writers).toEqual([join('src', 'runs', 'run-writer.ts')]);
  });
});

describe('issue rows through the writer', () => {
  it('a state outside the one list is refused by the writer and by the store, and nothing is written', async () => {
    const store = await setup();
    const bad = { state: 'in_review' } as unknown as RunIssuePatch;
    const err = await writeIssue(store, 'r1', 'acme/app', 1, bad).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'bad_request' });
    const direct = await store.upsertRunIssue('r1', 'acme/app', 1, bad).catch((e: unknown) => e);
    expect(direct).toMatchObject({ code: 'bad_request' });
    expect(await store.listRunIssues('r1')).toEqual([]);
    const at = { repo: 'acme/app', number: 1 };
    const row = await writeOutcome(store, 'r1', at, undefined, { kind: 'phaseEntered', phase: 'coding' });
    expect(row.state).toBe('coding');
    expect((await writeOutcome(store, 'r1', at, row, { kind: 'merged', sha: 'abc' })).state).toBe('merged');
    await store.close();
  });
});

describe('an outcome never moves a merged or closed row back', () => {
  // Each move back an executor step could write before the fold decided: the row keeps its state, and
  // the outcome's fields are still recorded.
  const back: [from: 'merged' | 'closed', outcome: IssueOutcome, kept: Record<string, unknown>][] = [
    ['merged', { kind: 'dispatched', attempt: 3 }, { attempts: 3 }],
    ['merged', { kind: 'prOpened', number: 9, branch: 'blitz/m1/1', lane: 'integration' }, { prNumber: 9 }],
    ['merged', { kind: 'prOpened', number: 9, branch: 'blitz/m1/1', lane: 'xs' }, { prNumber: 9 }],
    ['merged', { kind: 'reviewPosted' }, { reviewPosted: true }],
    ['merged', { kind: 'reviewNotPosted' }, { reviewPosted: false }],
    ['closed', { kind: 'merged', sha: 'def' }, { mergedSha: 'def' }],
    ['closed', { kind: 'dispatched', attempt: 3 }, { attempts: 3 }],
    ['closed', { kind: 'prOpened', number: 9, branch: 'blitz/m1/1', lane: 'integration' }, { prNumber: 9 }],
    ['closed', { kind: 'reviewPosted' }, { reviewPosted: true }],
  ];
  for (const [from, outcome, kept] of back)
    it(`${from} stays ${from} on ${outcome.kind}${'lane' in outcome ? ` (${outcome.lane})` : ''}`, async () => {
      const store = await setup();
      const at = { repo: 'acme/app', number: 1 };
      const merged = await writeOutcome(store, 'r1', at, undefined, { kind: 'merged', sha: 'abc' });
      const row =
        from === 'merged' ? merged : await writeOutcome(store, 'r1', at, merged, { kind: 'closed' });
      expect(row.state).toBe(from);
      const after = await writeOutcome(store, 'r1', at, row, outcome);
      expect(after).toMatchObject({ state: from, ...kept });
      expect((await store.listRunIssues('r1')).map((r) => r.state)).toEqual([from]);
      await store.close();
    });
});
