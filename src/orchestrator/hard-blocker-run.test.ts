// `unblock`: the blocker issue is closed the one way (close-issue.ts), so one a person already closed
// gets no second comment, and the hard blocker leaves the run either way.
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import type { Forge, IssueRef } from '../forges/types.ts';
import { silentLogger } from '../observability/logger.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { unblockRun } from './hard-blocker-run.ts';
import { writeProgress } from './run-writer.ts';

const setup = async (blockerState: 'open' | 'closed') => {
  const store = openSqliteRunStore(':memory:');
  await store.createRun({ ...newRun('r1'), state: 'running', triggerIssue: 7 });
  await writeProgress(store, 'r1', () => ({
    reason: 'the forge refused the bot',
    hardBlocker: { reason: 'the forge refused the bot', since: '2026-12-03T00:00:00Z', issue: 9 },
  }));
  const closes: { ref: IssueRef; comment: string | undefined }[] = [];
  const forge = {
    kind: 'github',
    getIssue: async (ref: IssueRef) => ({ ref, state: blockerState }),
    closeIssue: async (ref: IssueRef, o: { comment?: string } = {}) => {
      closes.push({ ref, comment: o.comment });
    },
  } as unknown as Forge;
  const deps = { store, forges: async () => forge, logger: silentLogger() };
  return { store, deps, closes };
};

describe('unblockRun', () => {
  it('closes an open blocker issue with its comment and lifts the blocker', async () => {
    const { store, deps, closes } = await setup('open');
    await unblockRun(deps, 'r1');
    expect(closes).toEqual([
      {
        ref: { repo: { owner: 'acme', name: 'app' }, number: 9 },
        comment: expect.stringContaining('resumed'),
      },
    ]);
    const run = (await store.getRun('r1'))!;
    expect(run.progress.hardBlocker).toBeUndefined();
    expect(run.progress.reason).toBeUndefined();
  });

  it('leaves a blocker issue a person closed already alone, and still lifts the blocker', async () => {
    const { store, deps, closes } = await setup('closed');
    await unblockRun(deps, 'r1');
    expect(closes).toEqual([]);
    expect((await store.getRun('r1'))!.progress.hardBlocker).toBeUndefined();
  });
});
