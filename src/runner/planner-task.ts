// The planner worker's task (pure). The runner's `plan` deliverable already asks for PLAN.md at the
// root of the worktree, committed and pushed, and nothing implemented; this module adds what each
// planning step needs (size first, a short spec, a full plan, a fix after BLOCKED). The issue's own
// title and body go to the runner unchanged, so they stay fenced as untrusted text. The bot then reads
// PLAN.md from the pushed branch (read-plan.ts), the same way from a local or a remote runner.

import type { Size } from '../plan/plan-labels.ts';
import { planFileName } from './prompt.ts';

export const planFile = planFileName;

export type PlannerStep = 'size' | 'spec' | 'plan' | 'fix';

export interface PlannerTaskInput {
  step: PlannerStep;
  title: string;
  body: string;
  size?: Size;
}

const stepText: Record<PlannerStep, string[]> = {
  size: [
    `This issue has no size yet. Size it first: the FIRST line of ${planFile} is \`SIZE: XS\`, \`SIZE: S\`,`,
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

/** The bot's instructions for one planning step (trusted text: nothing in it comes from the issue). */
export const plannerInstructions = (t: Pick<PlannerTaskInput, 'step' | 'size'>): string =>
  [...stepText[t.step], ...(t.size ? [`Size: ${t.size}.`] : [])].join('\n');

export const plannerTaskTitle = (t: Pick<PlannerTaskInput, 'step' | 'title'>): string =>
  `${t.step === 'size' ? 'Size and plan' : t.step === 'fix' ? 'Fix the plan of' : 'Plan'}: ${t.title}`;

/**
 * The attempt-job fields of a planner attempt. The title keeps the step's prefix because the branch
 * name is made from it (a fix runs on its own branch, as before).
 */
export const plannerJob = (
  t: PlannerTaskInput,
): { title: string; body: string; deliverable: 'plan'; instructions: string } => ({
  title: plannerTaskTitle(t),
  body: t.body,
  deliverable: 'plan',
  instructions: plannerInstructions(t),
});
