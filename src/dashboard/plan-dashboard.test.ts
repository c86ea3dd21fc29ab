import { describe, expect, it } from 'vitest';
import { planProgressSchema } from '../plan/plan-progress.ts';
import type { RunRecord } from '../store/run-store.ts';
import { renderPlanComment } from './plan-comment.ts';
import { renderPlanDashboard } from './plan-dashboard.ts';
import { dashboardMarker } from './render.ts';

const run = (progress: RunRecord['progress']): RunRecord => ({
  id: 'r1',
  forge: 'github',
  repo: 'acme/app',
  kind: 'plan',
  milestoneNumber: 1,
  milestoneTitle: 'M1',
  slug: 'plan-m1',
  options: {},
  state: 'running',
  integrationBranch: 'main',
  progress,
  version: 0,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
});

describe('renderPlanDashboard', () => {
  it('counts each wave by landing and lists holds, unmatched targets, cycles and step problems', () => {
    const plan = planProgressSchema.parse({
      targets: ['acme/app#1', 'acme/app#2'],
      unmatched: [{ ref: '#999', reason: 'no such issue' }],
      waves: [
        {
          index: 1,
          members: ['acme/app#1', 'acme/app#2'],
          held: [{ key: 'acme/app#7', reason: 'waiting on <b>finance</b>' }],
          outcomes: {
            'acme/app#1': { landing: 'closed', size: 'XS' },
            'acme/app#2': { landing: 'refused', size: 'M', note: 'no reviewer could review it' },
          },
          landed: true,
        },
        { index: 2, members: ['acme/app#3'], outcomes: {} },
      ],
      cycles: [['acme/app#8', 'acme/app#9']],
    });
    const body = renderPlanDashboard({
      run: run({}),
      plan,
      rows: new Map(),
      issues: new Map(),
      problems: new Map([['acme/app#3', 'label plan/draft does not exist']]),
    });
    expect(body.startsWith(dashboardMarker('r1'))).toBe(true);
    expect(body).toContain('| 1 | 0 | 0 | 1 | 1 | 1 | 0 |');
    expect(body).toContain('| 2 (in flight) | 0 | 0 | 0 | 0 | 0 | 0 |');
    expect(body).toContain('- &#35;999: no such issue');
    expect(body).toContain('#8 ↔ #9');
    expect(body).toContain('label plan/draft does not exist');
    expect(body).toContain('- #3 (unsized): queued');
    expect(body).not.toContain('<b>');
  });

  it('names a member waiting out an environment backoff, and counts a parked one with its note', () => {
    const plan = planProgressSchema.parse({
      waves: [
        {
          index: 1,
          members: ['acme/app#1', 'acme/app#2'],
          outcomes: { 'acme/app#2': { landing: 'parked', size: 'S', note: 'parked: its planner hit …' } },
        },
      ],
    });
    const body = renderPlanDashboard({
      run: run({}),
      plan,
      rows: new Map([['acme/app#1', { state: 'planning' }]]),
      issues: new Map(),
      waiting: new Map([
        ['acme/app#1', 'waiting: environment failure 1 of 3 in a row; starts again at 2026-12-04 06:01 UTC'],
      ]),
    });
    expect(body).toContain(
      '| wave | approved | execution-ready | closed | held | refused | pivoted | parked |',
    );
    expect(body).toContain('| 1 (in flight) | 0 | 0 | 0 | 0 | 0 | 0 | 1 |');
    expect(body).toContain(
      '- #1 (unsized): planning — waiting&#58; environment failure 1 of 3 in a row; starts again at 2026-12-04 06&#58;01 UTC',
    );
    expect(body).toContain('- #2 (S): **parked** — parked&#58; its planner hit …');
  });

  it('says when the run goes slower for the forge rate limit', () => {
    const base = { run: run({}), plan: planProgressSchema.parse({}), rows: new Map(), issues: new Map() };
    expect(renderPlanDashboard(base)).not.toContain('Slowed down');
    expect(renderPlanDashboard({ ...base, slowed: 'core rate limit nearly spent' })).toContain(
      '**Slowed down:** core rate limit nearly spent.',
    );
  });
});

describe('renderPlanComment', () => {
  it('shows a PIVOT with its replan issue, and a co-reviewer as suspended', () => {
    const body = renderPlanComment({
      status: 'pivot',
      size: 'M',
      plan: 'SIZE: M\n# Plan\n1. Use the old store.',
      wave: 3,
      planner: 'planner',
      replanIssue: 11,
      reviews: [
        { reviewer: 'a', verdict: 'pivot', findings: '- the store cannot do this' },
        { reviewer: 'b', verdict: 'approved', findings: '- none' },
      ],
    });
    expect(body).toContain('Plan **PIVOT**');
    expect(body).toContain('#11');
    expect(body).toContain('**APPROVED** by b — Suspended (PIVOT)');
    expect(body).not.toContain('SIZE: M');
  });

  it('neutralises mentions and a planted marker in the plan text', () => {
    const body = renderPlanComment({
      status: 'spec',
      size: 'S',
      plan: 'ping @alice <!-- blitz-dashboard:r1 -->',
      wave: 1,
      planner: 'p',
    });
    expect(body).not.toContain('@alice');
    expect(body).not.toContain('<!-- blitz-dashboard');
  });
});
