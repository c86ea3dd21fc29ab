// Closing on merge: a merged PR closes the issues it names (Fixes/Closes/Resolves in its body or
// commits) when the forge did not (GitHub leaves them open when the base is not the default branch;
// Gitea leaves them open), each with a comment naming the merge commit; then a parent epic closes
// when its last child is closed. Shared by the run kinds: every step reads the state first, so an
// issue the forge, a blitz run or an earlier pass already closed is not closed (or commented) again.
import { isAppError } from '../errors.ts';
import { type Forge, formatIssueRef, type IssueRef, type RepoRef, sameRepo } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import { parentsClosableBy } from '../plan/epics.ts';
import { keyOfRef, toExternal, toPlanIssue } from '../plan/plan-input.ts';
import { closeEpic, closeWithComment } from './close-issue.ts';

export interface CloseOnMergeInput {
  /** The forge of the PR's repository. */
  forge: Forge;
  pr: IssueRef;
  mergeSha: string;
  /** The forge for another repository the PR names an issue in (cross-repo `Fixes o/r#n`). */
  forgeFor?: (repo: RepoRef) => Promise<Forge>;
  logger?: Logger;
}

export interface CloseOnMergeResult {
  closed: IssueRef[];
  /** Named by the PR, already closed (by the forge or someone else): left alone. */
  alreadyClosed: IssueRef[];
  epicsClosed: IssueRef[];
}

/** Open epics of the issue's milestone whose children are now all closed (plan/epics.ts decides). */
const closableParents = async (forge: Forge, child: IssueRef, milestone: number): Promise<IssueRef[]> => {
  const ms = await forge.loadMilestone(child.repo, milestone);
  const byKey = new Map(ms.issues.map((i) => [keyOfRef(i.ref), i.ref]));
  return parentsClosableBy(
    ms.issues.map((i) => toPlanIssue(i, true)),
    ms.externalBlockers.map(toExternal),
    keyOfRef(child),
  ).map((k) => byKey.get(k)!);
};

export const closeOnMerge = async (input: CloseOnMergeInput): Promise<CloseOnMergeResult> => {
  const { forge, pr, mergeSha } = input;
  const result: CloseOnMergeResult = { closed: [], alreadyClosed: [], epicsClosed: [] };
  const named = await forge.closingIssues(pr);
  for (const ref of named) {
    const f = sameRepo(ref.repo, pr.repo) ? forge : await input.forgeFor?.(ref.repo);
    if (!f) continue;
    let issue: Awaited<ReturnType<Forge['getIssue']>>;
    try {
      issue = await f.getIssue(ref);
    } catch (err) {
      if (isAppError(err, 'not_found') || isAppError(err, 'forbidden')) continue;
      throw err;
    }
    if (issue.isPullRequest) continue;
    if (issue.state === 'closed') {
      result.alreadyClosed.push(ref);
      continue;
    }
    const why = `Closed by ${formatIssueRef(pr, ref.repo)}, merged as commit ${mergeSha}.`;
    await closeWithComment(f, ref, why, { knownOpen: true });
    result.closed.push(ref);
    input.logger?.info(
      { issue: formatIssueRef(ref), pr: formatIssueRef(pr), mergeSha },
      'issue closed on merge',
    );
    if (!issue.milestone) continue;
    for (const epic of await closableParents(f, ref, issue.milestone.number)) {
      // Read again: another merge in this loop may have closed it already.
      if (await closeEpic(f, epic)) result.epicsClosed.push(epic);
    }
  }
  return result;
};
