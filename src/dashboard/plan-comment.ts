// The plan comment on an issue (pure): one per issue, found again by its hidden marker and edited in
// place on replanning. The plan and the findings are model text: sanitised before they are shown.

import { planBody, type Size } from '../plan/plan-labels.ts';
import { maxFindingsChars } from '../review/comment.ts';
import type { ReviewerVerdict } from '../review/plan-review.ts';
import { sanitizeModelText } from '../review/sanitize.ts';
import { maxPlanChars } from '../runner/read-plan.ts';

export type PlanStatus = 'spec' | 'draft' | 'approved' | 'fixing' | 'pivot' | 'refused';

export interface PlanCommentInput {
  status: PlanStatus;
  size: Size;
  plan: string;
  wave: number;
  planner: string;
  reviews?: ReviewerVerdict[];
  /** PIVOT: the replan issue filed for it. */
  replanIssue?: number;
  /** Why the plan stopped (a refusal). */
  note?: string;
}

const statusLine: Record<PlanStatus, (c: PlanCommentInput) => string> = {
  spec: () => 'Short spec (size S): **execution-ready** (`plan/ready`); it needs no plan review.',
  draft: () => 'Plan **draft** (`plan/draft`): reviewers are reading it.',
  approved: (c) =>
    c.reviews?.some((r) => r.verdict === 'blocked')
      ? 'Plan **approved** (`plan/approved`): the BLOCKED findings below were applied by the planner.'
      : 'Plan **approved** (`plan/approved`).',
  fixing: () => 'Plan **BLOCKED**: the planner is applying the findings below; the fixed plan is approved.',
  pivot: (c) =>
    `Plan **PIVOT**: this direction cannot proceed. A new plan is asked for in #${c.replanIssue ?? '?'}; this issue waits for it.`,
  refused: (c) => `Plan **not approved**: ${c.note ?? 'no reviewer gave a verdict'}. A person has to look.`,
};

const reviewLines = (c: PlanCommentInput): string[] => {
  if (!c.reviews?.length) return [];
  const pivot = c.reviews.some((r) => r.verdict === 'pivot');
  return [
    '',
    '### Review',
    ...c.reviews.flatMap((r) => [
      '',
      `**${r.verdict.toUpperCase()}** by ${r.reviewer}${pivot && r.verdict !== 'pivot' ? ' — Suspended (PIVOT)' : ''}:`,
      '',
      r.findings,
    ]),
  ];
};

export const renderPlanComment = (c: PlanCommentInput): string =>
  [
    `## ${c.status === 'spec' ? 'Spec' : 'Plan'} (plan-blitz wave ${c.wave}, size ${c.size}, by ${c.planner})`,
    '',
    statusLine[c.status](c),
    '',
    sanitizeModelText(planBody(c.plan), { maxChars: maxPlanChars }),
    ...reviewLines(c),
  ].join('\n');

/** The body of the issue a PIVOT files: what failed and what a new plan must start from. */
export const replanIssueBody = (issue: number, title: string, reviews: ReviewerVerdict[]): string =>
  [
    `A plan for #${issue} (${title}) was reviewed and the reviewers said **PIVOT**: its direction cannot`,
    `proceed. This issue asks for a new plan; #${issue} is blocked by it until one is approved.`,
    '',
    ...reviews
      .filter((r) => r.verdict === 'pivot')
      .flatMap((r) => [
        `Findings of ${r.reviewer}:`,
        '',
        sanitizeModelText(r.findings, { maxChars: maxFindingsChars }),
        '',
      ]),
  ].join('\n');
