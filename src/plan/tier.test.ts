import { describe, expect, it } from 'vitest';
import { assessTier } from './tier.ts';

describe('assessTier', () => {
  const cases: { name: string; body: string; labels?: string[]; want: string }[] = [
    {
      name: 'root cause, files and fix shape named: execution, whatever the size',
      body: 'The root cause is an off-by-one in `src/plan/wave.ts`: the cap uses <= instead of <. Change the comparison to < and add a test for a cap of one.',
      want: 'execution',
    },
    {
      name: 'goal stated, interface left open: design',
      body: 'We need a way for runners to report heartbeats to the bot. Decide the interface and the data model for heartbeats; the rest of the system will call it.',
      want: 'design',
    },
    {
      name: 'a thin body: subtle',
      body: 'Make it faster.',
      want: 'subtle',
    },
    {
      name: 'subtle correctness and cross-cutting concerns: subtle',
      body: 'There is a race between the cron tick and the webhook handler that can corrupt the run state; it is cross-cutting and the invariant is unclear.',
      want: 'subtle',
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      expect(
        assessTier(
          c.body,
          (c.labels ?? []).map((name) => ({ name })),
        ).tier,
      ).toBe(c.want);
    });

  it('between two tiers, the difficulty label decides, and without one the lower tier wins', () => {
    const body =
      'Add retries to `src/runner/exec.ts`; the root cause is transient network errors. Choose the interface for configuring them.';
    expect(assessTier(body).tier).toBe('execution');
    expect(assessTier(body, [{ name: 'difficulty/medium' }]).tier).toBe('design');
    // a label outside the range the body allows does not move it
    expect(assessTier(body, [{ name: 'difficulty/hard' }]).tier).toBe('execution');
  });
});
