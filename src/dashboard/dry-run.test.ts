import { describe, expect, it } from 'vitest';
import { baseSnapshot, issue, k } from '../../test/support/plan-arbitraries.ts';
import { nextActions } from '../plan/next-actions.ts';
import type { Action } from '../plan/snapshot.ts';
import { blitzDryRun, planDryRun } from './dry-run.ts';

type PostPlan = Extract<Action, { type: 'post_plan' }>;

describe('a dry run’s report', () => {
  it('blitz: the first wave with the worker the planner picked for each, and why the rest waits', () => {
    const snap = baseSnapshot([issue(1), issue(2, { blockedBy: [k(1)] })], {
      options: { maxSessions: 2, dryRun: true },
    });
    const a = nextActions('running', snap).find((x): x is PostPlan => x.type === 'post_plan')!;
    const text = blitzDryRun('M1', 2, a);
    const pick = a.picks![0]!;
    expect(text).toContain('**blitz dry run: M1** — nothing was started.');
    expect(text).toContain(
      `First wave (1, at most 2 at once):\n- #1: tier ${pick.worker.tier}, ${pick.worker.entry.name}`,
    );
    expect(text).toContain(
      'Not ready yet:\n- acme/app#2 is not ready because it is blocked by open acme/app#1.',
    );
    expect(blitzDryRun('M1', 2, { type: 'post_plan', wave: [], explanations: [] })).toContain(
      '- nothing is ready\n\nNot ready yet:\n- nothing',
    );
  });

  it('plan-blitz: each member’s lane (unsized first), the held issues with their reason, what waits', () => {
    const issues = new Map([
      [k(1), { labels: [{ name: 'size/M' }] }],
      [k(2), { labels: [] }],
    ]);
    const text = planDryRun('M1', issues, {
      type: 'post_plan',
      wave: [k(1), k(2)],
      explanations: [],
      held: [{ key: k(3), reason: 'waiting on legal' }],
    });
    expect(text).toContain('First wave (2):\n- #1: lane M\n- #2: lane unsized (the planner sizes it first)');
    expect(text).toContain('Held:\n- #3: waiting on legal');
    expect(text).toContain('Waiting:\n- nothing');
  });
});
