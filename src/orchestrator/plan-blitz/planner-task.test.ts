import { describe, expect, it } from 'vitest';
import { planFile, plannerTaskBody, plannerTaskHeading, plannerTaskTitle } from './planner-task.ts';

describe('planner task', () => {
  const issue = { issueNumber: 4, title: 'Session API', body: 'Routes for sessions.' };

  it('asks for PLAN.md only, for the issue it names, never for the change itself', () => {
    const body = plannerTaskBody({ step: 'plan', size: 'L', ...issue });
    expect(body.startsWith(plannerTaskHeading)).toBe(true);
    expect(body).toContain(`\`${planFile}\``);
    expect(body).toContain('Change no other file.');
    expect(body).toContain('Size: L.');
    expect(body.endsWith('Issue #4: Session API\n\nRoutes for sessions.')).toBe(true);
  });

  it('an unsized issue is asked for a SIZE line first; an S issue for a short spec', () => {
    expect(plannerTaskBody({ step: 'size', ...issue })).toContain('the FIRST line of PLAN.md is `SIZE: XS`');
    expect(plannerTaskBody({ step: 'spec', size: 'S', ...issue })).toContain('write a short spec');
    expect(plannerTaskTitle({ step: 'fix', title: 'Session API' })).toBe('Fix the plan of: Session API');
  });
});
