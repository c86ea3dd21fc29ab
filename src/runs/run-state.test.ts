// A run's stop merges its finished attempts into the model notes, each attempt once: a run blocked
// while a worker still ran, then resumed and done, counts that worker when it ends and no other twice.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import { silentLogger } from '../observability/logger.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import type { Log, Records, Settings, Workers } from './ports.ts';
import { setRunState, stopRun } from './run-state.ts';

const attempt = (id: string, entry: string, outcome?: AttemptRecord['outcome']): AttemptRecord =>
  ({
    id,
    runId: 'r1',
    rosterEntry: entry,
    tier: 'execution',
    tokens: { input: 0, output: 0 },
    nudges: 0,
    startedAt: '2026-12-02T10:00:00.000Z',
    ...(outcome ? { outcome, endedAt: '2026-12-02T10:10:00.000Z' } : {}),
  }) as AttemptRecord;

describe('stopRun and the model notes', () => {
  it('merges each finished attempt once across a blocked stop and the final one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-state-'));
    try {
      const store = openSqliteRunStore(':memory:');
      await store.createRun({ ...newRun('r1'), state: 'running' });
      // In ledger order: a's worker still runs when the run is blocked; b's has ended.
      let attempts = [attempt('a', 'entry-a'), attempt('b', 'entry-b', 'solved')];
      const path = join(dir, 'models.md');
      const deps = {
        store,
        ledger: { listByRun: async () => attempts },
        logger: silentLogger(),
        config: { modelNotesPath: path },
      } as unknown as Records & Workers & Log & Settings;

      await stopRun(deps, 'r1', 'blocked', 'the build is red', undefined, {
        kind: 'gate_red',
        gate: 'build',
      });
      // Resumed: the table has no blocked → done.
      await setRunState(deps, 'r1', { type: 'set_state', from: ['blocked'], to: 'running' });
      attempts = [
        attempt('a', 'entry-a', 'unsolved'),
        attempt('b', 'entry-b', 'solved'),
        attempt('c', 'entry-c', 'solved'),
      ];
      await stopRun(deps, 'r1', 'done', 'all closed', undefined, { kind: 'finished' });

      const notes = readFileSync(path, 'utf8');
      expect(notes).toContain('- `entry-a` · execution: solved 0/1');
      expect(notes).toContain('- `entry-b` · execution: solved 1/1');
      expect(notes).toContain('- `entry-c` · execution: solved 1/1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the command a stop names to continue, and drops it at the next stop that names none', async () => {
    // Before: the stop's command was not written, so the run's pages fell back to `/blitz resume`.
    const store = openSqliteRunStore(':memory:');
    await store.createRun({ ...newRun('r1'), state: 'running' });
    const deps = {
      store,
      ledger: { listByRun: async () => [] },
      logger: silentLogger(),
      config: {},
    } as unknown as Records & Workers & Log & Settings;
    await stopRun(deps, 'r1', 'blocked', 'nothing can run: #3 is held', '/blitz retry #3', {
      kind: 'nothing_can_run',
      stuck: [{ issue: 'acme/app#3', category: 'held', hold: 'gave_up' }],
    });
    expect((await store.getRun('r1'))?.progress).toMatchObject({ continueWith: '/blitz retry #3' });
    await store.updateRun('r1', { state: 'running' });
    await stopRun(deps, 'r1', 'blocked', 'the build is red', undefined, { kind: 'gate_red', gate: 'build' });
    expect((await store.getRun('r1'))?.progress.continueWith).toBeUndefined();
  });
});
