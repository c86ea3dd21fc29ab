import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import type { Action } from '../plan/snapshot.ts';
import { waitReason } from '../plan/wait-reason.ts';
import type { RunIssuePatch, RunIssueRecord } from '../store/run-store.ts';
import { keepWaitReason } from './wait-reason.ts';

const merge: Action = { type: 'merge', issue: 'acme/app#3', pr: 12 };
const notFound = new AppError('not_found', 'Not Found');

const row = (over: Partial<RunIssueRecord> = {}): RunIssueRecord => ({
  runId: 'r1',
  repo: 'acme/app',
  number: 3,
  state: 'pr_open',
  reviewPosted: false,
  attempts: 1,
  updatedAt: '2026-12-07T00:00:00Z',
  ...over,
});

const fakeStore = () => {
  const writes: RunIssuePatch[] = [];
  return {
    writes,
    upsertRunIssue: async (_runId: string, _repo: string, _n: number, patch: RunIssuePatch) => {
      writes.push(patch);
      const { waitReason: w, ...rest } = patch;
      return row({
        ...(rest as Partial<RunIssueRecord>),
        ...(typeof w === 'string' ? { waitReason: w } : {}),
      });
    },
  };
};

describe('why an issue waits', () => {
  it('keeps it on the row when an action fails, once, and clears it when one goes through', async () => {
    const store = fakeStore();
    const rows = new Map([['acme/app#3', row()]]);
    await keepWaitReason(store, { runId: 'r1', rows }, merge, notFound);
    await keepWaitReason(store, { runId: 'r1', rows }, merge, notFound);
    expect(store.writes).toEqual([{ waitReason: waitReason(merge, notFound) }]);
    expect(rows.get('acme/app#3')?.waitReason).toContain('404');
    await keepWaitReason(store, { runId: 'r1', rows }, merge);
    await keepWaitReason(store, { runId: 'r1', rows }, merge);
    expect(store.writes).toEqual([{ waitReason: waitReason(merge, notFound) }, { waitReason: null }]);
  });

  it('writes nothing for an action without an issue or an issue the run has no row for', async () => {
    const store = fakeStore();
    await keepWaitReason(store, { runId: 'r1', rows: new Map() }, merge, notFound);
    await keepWaitReason(
      store,
      { runId: 'r1', rows: new Map([['acme/app#3', row()]]) },
      { type: 'run_smoke' },
      notFound,
    );
    expect(store.writes).toEqual([]);
  });
});
