// Merges the blockers issues declare in their bodies into a loaded milestone, for both adapters: each
// declared blocker joins `blockedBy`, and one outside the open set is looked up once; one that does
// not exist or cannot be read is stated `unknown`, so the planner fails closed on it. A forge that
// counts a blocker it cannot show (GitHub: a null link) gives a placeholder `unknown` ref; a body ref
// that is unknown too names that same blocker, so it takes the placeholder's place (reported once).
import { isAppError } from '../errors.ts';
import { parseBodyDeps } from './body-deps.ts';
import {
  type BlockerState,
  type IssueRef,
  type MilestoneIssue,
  type MilestoneSnapshot,
  sameIssue,
} from './types.ts';

/** Reads one issue's state through the adapter; throws the adapter's AppError when it cannot. */
export type ReadBlocker = (ref: IssueRef) => Promise<{ state: 'open' | 'closed'; title: string }>;

const unreadable = (err: unknown): boolean => isAppError(err, 'not_found') || isAppError(err, 'forbidden');

export const mergeBodyDeps = async (
  snap: MilestoneSnapshot,
  read: ReadBlocker,
): Promise<MilestoneSnapshot> => {
  const external: BlockerState[] = [...snap.externalBlockers];
  const placeholders = new Set(snap.externalBlockers.filter((b) => b.state === 'unknown').map((b) => b.ref));
  const stateOf = (r: IssueRef) => external.find((b) => sameIssue(b.ref, r))?.state;
  const isOpenHere = (r: IssueRef) => snap.issues.some((i) => sameIssue(i.ref, r));
  const issues: MilestoneIssue[] = [];
  for (const issue of snap.issues) {
    const declared = parseBodyDeps(issue.body, issue.ref.repo).filter(
      (r) => !sameIssue(r, issue.ref) && !issue.blockedBy.some((b) => sameIssue(b, r)),
    );
    for (const r of declared) {
      if (isOpenHere(r) || external.some((b) => sameIssue(b.ref, r))) continue;
      try {
        const got = await read(r);
        external.push({ ref: r, state: got.state, title: got.title });
      } catch (err) {
        // Any other failure (outage, rate limit) propagates: the reconcile retries rather than guess.
        if (!unreadable(err)) throw err;
        external.push({
          ref: r,
          state: 'unknown',
          title: 'declared in the issue text; not found or not readable',
        });
      }
    }
    if (declared.length === 0) {
      issues.push(issue);
      continue;
    }
    const kept = [...issue.blockedBy];
    for (const r of declared) {
      if (stateOf(r) !== 'unknown') continue;
      const at = kept.findIndex((b) => [...placeholders].some((p) => sameIssue(p, b)));
      if (at >= 0) kept.splice(at, 1);
    }
    issues.push({ ...issue, blockedBy: [...kept, ...declared] });
  }
  // A placeholder no issue names any more is dropped, so it is not reported as a blocker of nobody.
  const named = (r: IssueRef) => issues.some((i) => i.blockedBy.some((b) => sameIssue(b, r)));
  return {
    ...snap,
    issues,
    externalBlockers: external.filter((b) => !placeholders.has(b.ref) || named(b.ref)),
  };
};
