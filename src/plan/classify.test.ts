import { describe, expect, it } from 'vitest';
import { issue, k } from '../../test/support/plan-arbitraries.ts';
import { classify, explain, keysIn } from './classify.ts';
import { executionGate, planningGate } from './gates.ts';
import { buildGraph } from './graph.ts';
import type { ExternalBlocker, PlanIssue } from './types.ts';

const run = (issues: PlanIssue[], external: ExternalBlocker[] = [], running: string[] = []) =>
  classify(buildGraph(issues, external), { running: new Set(running) });

describe('classify', () => {
  const cases: {
    name: string;
    issues: PlanIssue[];
    external?: ExternalBlocker[];
    want: Record<number, string>;
  }[] = [
    { name: 'an issue without blockers is ready', issues: [issue(1)], want: { 1: 'ready' } },
    {
      name: 'an issue blocked by an open issue is blocked, by a closed one ready',
      issues: [
        issue(1),
        issue(2, { blockedBy: [k(1)] }),
        issue(3, { state: 'closed' }),
        issue(4, { blockedBy: [k(3)] }),
      ],
      want: { 1: 'ready', 2: 'blocked', 3: 'done', 4: 'ready' },
    },
    {
      name: 'a blocker nobody can read fails closed',
      issues: [issue(1, { blockedBy: ['other/repo#9'] })],
      want: { 1: 'blocked' },
    },
    {
      name: 'a closed cross-repo blocker lets the issue run, an open one does not',
      issues: [issue(1, { blockedBy: ['other/lib#3'] }), issue(2, { blockedBy: ['other/lib#4'] })],
      external: [
        { key: 'other/lib#3', state: 'closed' },
        { key: 'other/lib#4', state: 'open' },
      ],
      want: { 1: 'ready', 2: 'blocked' },
    },
    {
      name: 'two issues blocking each other form a cycle; their dependent is blocked',
      issues: [
        issue(1, { blockedBy: [k(2)] }),
        issue(2, { blockedBy: [k(1)] }),
        issue(3, { blockedBy: [k(2)] }),
      ],
      want: { 1: 'cycle', 2: 'cycle', 3: 'blocked' },
    },
    {
      name: 'an issue blocked by itself is a cycle',
      issues: [issue(1, { blockedBy: [k(1)] })],
      want: { 1: 'cycle' },
    },
    {
      name: 'epics: the word Epic, a checklist-only body, sub-issues',
      issues: [
        issue(1, { title: 'Epic: auth' }),
        issue(2, { body: '- [ ] #4\n- [x] other/repo#2 done already\n' }),
        issue(3, { children: [k(4)] }),
        issue(4),
        issue(5, { title: 'Epically large refactor' }),
      ],
      want: { 1: 'epic', 2: 'epic', 3: 'epic', 4: 'ready', 5: 'ready' },
    },
    {
      name: 'a hold label holds, a person without write access is held until approved',
      issues: [
        issue(1, { labels: [{ name: 'hold' }] }),
        issue(2, { authorTrusted: false }),
        issue(3, { authorTrusted: false, labels: [{ name: 'blitz/approved' }] }),
      ],
      want: { 1: 'held', 2: 'held', 3: 'ready' },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const got = run(c.issues, c.external);
      const want = Object.fromEntries(Object.entries(c.want).map(([n, v]) => [k(Number(n)), v]));
      expect(Object.fromEntries([...got.byKey].map(([key, v]) => [key, v.category]))).toEqual(want);
    });

  it('a running issue is running even when its blockers would allow it', () => {
    expect(run([issue(1)], [], [k(1)]).byKey.get(k(1))?.category).toBe('running');
  });

  it('reports every unknown blocker by name with the issues that name it', () => {
    const got = run(
      [issue(1, { blockedBy: ['x/y#5'] }), issue(2, { blockedBy: ['x/y#5', 'x/y#6'] })],
      [{ key: 'x/y#6', state: 'unknown' }],
    );
    expect(got.unknownBlockers).toEqual([
      { key: 'x/y#5', namedBy: [k(1), k(2)] },
      { key: 'x/y#6', namedBy: [k(2)] },
    ]);
  });

  it('reports cycles with their members, sorted', () => {
    const got = run([
      issue(3, { blockedBy: [k(1)] }),
      issue(1, { blockedBy: [k(2)] }),
      issue(2, { blockedBy: [k(3)] }),
      issue(4, { blockedBy: [k(4)] }),
    ]);
    expect(got.cycles).toEqual([{ members: [k(1), k(2), k(3)] }, { members: [k(4)] }]);
  });

  it('an epic is closable only when it has children and all are closed', () => {
    const got = run([
      issue(1, { title: 'Epic A', blockedBy: [k(3)] }),
      issue(2, { title: 'Epic B', children: [k(4)] }),
      issue(3, { state: 'closed' }),
      issue(4),
      issue(5, { title: 'Epic C' }),
    ]);
    expect(got.byKey.get(k(1))).toEqual({ category: 'epic', closable: true, openChildren: [] });
    expect(got.byKey.get(k(2))).toEqual({ category: 'epic', closable: false, openChildren: [k(4)] });
    expect(got.byKey.get(k(5))).toEqual({ category: 'epic', closable: false, openChildren: [] });
  });

  it('counts partition the issues', () => {
    const got = run([issue(1), issue(2, { blockedBy: [k(1)] }), issue(3, { state: 'closed' })]);
    expect(got.counts).toEqual({ ready: 1, blocked: 1, cycle: 0, held: 0, epic: 0, running: 0, done: 1 });
    expect(keysIn(got, 'ready')).toEqual([k(1)]);
  });
});

