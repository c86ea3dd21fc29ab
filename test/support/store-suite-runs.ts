// Store suite, runs part: runs, run issues, intent claiming and the run lock, with replicas racing.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/store/run-store.ts';
import type { FreshDatabase } from './store-suite.ts';
import { intentFor, newRun } from './store-suite-fixtures.ts';

export const describeRunCases = (engine: string, fresh: () => Promise<FreshDatabase>): void => {
  describe(`RunStore (${engine})`, () => {
    it('refuses a second live run on the same milestone and returns the live one', async () => {
      const s = await (await fresh()).runs();
      expect((await s.createRun(newRun('r1'))).created).toBe(true);
      const again = await s.createRun(newRun('r2'));
      expect(again).toMatchObject({ created: false, live: { id: 'r1' } });
      expect(await s.getRun('r2')).toBeUndefined();
      await s.updateRun('r1', { state: 'done' });
      expect((await s.createRun(newRun('r3'))).created).toBe(true);
      expect((await s.listLiveRuns()).map((r) => r.id)).toEqual(['r3']);
      expect(await s.listLiveRunHeads()).toEqual([
        { id: 'r3', forge: 'github', repo: 'acme/app', kind: 'blitz', options: { maxSessions: 2 } },
      ]);
      expect((await s.listRuns({ repo: 'acme/app' })).map((r) => r.id).sort()).toEqual(['r1', 'r3']);
      expect(await s.liveRun('github', 'acme/app', 1)).toMatchObject({ id: 'r3' });
    });

    it('creates a run with the progress it starts with, in the same insert', async () => {
      const s = await (await fresh()).runs();
      const progress = {
        planBlitz: { targets: ['acme/app#3'] },
        approvals: { 'acme/app#3': { by: 'ann', hash: 'h' } },
      };
      const created = await s.createRun({ ...newRun('r1'), progress });
      expect(created).toMatchObject({ created: true, run: { progress } });
      const read = (await s.getRun('r1'))!;
      expect(read.progress).toEqual(progress);
      // Nothing written after the insert: the first write names the version it was created with.
      await s.updateRun('r1', { progress: { ...read.progress, wave: 1 } }, { version: read.version });
    });

    it("reads back every progress field as written, the gates' commits included", async () => {
      const s = await (await fresh()).runs();
      await s.createRun(newRun('r1'));
      const progress: RunProgress = {
        build: {
          status: 'passed',
          gate: 'g1',
          covers: ['acme/app#1'],
          failures: 0,
          sha: 'abc123',
          notConfigured: false,
        },
        smoke: 'passed',
        smokeGate: { sha: 'abc123', failures: 1, tail: 't', notConfigured: false },
        ship: { status: 'failed', path: 'deploy', url: 'https://x', reasons: ['r', 'why'] },
        integrationHead: 'def456',
        budget: { status: 'ok', recommendedMaxSessions: 2, preferMedium: false, park: false, resetAt: 'z' },
        notifyFailures: [{ target: 'slack', error: 'HTTP 500' }],
        pausedFrom: 'gating',
        wave: 2,
      };
      await s.updateRun('r1', { progress });
      expect((await s.getRun('r1'))!.progress).toEqual(progress);
    });

    it('keeps progress JSON and run issues, patching only the given fields', async () => {
      const s = await (await fresh()).runs();
      await s.createRun(newRun('r1'));
      await s.updateRun('r1', {
        progress: { build: { status: 'passed', covers: ['acme/app#1'], failures: 0 } },
      });
      expect((await s.getRun('r1'))!.progress.build?.status).toBe('passed');
      await s.upsertRunIssue('r1', 'acme/app', 3, { state: 'pr_open', prNumber: 12 });
      await s.upsertRunIssue('r1', 'acme/app', 3, { reviewPosted: true });
      const [issue] = await s.listRunIssues('r1');
      expect(issue).toMatchObject({ number: 3, state: 'pr_open', prNumber: 12, reviewPosted: true });
      await s.upsertRunIssue('r1', 'acme/app', 3, { prNumber: null });
      expect((await s.listRunIssues('r1'))[0]!.prNumber).toBeUndefined();
      await expect(s.upsertRunIssue('r1', 'acme/app', 3, { bogus: 1 } as never)).rejects.toMatchObject({
        code: 'bad_request',
      });
    });

    it('keeps a dashboard comment id beyond 2^31 (GitHub comment ids are that large)', async () => {
      const s = await (await fresh()).runs();
      await s.createRun({ ...newRun('r1'), installationId: 3_000_000_001 });
      await s.updateRun('r1', { dashboardCommentId: 2_876_543_210 });
      expect(await s.getRun('r1')).toMatchObject({
        dashboardCommentId: 2_876_543_210,
        installationId: 3_000_000_001,
      });
    });

    it('a write naming an old version is refused and changes nothing; background results are rows', async () => {
      const s = await (await fresh()).runs();
      const created = (await s.getRun((await s.createRun(newRun('r1'))).created ? 'r1' : 'none'))!;
      const v1 = await s.updateRun('r1', { progress: { wave: 1 } }, { version: created.version });
      expect(v1.version).toBe(created.version + 1);
      // Tried: a second write computed from the first read.
      await expect(
        s.updateRun('r1', { progress: { wave: 7 } }, { version: created.version }),
      ).rejects.toMatchObject({ code: 'conflict', expected: created.version, found: v1.version });
      expect(await s.getRun('r1')).toMatchObject({ progress: { wave: 1 }, version: v1.version });
      // The dashboard comment id is a field of its own: it does not move the version.
      expect((await s.updateRun('r1', { dashboardCommentId: 5 })).version).toBe(v1.version);
      await s.recordRunResult('r1', 'build', { name: 'build', status: 'passed' });
      await s.recordRunResult('r1', 'smoke', { name: 'smoke', status: 'failed' });
      const results = await s.listRunResults('r1');
      expect(results.map((r) => [r.name, r.value])).toEqual([
        ['build', { name: 'build', status: 'passed' }],
        ['smoke', { name: 'smoke', status: 'failed' }],
      ]);
      await s.dropRunResults('r1', results[0]!.id);
      expect((await s.listRunResults('r1')).map((r) => r.name)).toEqual(['smoke']);
    });

    it('updating an unknown run is not_found and creates nothing', async () => {
      const s = await (await fresh()).runs();
      await expect(s.updateRun('nope', { state: 'done' })).rejects.toMatchObject({ code: 'not_found' });
      expect(await s.listRuns()).toEqual([]);
    });

    it('claims a queued intent once, even across two connections', async () => {
      const db = await fresh();
      const intake = await db.store();
      const { intent } = await intake.addIntent(intentFor('d1'));
      const [a, b] = [await db.runs(), await db.runs()];
      expect((await a.listQueuedIntents()).map((i) => i.id)).toEqual([intent.id]);
      expect(await a.claimIntent(intent.id, 'started')).toBe(true);
      expect(await b.claimIntent(intent.id, 'started')).toBe(false);
      expect(await b.listQueuedIntents()).toEqual([]);
    });

    it('two replicas claiming the same intents at once: each intent is claimed exactly once', async () => {
      const db = await fresh();
      const intake = await db.store();
      const ids: number[] = [];
      for (let i = 0; i < 15; i++) ids.push((await intake.addIntent(intentFor(`d${i}`))).intent.id);
      const [a, b] = [await db.runs(), await db.runs()];
      const results = await Promise.all(
        ids.flatMap((id) => [a.claimIntent(id, 'by-a'), b.claimIntent(id, 'by-b')]),
      );
      for (let i = 0; i < ids.length; i++) {
        expect([results[2 * i], results[2 * i + 1]].filter(Boolean), `intent ${ids[i]}`).toHaveLength(1);
      }
      expect(await a.listQueuedIntents()).toEqual([]);
    });

    it('two replicas starting the same milestone at once: one run is created, the other finds it', async () => {
      const db = await fresh();
      const [a, b] = [await db.runs(), await db.runs()];
      const [ra, rb] = await Promise.all([a.createRun(newRun('ra')), b.createRun(newRun('rb'))]);
      expect([ra.created, rb.created].sort()).toEqual([false, true]);
      const winner = ra.created ? ra.run : rb.created ? rb.run : undefined;
      const loser = ra.created ? rb : ra;
      expect(loser).toMatchObject({ created: false, live: { id: winner?.id } });
      expect(await a.listLiveRuns()).toHaveLength(1);
    });

    it('withRunLock: a second holder on another replica waits until the first is done', async () => {
      const db = await fresh();
      const [a, b] = [await db.runs(), await db.runs()];
      const events: string[] = [];
      let open = (): void => {};
      const gate = new Promise<void>((r) => {
        open = r;
      });
      let entered = (): void => {};
      const inA = new Promise<void>((r) => {
        entered = r;
      });
      const first = a.withRunLock('run-1', async () => {
        events.push('a:in');
        entered();
        await gate;
        events.push('a:out');
        return 'a';
      });
      await inA;
      const second = b.withRunLock('run-1', async () => {
        events.push('b:in');
        return 'b';
      });
      // Another run is not held up by run-1's holder.
      expect(await b.withRunLock('run-2', async () => 'other')).toBe('other');
      // Kept: b's wait is in its engine (an in-process key lock, a PostgreSQL advisory lock), which tells
      // no one it is waiting; the final order below fails too if b got in while a held the lock.
      await sleep(150);
      expect(events).toEqual(['a:in']);
      open();
      expect(await Promise.all([first, second])).toEqual(['a', 'b']);
      expect(events).toEqual(['a:in', 'a:out', 'b:in']);
    });

    it('withRunLock: the lock is released when the holder throws, and the error reaches the caller', async () => {
      const db = await fresh();
      const [a, b] = [await db.runs(), await db.runs()];
      await expect(
        a.withRunLock('run-1', async () => {
          throw new Error('reconcile failed');
        }),
      ).rejects.toThrow('reconcile failed');
      expect(await b.withRunLock('run-1', async () => 'next')).toBe('next');
      expect(await a.withRunLock('run-1', async () => 'again')).toBe('again');
    });
  });
};
