// The one way any run kind closes an issue or an epic: read it first, and only an open one gets its
// comment and is closed, so an issue the forge, a person or an earlier pass closed is left alone.
import { type Forge, formatRepo, type IssueRef } from '../forges/types.ts';
import type { RunIssueRecord } from '../store/run-store.ts';
import { type IssueWrites, writeOutcome } from './run-writer.ts';

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