describe('holds', () => {
  it('takes the reason from the label description, then a hold: line, else says none was given', () => {
    const got = run([
      issue(1, { labels: [{ name: 'hold', description: 'waiting for legal' }] }),
      issue(2, { labels: [{ name: 'Hold' }], body: 'Some text\nhold: vendor API not out yet\n' }),
      issue(3, { labels: [{ name: 'hold' }] }),
    ]);
    expect(got.byKey.get(k(1))).toMatchObject({ kind: 'label', reason: 'waiting for legal' });
    expect(got.byKey.get(k(2))).toMatchObject({ kind: 'label', reason: 'vendor API not out yet' });
    expect(got.byKey.get(k(3))).toMatchObject({ kind: 'label', reason: 'no reason given' });
  });
});

describe('explain', () => {
  it('names open and unknown blockers, cycle members, hold reasons', () => {
    const got = run([
      issue(1, { blockedBy: [k(2), 'ghost/x#1'] }),
      issue(2),
      issue(3, { blockedBy: [k(4)] }),
      issue(4, { blockedBy: [k(3)] }),
      issue(5, { labels: [{ name: 'hold', description: 'waiting for legal' }] }),
      issue(6, { authorTrusted: false }),
    ]);
    expect(explain(got, k(1))).toBe(
      'acme/app#1 is not ready because it is blocked by open acme/app#2 and its blocker ghost/x#1 cannot be found or read.',
    );
    expect(explain(got, k(2))).toBe('acme/app#2 is ready: every blocker is closed.');
    expect(explain(got, k(3))).toBe(
      'acme/app#3 is not ready because it is in a dependency cycle with acme/app#4.',
    );
    expect(explain(got, k(5))).toBe('acme/app#5 is held: waiting for legal.');
    expect(explain(got, k(6))).toContain('does not have write permission');
    expect(explain(got, 'nope/x#1')).toBe('nope/x#1 is not an issue of this milestone.');
  });
});

describe('gates', () => {
  it('the planning gate opens on an approved plan, the execution gate only on closed blockers', () => {
    const g = buildGraph([
      issue(1, { labels: [{ name: 'plan/approved' }] }),
      issue(2),
      issue(3, { blockedBy: [k(1)] }),
      issue(4, { blockedBy: [k(2)] }),
      issue(5, { blockedBy: ['gone/x#1'] }),
    ]);
    expect(planningGate(g, k(3))).toEqual({ open: true, waitingOn: [], unknown: [] });
    expect(executionGate(g, k(3))).toEqual({ open: false, waitingOn: [k(1)], unknown: [] });
    expect(planningGate(g, k(4)).open).toBe(false);
    expect(planningGate(g, k(5))).toEqual({ open: false, waitingOn: [], unknown: ['gone/x#1'] });
  });

  it('under the planning gate an issue with an approved plan is done and its dependents may be planned', () => {
    const got = classify(
      buildGraph([issue(1, { labels: [{ name: 'plan/approved' }] }), issue(2, { blockedBy: [k(1)] })]),
      {
        gate: 'planning',
      },
    );
    expect(got.byKey.get(k(1))?.category).toBe('done');
    expect(got.byKey.get(k(2))?.category).toBe('ready');
  });
});
