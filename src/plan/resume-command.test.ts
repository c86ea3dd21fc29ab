import { describe, expect, it } from 'vitest';
import { resumeCommandOf } from './resume-command.ts';

describe('resumeCommandOf', () => {
  it("is each run kind's own command: a fleet's and a plan run's are not /blitz", () => {
    expect(resumeCommandOf('blitz')).toBe('/blitz resume');
    expect(resumeCommandOf('fleet')).toBe('/ticket-fleet resume');
    expect(resumeCommandOf('plan')).toBe('/plan-blitz resume');
  });
});
