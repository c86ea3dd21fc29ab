// The one way a worker's pushed branch becomes a PR, for every run kind: the PR this run already
// knows by number (it may be merged and closed by now), else the open one with that head, else a new
// one titled after the issue; then the issue's row records it.
import { type Forge, formatRepo, type PullRequest, type RepoRef } from '../forges/types.ts';
import type { IssueKey } from '../plan/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunIssueRecord, RunStore } from '../store/run-store.ts';
import { refOf } from './context.ts';

export interface PrOrder {
  runId: string;
  issue: IssueKey;
  /** The issue's title now (the attempt's job carries the one it was dispatched with). */
  title: string | undefined;
  forge: Forge;
  repo: RepoRef;
  base: string;
  solved: AttemptRecord;
  body: string;
  /** The PR number the run recorded earlier, if any. */
  known?: number | undefined;
  /** The row's state once the PR is recorded. */
  state: 'pr_open' | 'shipping';
}

export const openPr = async (
  deps: { store: Pick<RunStore, 'upsertRunIssue'> },
  o: PrOrder,
): Promise<{ pr: PullRequest; row: RunIssueRecord }> => {
  const ref = refOf(o.issue);
  const found =
    o.known !== undefined
      ? await o.forge.getPullRequest({ repo: o.repo, number: o.known })
      : await o.forge.findPullRequest(o.repo, o.solved.branch);
  const pr =
    found ??
    (await o.forge.openPullRequest(o.repo, {
      head: o.solved.branch,
      base: o.base,
      title: `#${ref.number}: ${o.title ?? o.solved.job.title}`,
      body: o.body,
    }));
  const row = await deps.store.upsertRunIssue(o.runId, formatRepo(ref.repo), ref.number, {
    state: o.state,
    prNumber: pr.ref.number,
    branch: o.solved.branch,
  });
  return { pr, row };
};
