// Integration-review findings first (seed 000 §3.5, "findings are top priority: fix them before spawning
// the next fan-out wave"): the review is the one place cross-issue drift is caught, so the issues it
// filed take the free slots before any unrelated new issue does. Within each group the dispatch order
// (priority, age, number) stands. Pure, like the rest of src/plan/.
import type { IssueKey } from './types.ts';

/** `ordered` with the review's findings moved to the front, each group in the order it had. */
export const findingsFirst = (ordered: readonly IssueKey[], findings: ReadonlySet<IssueKey>): IssueKey[] => {
  if (findings.size === 0) return [...ordered];
  const first: IssueKey[] = [];
  const rest: IssueKey[] = [];
  for (const k of ordered) (findings.has(k) ? first : rest).push(k);
  return [...first, ...rest];
};
