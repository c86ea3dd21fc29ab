// The one way any run kind closes an issue or an epic: read it first, and only an open one gets its
// comment and is closed, so an issue the forge, a person or an earlier pass closed is left alone.
import { missingPermissionOf } from '../forges/app-permission.ts';
import { type Forge, formatRepo, type IssueRef } from '../forges/types.ts';
import { failureCause } from '../plan/wait-reason.ts';
import { type IssueWrites, setProgress, writeOutcome } from '../runs/run-writer.ts';
import type { RunIssueRecord, RunRecord, RunStore } from '../store/run-store.ts';

type Store = Pick<RunStore, 'getRun' | 'updateRun'>;

export type ClosingForge = Pick<Forge, 'getIssue' | 'closeIssue'>;

/** Closes the issue with a comment saying why, if it is still open; true when this call closed it. */
export const closeWithComment = async (
  forge: ClosingForge,
  ref: IssueRef,
  text: string,
  /** The caller read it open this very pass (a milestone snapshot): no second read. */
  opts: { knownOpen?: boolean } = {},
): Promise<boolean> => {
  if (!opts.knownOpen && (await forge.getIssue(ref)).state !== 'open') return false;
  // The comment and the close together: one request on GitHub (forges/github/issues.ts).
  await forge.closeIssue(ref, { comment: text });
  return true;
};

export const epicClosedText = 'All the children of this epic are closed, so it is closed too.';

/** An epic whose children are all closed (the planner or closing on merge decided it) closes too. */
export const closeEpic = (
  forge: ClosingForge,
  ref: IssueRef,
  opts: { knownOpen?: boolean } = {},
): Promise<boolean> => closeWithComment(forge, ref, epicClosedText, opts);

/**
 * A run's issue (or epic) closes with its comment, if still open, and its row (`row`, as the run read
 * it) records the close.
 */
export const closeRunIssue = async (
  store: IssueWrites,
  runId: string,
  forge: ClosingForge,
  ref: IssueRef,
  text: string,
  opts: { knownOpen?: boolean; row?: Pick<RunIssueRecord, 'state'> | undefined } = {},
): Promise<void> => {
  await closeWithComment(forge, ref, text, opts);
  const at = { repo: formatRepo(ref.repo), number: ref.number };
  await writeOutcome(store, runId, at, opts.row, { kind: 'closed' });
};

/**
 * A close that failed, not for a permission (that blocks the run: missing-permission.ts), is counted on
 * the run with its cause in words (plan/close-failures.ts decides when a person is told); the error goes
 * on to the pass, which keeps why the issue waits and tries it again on the next pass. Blitz and fleet
 * alike.
 */
export const keepCloseFailure = async (
  deps: { store: Store },
  ctx: { run: RunRecord },
  key: string,
  err: unknown,
): Promise<never> => {
  if (!missingPermissionOf(err))
    await setProgress(deps, ctx, (p) => {
      const kept = p.closeFailures?.[key];
      return {
        closeFailures: {
          ...p.closeFailures,
          [key]: { count: (kept?.count ?? 0) + 1, cause: failureCause(err) },
        },
      };
    });
  throw err;
};
