import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterPlan, afterReview, type MemberFacts, type MemberOp, memberStep } from './plan-member.ts';

const member = (over: Partial<MemberFacts> = {}): MemberFacts => ({
  key: 'o/r#1',
  open: true,
  state: 'queued',
  executionOpen: true,
  attempts: [],
  dispatches: 0,
  firstTries: 0,
  ...over,
});
const solved = { id: 'a1', outcome: 'solved' as const, retry: 0 };
const ops = (xs: MemberOp[]) => xs.map((o) => o.op);
const landing = (xs: MemberOp[]) => xs.flatMap((o) => (o.op === 'land' ? [o.outcome] : []))[0];

describe('a plan-wave member’s step (memberStep)', () => {
  it('starts each lane by its size: unsized → sizing, XS → coding, S/M/L → planning', () => {
    expect(memberStep(member(), 1, 0)).toEqual([
      { op: 'enter', phase: 'sizing' },
      { op: 'attempt', phase: 'sizing' },
    ]);
    expect(memberStep(member({ size: 'XS' }), 1, 0)[0]).toEqual({ op: 'enter', phase: 'coding' });
    expect(memberStep(member({ size: 'M' }), 1, 0)[0]).toEqual({ op: 'enter', phase: 'planning' });
  });

  it('marks an XS whose blockers are open execution-ready without a slot, and starts nothing without one', () => {
    const xs = memberStep(member({ size: 'XS', executionOpen: false }), 0, 0);
    expect(ops(xs)).toEqual(['add_labels', 'land']);
    expect(landing(xs)?.landing).toBe('ready');
    expect(memberStep(member({ size: 'S' }), 0, 0)).toEqual([]);
  });

  it('lands a member closed on the tracker, whatever its phase', () => {
    expect(landing(memberStep(member({ open: false, state: 'planning' }), 1, 0))).toEqual({
      landing: 'closed',
      note: 'closed on the tracker during the wave',
    });
  });

  it('waits on a running attempt and on a dispatch no runner has started; queues one again otherwise', () => {
    expect(memberStep(member({ state: 'planning', attempts: [{ id: 'a1', retry: 0 }] }), 1, 0)).toEqual([]);
    expect(memberStep(member({ state: 'planning', dispatches: 1, firstTries: 0 }), 1, 0)).toEqual([]);
    expect(memberStep(member({ state: 'planning', dispatches: 1, firstTries: 1 }), 1, 0)).toEqual([
      { op: 'attempt', phase: 'planning' },
    ]);
  });

  it('refuses a member whose planner failed, but waits while the runner retries an unsolved one', () => {
    const unsolved = { id: 'a1', outcome: 'unsolved' as const, retry: 0, failureSummary: 'no plan' };
    expect(memberStep(member({ state: 'planning', attempts: [unsolved] }), 1, 1)).toEqual([]);
    expect(landing(memberStep(member({ size: 'M', state: 'planning', attempts: [unsolved] }), 1, 0))).toEqual(
      {
        landing: 'refused',
        size: 'M',
        note: 'its planner finished unsolved: no plan',
      },
    );
  });

  it('reads the plan a planner pushed, ships what a coder pushed, and refuses a lost result', () => {
    expect(memberStep(member({ state: 'planning', attempts: [solved] }), 0, 0)).toEqual([
      { op: 'read_plan', attempt: 'a1' },
    ]);
    expect(memberStep(member({ state: 'coding', attempts: [solved] }), 0, 0)).toEqual([
      { op: 'enter', phase: 'shipping' },
      { op: 'ship', attempt: 'a1' },
    ]);
    expect(landing(memberStep(member({ state: 'reviewing' }), 0, 0))?.note).toBe(
      'its worker result was lost',
    );
  });
});

