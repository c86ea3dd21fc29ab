// Which merge of a pass carries the PR feedback's completing `blitz` report (one request on GitHub
// instead of two): decided from the pass's actions before they are performed.
import { type Action, replanAfter } from './snapshot.ts';
import type { IssueKey } from './types.ts';

/**
 * The merge this pass performs right after the issue's PR feedback, if any: a `merge` at the gate's head
 * whose issue had a `pr_feedback` action before it, with no action between that ends the pass early
 * (`replanAfter`). The feedback's completing `blitz` report then goes with the merge (one request on
 * GitHub) instead of on its own just before it.
 */
export const mergeAfterFeedback = (
  actions: readonly Action[],
): { issue: IssueKey; head: string } | undefined => {
  const at = actions.findIndex((a) => a.type === 'merge');
  const merge = actions[at];
  if (merge?.type !== 'merge' || merge.head === undefined) return undefined;
  const before = actions.slice(0, at);
  const feedback = before.findIndex((a) => a.type === 'pr_feedback' && a.issue === merge.issue);
  if (feedback < 0 || before.slice(feedback).some((a) => replanAfter.has(a.type))) return undefined;
  return { issue: merge.issue, head: merge.head };
};
