// Plan state on the tracker (pure): the labels a plan-blitz run reads and writes, the size lanes
// of seed 002 §4, the hidden marker of the plan comment (one per issue, edited in place), and how a
// blitz run holds an M or L issue that has no approved plan yet.
import type { PlanIssue } from './types.ts';
import { hasLabel, planLabels } from './types.ts';

export const sizes = ['XS', 'S', 'M', 'L'] as const;
export type Size = (typeof sizes)[number];

/** Labels written by a plan run; `plan/approved` and `hold` are the planner's own names. */
export const planRunLabels = {
  draft: 'plan/draft',
  approved: planLabels.planApproved,
  /** S lane: the short spec is enough; the issue may be executed once its blockers are closed. */
  ready: 'plan/ready',
  hold: planLabels.hold,
} as const;

export const sizeLabel = (s: Size): string => `size/${s}`;

/** The size an issue's labels give it; undefined when it has none (the planner sizes it first). */
export const sizeOf = (issue: Pick<PlanIssue, 'labels'>): Size | undefined => {
  // The largest wins when a person left two: a plan is cheaper than an unplanned L.
  for (const s of [...sizes].reverse()) if (hasLabel(issue, sizeLabel(s))) return s;
  return undefined;
};

export const needsReview = (s: Size): boolean => s === 'M' || s === 'L';

/** Marker of the plan comment, without `<!-- -->` (the forge adapters wrap it). */
export const planMarker = 'blitz-plan';

const sizeLine = /^\s*SIZE\s*:\s*(XS|S|M|L)\b/im;

/** The `SIZE: X` line a sizing planner writes at the top of PLAN.md. */
export const parsePlanSize = (plan: string): Size | undefined => {
  const m = sizeLine.exec(plan);
  return sizes.find((s) => s === m?.[1]?.toUpperCase());
};

/** The plan text without the SIZE line (that one went into the label). */
export const planBody = (plan: string): string => plan.replace(sizeLine, '').trim();

const unplannedPrefix = 'needs an approved plan first';

/** A blitz run holds M/L issues lacking `plan/approved`, with the reason; issues already held keep theirs. */
export const holdUnplanned = (issues: readonly PlanIssue[]): PlanIssue[] =>
  issues.map((i) => {
    const size = sizeOf(i);
    if (!size || !needsReview(size) || hasLabel(i, planRunLabels.approved) || hasLabel(i, planRunLabels.hold))
      return i;
    const description = `${unplannedPrefix} (size ${size}): run \`/plan-blitz\` on it`;
    return { ...i, labels: [...i.labels, { name: planRunLabels.hold, description }] };
  });

/** The dashboard line naming the issues held for want of a plan, if any. */
export const unplannedLine = (issues: Iterable<PlanIssue>): string | undefined => {
  const held = [...issues].filter((i) =>
    i.labels.some((l) => l.name === planRunLabels.hold && l.description?.startsWith(unplannedPrefix)),
  );
  if (held.length === 0) return undefined;
  return `plans: ${held.map((i) => `#${i.number} (${sizeOf(i)})`).join(', ')} ${held.length === 1 ? 'has' : 'have'} no approved plan and will not run until \`/plan-blitz\` approves one; the rest runs`;
};
