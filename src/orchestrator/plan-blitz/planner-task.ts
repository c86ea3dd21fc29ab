// The planner worker's task (pure). The runner's prompt asks for a pushed branch; a planner's
// deliverable is a plan, so the task is: write PLAN.md at the root of the worktree, commit it and
// push the branch. The bot then reads PLAN.md from the pushed branch (read-plan.ts), so the plan
// comes back the same way from a local or a remote runner.
import type { Size } from './plan-labels.ts';

export const planFile = 'PLAN.md';

/** First line of every planner task: the fake agents (and a reader of the prompt) key off it. */
export const plannerTaskHeading = 'PLANNING TASK: do not implement this issue; write its plan.';

export type PlannerStep = 'size' | 'spec' | 'plan' | 'fix';

export interface PlannerTaskInput {
  step: PlannerStep;
  issueNumber: number;
  title: string;
  body: string;
  size?: Size;
}

const stepText: Record<PlannerStep, string[]> = {
  size: [
    'This issue has no size yet. Size it first: the FIRST line of PLAN.md is `SIZE: XS`, `SIZE: S`,',
    '`SIZE: M` or `SIZE: L` (XS: a one-line change; S: a short, obvious change; M: several files or a',
    'design choice; L: a cross-cutting change). Then write the plan as below: for XS one line is',
    'enough, for S a short spec, for M and L a full plan.',
  ],
  spec: ['This is a small (S) issue: write a short spec — what changes, where, and how it is tested.'],
  plan: [
    'Write a full plan: the approach, the files and modules touched, the steps in order, the tests that',
    'prove it, the risks, and what is out of scope. Reviewers will check it before anyone builds it.',
  ],
  fix: [
    'Reviewers found the plan you wrote wrong until fixed. Apply every finding (they follow as the',
    "previous attempt's failure) and write the corrected plan in full.",
  ],
};

/** The issue body handed to the runner for a planner attempt. */
export const plannerTaskBody = (t: PlannerTaskInput): string =>
  [
    plannerTaskHeading,
    '',
    ...stepText[t.step],
    '',
    `Deliverable: the file \`${planFile}\` at the root of the worktree, committed and pushed on your`,
    'branch. Change no other file. The plan is for the issue below.',
    ...(t.size ? [`Size: ${t.size}.`] : []),
    '',
    `Issue #${t.issueNumber}: ${t.title}`,
    '',
    t.body,
  ].join('\n');

export const plannerTaskTitle = (t: Pick<PlannerTaskInput, 'step' | 'title'>): string =>
  `${t.step === 'size' ? 'Size and plan' : t.step === 'fix' ? 'Fix the plan of' : 'Plan'}: ${t.title}`;
