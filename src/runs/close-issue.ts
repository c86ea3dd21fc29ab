// The one way any run kind closes an issue or an epic: read it first, and only an open one gets its
// comment and is closed, so an issue the forge, a person or an earlier pass closed is left alone.
import { missingPermissionOf } from '../forges/app-permission.ts';
import { type Forge, formatRepo, type IssueRef } from '../forges/types.ts';
import type { Action } from '../plan/snapshot.ts';
import type { IssueKey } from '../plan/types.ts';
import { failureCause } from '../plan/wait-reason.ts';
import type { RunIssueRecord, RunRecord, RunStore } from '../store/run-store.ts';
import type { CloseBatch } from './context.ts';
import { type IssueWrites, setProgress, writeOutcome } from './run-writer.ts';

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

/** The pass's runs of two or more `close_issue` actions back to back (nothing else between them). */
export const closeBatchOf = (actions: readonly Action[]): CloseBatch => {
  const runs = new Map<IssueKey, readonly IssueKey[]>();
  let run: IssueKey[] = [];
  const end = () => {
    if (run.length > 1) for (const k of run) runs.set(k, run);
    run = [];
  };
  for (const a of actions) {
    if (a.type === 'close_issue') run.push(a.issue);
    else end();
  }
  end();
  return { runs, sent: new Map() };
};

/**
 * The answer to `key`'s close as part of its run: the first close of a run sends every close of it not
 * sent yet that `closeOf` gives (an issue the pass read open), and each takes its own answer. Undefined:
 * the close goes on its own (no run, no batch on this forge, or not one `closeOf` gives).
 */
export const batchedClose = (
  batch: CloseBatch | undefined,
  forge: Pick<Forge, 'closeIssues'>,
  key: IssueKey,
  closeOf: (key: IssueKey) => { ref: IssueRef; comment: string } | undefined,
): Promise<void> | undefined => {
  const run = batch?.runs.get(key);
  if (!batch || !run || !forge.closeIssues) return undefined;
  const kept = batch.sent.get(key);
  if (kept) return kept;
  if (!closeOf(key)) return undefined;
  const members = run.filter((k) => !batch.sent.has(k) && closeOf(k));
  const answers = forge.closeIssues(members.map((k) => closeOf(k)!));
  members.forEach((k, i) => {
    const answer = answers.then((all) => {
      const mine = all[i];
      if (mine?.status === 'rejected') throw mine.reason;
      if (!mine) throw new Error(`no answer to the close of ${k}`);
    });
    // Taken by that issue's own close later in the pass; not an unhandled rejection meanwhile.
    answer.catch(() => undefined);
    batch.sent.set(k, answer);
  });
  return batch.sent.get(key);
};
