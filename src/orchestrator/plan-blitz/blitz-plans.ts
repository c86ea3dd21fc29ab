// How a blitz run uses plan-blitz's plans. An M or L issue without `plan/approved` is held with that
// reason (the planner's own hold), so the blitz says so and runs the rest; a dispatched issue with an
// approved plan (or an S spec marked `plan/ready`) gets the plan comment in its worker's prompt.
import { type Forge, hasPermission, type IssueRef, type RepoRef } from '../../forges/types.ts';
import type { PlanIssue } from '../../plan/types.ts';
import { hasLabel } from '../../plan/types.ts';
import { needsReview, planMarker, planRunLabels, sizeOf } from './plan-labels.ts';

const unplannedPrefix = 'needs an approved plan first';

export const unplannedReason = (size: string): string =>
  `${unplannedPrefix} (size ${size}): run \`/plan-blitz\` on it`;

/** M/L issues lacking `plan/approved` get a `hold` with the reason; issues already held keep theirs. */
export const holdUnplanned = (issues: readonly PlanIssue[]): PlanIssue[] =>
  issues.map((i) => {
    const size = sizeOf(i);
    if (!size || !needsReview(size) || hasLabel(i, planRunLabels.approved) || hasLabel(i, planRunLabels.hold))
      return i;
    return { ...i, labels: [...i.labels, { name: planRunLabels.hold, description: unplannedReason(size) }] };
  });

/** The dashboard line naming the issues held for want of a plan, if any. */
export const unplannedLine = (issues: Iterable<PlanIssue>): string | undefined => {
  const held = [...issues].filter((i) =>
    i.labels.some((l) => l.name === planRunLabels.hold && l.description?.startsWith(unplannedPrefix)),
  );
  if (held.length === 0) return undefined;
  return `plans: ${held.map((i) => `#${i.number} (${sizeOf(i)})`).join(', ')} ${held.length === 1 ? 'has' : 'have'} no approved plan and will not run until \`/plan-blitz\` approves one; the rest runs`;
};

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
