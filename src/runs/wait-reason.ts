// Keeps why an issue waits (plan/wait-reason.ts words it) on the issue's row, through run-writer.
import type { Action } from '../plan/snapshot.ts';
import type { IssueKey } from '../plan/types.ts';
import { actionIssue, waitReason } from '../plan/wait-reason.ts';
import type { RunIssueRecord, RunStore } from '../store/run-store.ts';
import { writeIssue } from './run-writer.ts';

/**
 * Keeps the reason on the issue's row: set when an action on it failed, cleared when one went through.
 * Writes only on a change, and only to a row the run already has (a failure never adds an issue).
 */
export const keepWaitReason = async (
  store: Pick<RunStore, 'upsertRunIssue'>,
  at: { runId: string; rows: Map<IssueKey, RunIssueRecord> },
  a: Action,
  err?: unknown,
): Promise<void> => {
  const key = actionIssue(a);
  const row = key === undefined ? undefined : at.rows.get(key);
  if (key === undefined || !row) return;
  const reason = err === undefined ? undefined : waitReason(a, err);
  if (row.waitReason === reason) return;
  at.rows.set(key, await writeIssue(store, at.runId, row.repo, row.number, { waitReason: reason ?? null }));
};
