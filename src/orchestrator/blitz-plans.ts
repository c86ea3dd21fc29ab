// How a blitz run uses plan-blitz's plans: a dispatched issue with an approved plan (or an S spec marked
// `plan/ready`) gets the plan comment in its worker's prompt. (An M or L issue without one is held by the
// planner: plan/plan-labels.ts `holdUnplanned`.)
import { type Forge, hasPermission, type IssueRef, type RepoRef } from '../forges/types.ts';
import { planMarker, planRunLabels } from '../plan/plan-labels.ts';
import type { PlanIssue } from '../plan/types.ts';
import { hasLabel } from '../plan/types.ts';

const tag = `<!-- ${planMarker} -->`;

/**
 * The plan comment of an issue that carries `plan/approved` or `plan/ready`, written by an account
 * with write permission (the bot), without its marker; undefined when there is none. A comment by
 * anyone else carrying the marker is ignored: it would put their words in a worker's prompt.
 */
export const approvedPlanText = async (
  forge: Forge,
  repo: RepoRef,
  issue: Pick<PlanIssue, 'number' | 'labels'>,
): Promise<string | undefined> => {
  if (!hasLabel(issue, planRunLabels.approved) && !hasLabel(issue, planRunLabels.ready)) return undefined;
  const ref: IssueRef = { repo, number: issue.number };
  for (const c of (await forge.listComments(ref)).filter((x) => x.body.includes(tag))) {
    const permission = await forge.getPermission(repo, c.author).catch(() => 'none' as const);
    if (hasPermission(permission, 'write')) return c.body.replace(tag, '').trim();
  }
  return undefined;
};
