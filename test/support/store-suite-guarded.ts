// Store suite, guarded writes: an issue row or run write names the state or version it was computed
// from, the store applies it only while that is what is stored, and the run writer re-reads or refuses,
// so the state tables (plan/states.ts) hold against the stored rows. Both engines run it.
import { describe, expect, it } from 'vitest';
import { isRunTransitionError, writeOutcome, writeRun } from '../../src/runs/run-writer.ts';
import { isStaleIssueWrite, isStaleRunWrite, type RunStore } from '../../src/store/run-store.ts';
import type { FreshDatabase } from './store-suite.ts';
import { newRun } from './store-suite-fixtures.ts';

const at = { repo: 'acme/app', number: 3 };

export const describeGuardedWriteCases = (engine: string, fresh: () => Promise<FreshDatabase>): void => {
  describe(`guarded run and issue writes (${engine})`, () => {
    it('an issue write from a state the row has left is refused, names the stored state, writes nothing', async () => {
      const s = await (await fresh()).runs();
      await s.createRun(newRun('r1'));
      await s.upsertRunIssue('r1', 'acme/app', 3, { state: 'pr_open', prNumber: 12 });
      const reviewed = await s.upsertRunIssue(
        'r1',
        'acme/app',
        3,
        { state: 'reviewed', reviewPosted: true },
        { state: 'pr_open' },
      );
      expect(reviewed).toMatchObject({ state: 'reviewed', reviewPosted: true });
      // Tried: a second write computed from the row as it was before the first.
      const err = await s
        .upsertRunIssue('r1', 'acme/app', 3, { state: 'pr_open', lastError: 'x' }, { state: 'pr_open' })
        .catch((e: unknown) => e);
      expect(isStaleIssueWrite(err)).toBe(true);
      expect(err).toMatchObject({ code: 'conflict', expected: 'pr_open', found: 'reviewed' });
      const [row] = await s.listRunIssues('r1');
      expect(row).toMatchObject({ state: 'reviewed', reviewPosted: true, prNumber: 12 });
      expect(row!.lastError).toBeUndefined();
    });

    it('a missing row counts as ready: created when ready is named, refused and not created otherwise', async () => {
      const s = await (await fresh()).runs();
      await s.createRun(newRun('r1'));
      const err = await s
        .upsertRunIssue('r1', 'acme/app', 4, { state: 'merged' }, { state: 'pr_open' })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'conflict', expected: 'pr_open', found: 'ready' });
      expect(await s.listRunIssues('r1')).toEqual([]);
      const made = await s.upsertRunIssue('r1', 'acme/app', 4, { state: 'dispatched' }, { state: 'ready' });
      expect(made).toMatchObject({ number: 4, state: 'dispatched' });
      expect((await s.listRunIssues('r1')).map((r) => [r.number, r.state])).toEqual([[4, 'dispatched']]);
    });

    it('an outcome read before a merge is folded from the stored merged row: no way back', async () => {
      const s = await (await fresh()).runs();
      await s.createRun(newRun('r1'));
      const read = await writeOutcome(s, 'r1', at, undefined, {
        kind: 'prOpened',
        number: 12,
        branch: 'b',
        lane: 'integration',
      });
      // Another step merges the PR between this step's read and its write.
      await writeOutcome(s, 'r1', at, read, { kind: 'merged', sha: 'abc' });
      const after = await writeOutcome(s, 'r1', at, read, { kind: 'reviewNotPosted' });
      expect(after).toMatchObject({ state: 'merged', mergedSha: 'abc', reviewPosted: false });
      expect((await s.listRunIssues('r1')).map((r) => r.state)).toEqual(['merged']);
    });

    it('a row that moves again after the re-read is refused, and the last write stands', async () => {
      const s = await (await fresh()).runs();
      await s.createRun(newRun('r1'));
      await s.upsertRunIssue('r1', 'acme/app', 3, { state: 'pr_open' });
      // Another writer gets in before each of this writer's writes.
      const moves = ['reviewed', 'merged'] as const;
      let turn = 0;
      const racing: Pick<RunStore, 'upsertRunIssue'> = {
        async upsertRunIssue(...args) {
          const move = moves[turn++];
          if (move !== undefined) await s.upsertRunIssue('r1', 'acme/app', 3, { state: move });
          return s.upsertRunIssue(...args);
        },
      };
      const err = await writeOutcome(racing, 'r1', at, { state: 'pr_open' }, { kind: 'closed' }).catch(
        (e: unknown) => e,
      );
      expect(turn).toBe(2);
      expect(err).toMatchObject({ code: 'conflict', expected: 'reviewed', found: 'merged' });
      expect((await s.listRunIssues('r1')).map((r) => r.state)).toEqual(['merged']);
    });

    it('a run write with another write between its read and its update is refused', async () => {
      const s = await (await fresh()).runs();
      await s.createRun(newRun('r1'));
      const racing: Pick<RunStore, 'getRun' | 'updateRun'> = {
        async getRun(id) {
          const run = await s.getRun(id);
          await s.updateRun(id, { progress: { wave: 7 } });
          return run;
        },
        updateRun: (id, patch, expect) => s.updateRun(id, patch, expect),
      };
      const err = await writeRun(racing, 'r1', () => ({ state: 'running' })).catch((e: unknown) => e);
      expect(isStaleRunWrite(err)).toBe(true);
      expect(await s.getRun('r1')).toMatchObject({ state: 'planning', progress: { wave: 7 } });
    });

    it('a run move the table forbids from the stored state is refused: blocked is never paused', async () => {
      const s = await (await fresh()).runs();
      await s.createRun(newRun('r1'));
      await writeRun(s, 'r1', () => ({ state: 'running' }));
      await writeRun(s, 'r1', () => ({ state: 'blocked' }));
      const err = await writeRun(s, 'r1', () => ({ state: 'paused' })).catch((e: unknown) => e);
      expect(isRunTransitionError(err)).toBe(true);
      expect(err).toMatchObject({ from: 'blocked', to: 'paused' });
      expect((await s.getRun('r1'))!.state).toBe('blocked');
    });
  });
};
