// Intent handlers change a run under the same run lock a reconcile pass holds (across replicas too),
// never beside it: `/blitz pause`, `/blitz resume` and `/blitz cancel` write the run's state only while
// holding the store's run lock, through run-writer's version-checked write.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunPatch } from '../../src/store/run-store.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('intent handlers and the run lock', () => {
  it('pause, resume and cancel write the run state while holding the run lock', async () => {
    h = await startBlitzHarness({
      forge: 'github',
      issues: [
        { number: 1, title: 'First step', body: 'Add `src/a.ts`.' },
        { number: 2, title: 'Second step', body: 'Add `src/b.ts`.', blockedBy: [1] },
      ],
      agentEnv: { FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '1500' },
    });
    const x = h;
    await x.comment('/blitz M1');
    await x.round();
    // Watch the store the orchestrator holds: which state writes happen inside a run lock.
    const runs = x.bot.runs;
    const held = new Set<string>();
    const stateWrites: { state: string; locked: boolean }[] = [];
    const lock = runs.withRunLock.bind(runs);
    const update = runs.updateRun.bind(runs);
    runs.withRunLock = (runId, fn) =>
      lock(runId, async () => {
        held.add(runId);
        try {
          return await fn();
        } finally {
          held.delete(runId);
        }
      });
    runs.updateRun = (runId: string, patch: RunPatch, opts?: { version: number }) => {
      if (patch.state !== undefined) stateWrites.push({ state: patch.state, locked: held.has(runId) });
      return update(runId, patch, opts);
    };
    await x.comment('/blitz pause');
    await x.round();
    expect((await x.liveRun())!.state).toBe('paused');
    await x.comment('/blitz resume');
    await x.round();
    await x.comment('/blitz cancel');
    await x.round();
    expect((await x.liveRun())!.state).toBe('cancelled');
    for (const s of ['paused', 'cancelled']) expect(stateWrites.some((w) => w.state === s)).toBe(true);
    expect(stateWrites.filter((w) => !w.locked)).toEqual([]);
    await x.drive(async () => (await x.bot.runs.ledger.listOpen()).length === 0);
  }, 90_000);
});