describe('the rest of a step once its plan is read (afterPlan)', () => {
  it('labels a sized issue and takes its lane: S → spec and plan/ready, M → draft and review', () => {
    const s = afterPlan(member({ state: 'sizing' }), 'SIZE: S\nDo it.');
    expect(s[0]).toEqual({ op: 'add_labels', labels: ['size/S'] });
    expect(landing(s)).toEqual({ landing: 'ready', size: 'S' });
    const m = afterPlan(member({ size: 'M', state: 'planning' }), 'plan');
    expect(ops(m)).toEqual(['comment', 'add_labels', 'enter', 'review']);
  });

  it('sends a sized XS to a worker when its gate is open, else marks it ready', () => {
    expect(afterPlan(member({ state: 'sizing' }), 'SIZE: XS').at(-1)).toEqual({
      op: 'enter',
      phase: 'coding',
    });
    expect(landing(afterPlan(member({ state: 'sizing', executionOpen: false }), 'SIZE: XS'))?.landing).toBe(
      'ready',
    );
  });

  it('approves a fixed plan with the findings it applied, and refuses what has no plan or no size', () => {
    const fixed = afterPlan(member({ size: 'L', state: 'fixing', findings: 'add tests' }), 'plan v2');
    expect(fixed[0]).toEqual({
      op: 'comment',
      status: 'approved',
      size: 'L',
      reviews: [{ reviewer: 'the reviewers', verdict: 'blocked', findings: 'add tests' }],
    });
    expect(landing(fixed)).toEqual({ landing: 'approved', size: 'L' });
    expect(landing(afterPlan(member({ state: 'planning' }), undefined))?.note).toBe(
      'the planner pushed no PLAN.md',
    );
    expect(landing(afterPlan(member({ state: 'sizing' }), 'no size here'))?.note).toBe(
      'the planner did not give the issue a size',
    );
    expect(landing(afterPlan(member({ state: 'reviewing' }), 'plan'))?.note).toBe(
      'the plan to review is gone',
    );
  });
});

describe('the reviewers’ answer (afterReview)', () => {
  const review = (verdict: 'approved' | 'blocked' | 'pivot', findings = 'x') => ({
    reviewer: 'r',
    verdict,
    findings,
  });

  it('approves, pivots, sends BLOCKED findings back to the planner, and refuses no verdict', () => {
    expect(
      landing(afterReview('M', { verdict: 'approved', reviews: [review('approved')], failures: [] })),
    ).toEqual({ landing: 'approved', size: 'M' });
    expect(ops(afterReview('M', { verdict: 'pivot', reviews: [review('pivot')], failures: [] }))).toEqual([
      'pivot',
    ]);
    const blocked = afterReview('L', {
      verdict: 'blocked',
      reviews: [review('blocked', 'one'), review('approved', 'fine'), review('blocked', 'two')],
      failures: [],
    });
    expect(blocked.at(-1)).toEqual({ op: 'enter', phase: 'fixing', feedback: 'one\ntwo' });
    expect(
      landing(afterReview('M', { verdict: 'no_review', reviews: [], failures: ['slow timed out'] })),
    ).toEqual({ landing: 'refused', size: 'M', note: 'no reviewer could review it (slow timed out)' });
  });
});

describe('member steps, for any member', () => {
  const outcome = fc.constantFrom(
    undefined,
    'solved',
    'unsolved',
    'stalled',
    'environment_failure',
    'cancelled',
  );
  const facts = fc.record({
    open: fc.boolean(),
    size: fc.constantFrom(undefined, 'XS', 'S', 'M', 'L'),
    state: fc.constantFrom('queued', 'sizing', 'planning', 'fixing', 'coding', 'reviewing', 'shipping'),
    executionOpen: fc.boolean(),
    attempts: fc.array(
      fc.record({ id: fc.string({ minLength: 1, maxLength: 3 }), outcome, retry: fc.nat(3) }),
      { maxLength: 4 },
    ),
    dispatches: fc.nat(4),
    firstTries: fc.nat(4),
  });
  const clean = <T extends object>(o: T): T =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

  it('start a worker only with a slot, land at most once and last, and never both land and start', () => {
    fc.assert(
      fc.property(facts, fc.nat(3), fc.nat(2), (f, slots, retries) => {
        const m = member(clean({ ...f, attempts: f.attempts.map(clean) }) as Partial<MemberFacts>);
        const got = memberStep(m, slots, retries);
        const lands = got.filter((o) => o.op === 'land');
        if (slots === 0) expect(got.some((o) => o.op === 'attempt')).toBe(false);
        expect(lands.length).toBeLessThanOrEqual(1);
        if (lands.length === 1) {
          expect(got.at(-1)?.op).toBe('land');
          expect(got.some((o) => o.op === 'attempt')).toBe(false);
        }
        if (!m.open) expect(landing(got)?.landing).toBe('closed');
      }),
    );
  });
});
