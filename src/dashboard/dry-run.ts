// A dry run's report (pure): the first wave a run would start and how, what is held, what waits.
// Posted once on the trigger issue; nothing runs.
import { sizeOf } from '../plan/plan-labels.ts';
import type { Action } from '../plan/snapshot.ts';
import { type IssueKey, issueRef, type PlanIssue } from '../plan/types.ts';

type PostPlan = Extract<Action, { type: 'post_plan' }>;

const listed = (xs: readonly string[]): string[] => (xs.length ? xs.map((x) => `- ${x}`) : ['- nothing']);

/** A blitz dry run: the first wave with the workers the planner picked for it, and what is not ready. */
export const blitzDryRun = (milestone: string, maxSessions: number, a: PostPlan): string =>
  [
    `**blitz dry run: ${milestone}** — nothing was started.`,
    '',
    `First wave (${a.wave.length}, at most ${maxSessions} at once):`,
    ...(a.picks ?? []).map(
      (p) =>
        `- ${issueRef(p.issue)}: tier ${p.worker.tier}, ${p.worker.entry.name}${p.worker.entry.model ? ` (${p.worker.entry.model})` : ''} — ${p.worker.reason}`,
    ),
    ...(a.wave.length === 0 ? ['- nothing is ready'] : []),
    '',
    'Not ready yet:',
    ...listed(a.explanations),
  ].join('\n');

/** A plan-blitz dry run: the first wave with each member's size lane, the held issues, what waits. */
export const planDryRun = (
  milestone: string,
  issues: ReadonlyMap<IssueKey, Pick<PlanIssue, 'labels'>>,
  a: PostPlan,
): string => {
  const lane = (k: IssueKey) => {
    const issue = issues.get(k);
    return (issue && sizeOf(issue)) ?? 'unsized (the planner sizes it first)';
  };
  return [
    `**plan-blitz dry run: ${milestone}** — nothing was started.`,
    '',
    `First wave (${a.wave.length}):`,
    ...a.wave.map((k) => `- ${issueRef(k)}: lane ${lane(k)}`),
    ...(a.wave.length === 0 ? ['- nothing can be planned now'] : []),
    '',
    'Held:',
    ...listed((a.held ?? []).map((h) => `${issueRef(h.key)}: ${h.reason}`)),
    '',
    'Waiting:',
    ...listed(a.explanations),
  ].join('\n');
};
