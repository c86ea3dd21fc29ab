import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  environmentWait,
  type MemberAnswer,
  type MemberFacts,
  type MemberOp,
  memberStep,
} from './plan-member.ts';

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

  it('ships an XS until the forge refuses its merge, then lands it refused with the forge’s reason', () => {
    const shipping = member({ size: 'XS', state: 'shipping', attempts: [solved] });
    expect(memberStep(shipping, 0, 0)).toEqual([{ op: 'ship', attempt: 'a1' }]);
    const refused = { attempt: 'a1', planner: 'w', shipRefused: { pr: 7, reason: 'merge conflict' } };
    expect(memberStep({ ...shipping, answer: refused }, 0, 0)).toEqual([
      {
        op: 'land',
        outcome: { landing: 'refused', size: 'XS', note: 'its PR #7 could not be merged: merge conflict' },
      },
    ]);
    // A refusal recorded for an earlier attempt says nothing about this one's PR.
    expect(memberStep({ ...shipping, answer: { ...refused, attempt: 'a0' } }, 0, 0)).toEqual([
      { op: 'ship', attempt: 'a1' },
    ]);
  });

  it('sends an XS whose PR conflicts back to its worker’s session, waits for it, and refuses only after the tries', () => {
    const shipping = member({ size: 'XS', state: 'shipping', attempts: [solved] });
    const conflict = {
      attempt: 'a1',
      planner: 'w',
      shipRefused: { pr: 7, reason: 'its PR #7 conflicts with main', conflict: true },
    };
    expect(memberStep({ ...shipping, answer: conflict }, 0, 0)).toEqual([
      { op: 'resume_conflict', attempt: 'a1', try: 1 },
    ]);
    // The session runs, or its resume has not started on its host: nothing is shipped meanwhile.
    const running = { ...shipping, attempts: [{ id: 'a1', retry: 0 }], conflictResumes: 1 };
    expect(memberStep(running, 0, 0)).toEqual([]);
    expect(memberStep({ ...shipping, conflictResumes: 1, conflictResume: 'pending' }, 0, 0)).toEqual([]);
    // Resolved: shipped again.
    expect(memberStep({ ...shipping, conflictResumes: 1 }, 0, 0)).toEqual([{ op: 'ship', attempt: 'a1' }]);
    // A session that did not resolve it gets the next try, then the member is refused for a person.
    const failed = { ...shipping, attempts: [{ id: 'a1', retry: 0, outcome: 'unsolved' as const }] };
    expect(memberStep({ ...failed, conflictResumes: 1 }, 0, 0)).toEqual([
      { op: 'resume_conflict', attempt: 'a1', try: 2 },
    ]);
    expect(landing(memberStep({ ...failed, conflictResumes: 2 }, 0, 0))).toEqual({
      landing: 'refused',
      size: 'XS',
      note: 'the conflict with the default branch is not resolved, and its worker did not resolve it in 2 tries',
    });
  });

  it('counts an XS conflict resume that never started on its host as a spent try, not a wait forever', () => {
    const shipping = member({ size: 'XS', state: 'shipping', attempts: [solved] });
    expect(memberStep({ ...shipping, conflictResumes: 1, conflictResume: 'lapsed' }, 0, 0)).toEqual([
      { op: 'resume_conflict', attempt: 'a1', try: 2 },
    ]);
    expect(landing(memberStep({ ...shipping, conflictResumes: 2, conflictResume: 'lapsed' }, 0, 0))).toEqual({
      landing: 'refused',
      size: 'XS',
      note: "its worker's conflict resume did not start within 30 minutes, and its worker did not resolve it in 2 tries",
    });
  });

  it('closes, cleans up and lands a merged XS with its merge, though the merge already closed it', () => {
    const shipping = member({ size: 'XS', state: 'shipping', attempts: [solved] });
    const merged = { attempt: 'a1', planner: 'w', shipped: { pr: 7, sha: 'abc', reviewed: true } };
    const closes = [
      { op: 'close', pr: 7, sha: 'abc' },
      { op: 'clean_up', attempt: 'a1', pr: 7 },
      { op: 'land', outcome: { landing: 'closed', size: 'XS', mergeSha: 'abc' } },
    ];
    expect(memberStep({ ...shipping, answer: merged }, 0, 0)).toEqual(closes);
    // GitHub closes a 'Resolves #n' issue on the merge: still the merge's landing, not a person's close.
    expect(memberStep({ ...shipping, open: false, answer: merged }, 0, 0)).toEqual(closes);
    const unreviewed = { ...merged, shipped: { pr: 7, reviewed: false } };
    expect(landing(memberStep({ ...shipping, answer: unreviewed }, 0, 0))).toEqual({
      landing: 'closed',
      size: 'XS',
      note: 'merged without a review leg: no review module is wired',
    });
    // A merge recorded for an earlier attempt is not this one's: shipped again, or closed by a person.
    expect(memberStep({ ...shipping, answer: { ...merged, attempt: 'a0' } }, 0, 0)).toEqual([
      { op: 'ship', attempt: 'a1' },
    ]);
    expect(
      landing(memberStep({ ...shipping, open: false, answer: { ...merged, attempt: 'a0' } }, 0, 0))?.note,
    ).toBe('closed on the tracker during the wave');
  });
});

it('reads a merge under way from the PR: merged → landed with its merge commit, not merged → shipped again', () => {
  const shipping = member({ size: 'XS', state: 'shipping', attempts: [solved] });
  const underWay = { attempt: 'a1', planner: 'w', merging: { pr: 7, reviewed: true } };
  const closes = [
    { op: 'close', pr: 7, sha: 'def' },
    { op: 'clean_up', attempt: 'a1', pr: 7 },
    { op: 'land', outcome: { landing: 'closed', size: 'XS', mergeSha: 'def' } },
  ];
  const merged = { pr: 7, merged: true, sha: 'def' };
  // The bot stopped between the merge and its record; the merge closed the issue on GitHub.
  expect(memberStep({ ...shipping, open: false, answer: underWay, merge: merged }, 0, 0)).toEqual(closes);
  expect(memberStep({ ...shipping, answer: underWay, merge: merged }, 0, 0)).toEqual(closes);
  // Not merged (or another PR read): the ship is asked again; closed by a person: landed as theirs.
  const open = { pr: 7, merged: false };
  expect(memberStep({ ...shipping, answer: underWay, merge: open }, 0, 0)).toEqual([
    { op: 'ship', attempt: 'a1' },
  ]);
  expect(memberStep({ ...shipping, answer: underWay, merge: { ...merged, pr: 8 } }, 0, 0)).toEqual([
    { op: 'ship', attempt: 'a1' },
  ]);
  expect(landing(memberStep({ ...shipping, open: false, answer: underWay, merge: open }, 0, 0))?.note).toBe(
    'closed on the tracker during the wave',
  );
  // A merge under way for an earlier attempt is not this one's.
  expect(memberStep({ ...shipping, answer: { ...underWay, attempt: 'a0' }, merge: merged }, 0, 0)).toEqual([
    { op: 'ship', attempt: 'a1' },
  ]);
});

/** A member whose solved attempt `a1` answered `answer` (its phase's state given). */
const answered = (
  state: string,
  answer: Omit<MemberAnswer, 'attempt' | 'planner'>,
  over: Partial<MemberFacts> = {},
) => member({ state, attempts: [solved], answer: { attempt: 'a1', planner: 'p', ...answer }, ...over });
const step = (m: MemberFacts) => memberStep(m, 0, 0);

describe('a pushed plan, once its answer is recorded', () => {
  it('is read first: no answer, or an answer for another attempt, asks for the read and nothing else', () => {
    expect(step(member({ state: 'planning', attempts: [solved] }))).toEqual([
      { op: 'read_plan', attempt: 'a1' },
    ]);
    const stale = answered('planning', { plan: 'old plan' }, { attempts: [{ ...solved, id: 'a2' }] });
    expect(step(stale)).toEqual([{ op: 'read_plan', attempt: 'a2' }]);
    expect(step({ ...stale, state: 'reviewing' })).toEqual([{ op: 'read_plan', attempt: 'a2' }]);
  });

  it('labels a sized issue and takes its lane: S → spec and plan/ready, M → draft, then its review', () => {
    const s = step(answered('sizing', { plan: 'SIZE: S\nDo it.' }));
    expect(s[0]).toEqual({ op: 'add_labels', labels: ['size/S'] });
    expect(s[1]).toEqual({ op: 'comment', status: 'spec', size: 'S', plan: 'SIZE: S\nDo it.', planner: 'p' });
    expect(landing(s)).toEqual({ landing: 'ready', size: 'S' });
    const m = step(answered('planning', { plan: 'plan' }, { size: 'M' }));
    expect(ops(m)).toEqual(['comment', 'add_labels', 'enter', 'review']);
    expect(m.at(-1)).toEqual({ op: 'review', size: 'M', attempt: 'a1', plan: 'plan' });
  });

  it('sends a sized XS to a worker when its gate is open, else marks it ready', () => {
    expect(step(answered('sizing', { plan: 'SIZE: XS' })).at(-1)).toEqual({ op: 'enter', phase: 'coding' });
    expect(landing(step(answered('sizing', { plan: 'SIZE: XS' }, { executionOpen: false })))?.landing).toBe(
      'ready',
    );
  });

  it('approves a fixed plan with the findings it applied, and refuses what has no plan or no size', () => {
    const fixed = step(answered('fixing', { plan: 'plan v2' }, { size: 'L', findings: 'add tests' }));
    expect(fixed[0]).toEqual({
      op: 'comment',
      status: 'approved',
      size: 'L',
      plan: 'plan v2',
      planner: 'p',
      reviews: [{ reviewer: 'the reviewers', verdict: 'blocked', findings: 'add tests' }],
    });
    expect(landing(fixed)).toEqual({ landing: 'approved', size: 'L' });
    expect(landing(step(answered('planning', {})))?.note).toBe('the planner pushed no PLAN.md');
    expect(landing(step(answered('sizing', { plan: 'no size here' })))?.note).toBe(
      'the planner did not give the issue a size',
    );
    expect(landing(step(answered('reviewing', {}, { size: 'M' })))?.note).toBe('the plan to review is gone');
  });
});

describe('a plan under review', () => {
  const review = (verdict: 'approved' | 'blocked' | 'pivot', findings = 'x') => ({
    reviewer: 'r',
    verdict,
    findings,
  });
  const verdict = (r: MemberAnswer['review'], size: MemberFacts['size'] = 'M') =>
    step(answered('reviewing', { plan: 'plan', ...(r ? { review: r } : {}) }, { size }));

  it('goes to its reviewers while their answer is not recorded, with the size a sizing planner gave', () => {
    expect(verdict(undefined)).toEqual([{ op: 'review', size: 'M', attempt: 'a1', plan: 'plan' }]);
    const sized = step(answered('reviewing', { plan: 'SIZE: L\nThe plan.' }));
    expect(sized).toEqual([{ op: 'review', size: 'L', attempt: 'a1', plan: 'SIZE: L\nThe plan.' }]);
  });

  it('approves, pivots, sends BLOCKED findings back to the planner, and refuses no verdict', () => {
    expect(landing(verdict({ verdict: 'approved', reviews: [review('approved')], failures: [] }))).toEqual({
      landing: 'approved',
      size: 'M',
    });
    expect(verdict({ verdict: 'pivot', reviews: [review('pivot')], failures: [] })).toEqual([
      { op: 'pivot', size: 'M', reviews: [review('pivot')], plan: 'plan', planner: 'p' },
    ]);
    const blocked = verdict(
      {
        verdict: 'blocked',
        reviews: [review('blocked', 'one'), review('approved', 'fine'), review('blocked', 'two')],
        failures: [],
      },
      'L',
    );
    expect(blocked.at(-1)).toEqual({ op: 'enter', phase: 'fixing', feedback: 'one\ntwo' });
    expect(landing(verdict({ verdict: 'no_review', reviews: [], failures: ['slow timed out'] }))).toEqual({
      landing: 'refused',
      size: 'M',
      note: 'no reviewer could review it (slow timed out)',
    });
    expect(landing(verdict({ verdict: 'unclear', reviews: [], failures: [] }))?.note).toBe(
      'the reviewers answered without a verdict',
    );
  });
});

describe('a member whose worker ends on an environment failure', () => {
  // Before: an environment failure was a failed attempt, and the member was refused for good.
  const down = (id: string, endedAt: string) => ({
    id,
    outcome: 'environment_failure' as const,
    retry: 0,
    failureSummary: 'Environment failure: model endpoint unreachable',
    endedAt,
  });
  const at = (n: number, over: Partial<MemberFacts>) =>
    memberStep(member({ size: 'M', state: 'planning', dispatches: n, firstTries: n, ...over }), 1, 0);

  it('waits out the backoff, then starts its planner again, never while a dispatch is queued', () => {
    const once = [down('a1', '2026-12-04T06:00:00.000Z')];
    // The first backoff is 60 s (plan/environment-park.ts), doubling.
    expect(at(1, { attempts: once, now: '2026-12-04T06:00:59.000Z' })).toEqual([]);
    expect(at(1, { attempts: once, now: '2026-12-04T06:01:00.000Z' })).toEqual([
      { op: 'attempt', phase: 'planning' },
    ]);
    expect(at(1, { attempts: once, now: '2026-12-04T07:00:00.000Z', dispatches: 2 })).toEqual([]);
    expect(
      memberStep(
        member({ size: 'M', state: 'planning', attempts: once, dispatches: 1, firstTries: 1 }),
        0,
        0,
      ),
    ).toEqual([]);
    const twice = [...once, down('a2', '2026-12-04T06:02:00.000Z')];
    expect(at(2, { attempts: twice, now: '2026-12-04T06:03:59.000Z' })).toEqual([]);
    expect(ops(at(2, { attempts: twice, now: '2026-12-04T06:04:00.000Z' }))).toEqual(['attempt']);
  });

  it('names the wait on the dashboard while it lasts, and nothing once the worker runs again or it is parked', () => {
    const once = [down('a1', '2026-12-04T06:00:00.000Z')];
    expect(environmentWait({ state: 'planning', attempts: once })).toBe(
      'waiting: environment failure 1 of 3 in a row; starts again at 2026-12-04 06:01 UTC',
    );
    expect(
      environmentWait({ state: 'planning', attempts: [...once, { id: 'a2', retry: 0 }] }),
    ).toBeUndefined();
    expect(environmentWait({ state: 'planning', attempts: [once[0]!, once[0]!, once[0]!] })).toBeUndefined();
  });

  it('after three in a row lands parked, and tells the people on the run the command that continues it', () => {
    const three = [
      down('a1', '2026-12-04T06:00:00.000Z'),
      down('a2', '2026-12-04T06:02:00.000Z'),
      down('a3', '2026-12-04T06:06:00.000Z'),
    ];
    const got = at(3, { attempts: three, now: '2026-12-04T08:00:00.000Z' });
    expect(ops(got)).toEqual(['notify', 'land']);
    const note =
      'parked: its planner hit an environment failure 3 times in a row (last: Environment failure: model endpoint unreachable); once the environment is back, /plan-blitz #1 plans it again';
    expect(got[0]).toEqual({
      op: 'notify',
      key: 'plan-parked:o/r#1:a3',
      message: `#1 is ${note}`,
      command: '/plan-blitz #1',
    });
    expect(landing(got)).toEqual({ landing: 'parked', size: 'M', note });
    // A failure of the issue's own between them restarts nothing: the last one decides.
    const mixed = [three[0]!, { id: 'a2', outcome: 'unsolved' as const, retry: 0 }, three[2]!];
    expect(ops(at(3, { attempts: mixed, now: '2026-12-04T08:00:00.000Z' }))).toEqual(['attempt']);
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
    // Ids are unique, as the ledger's are: a repeated id made a live attempt and a solved one the same.
    attempts: fc.uniqueArray(
      fc.record({ id: fc.constantFrom('a1', 'a2', 'a3', 'a4'), outcome, retry: fc.nat(3) }),
      { selector: (a) => a.id, maxLength: 4 },
    ),
    dispatches: fc.nat(4),
    firstTries: fc.nat(4),
    answer: fc.option(
      fc.record(
        {
          attempt: fc.constantFrom('a1', 'a2'),
          planner: fc.constant('p'),
          plan: fc.constantFrom('SIZE: XS', 'SIZE: M\nplan', 'plan'),
          review: fc.record({
            verdict: fc.constantFrom('approved', 'blocked', 'pivot', 'unclear', 'no_review'),
            reviews: fc.constant([]),
            failures: fc.constant([]),
          }),
          shipped: fc.record(
            { pr: fc.nat(9), sha: fc.constant('abc'), reviewed: fc.boolean() },
            { requiredKeys: ['pr', 'reviewed'] },
          ),
          shipRefused: fc.record({ pr: fc.nat(9), reason: fc.constant('conflict') }),
          merging: fc.record({ pr: fc.nat(9), reviewed: fc.boolean() }),
        },
        { requiredKeys: ['attempt', 'planner'] },
      ),
      { nil: undefined },
    ),
    merge: fc.option(
      fc.record(
        { pr: fc.nat(9), merged: fc.boolean(), sha: fc.constant('def') },
        { requiredKeys: ['pr', 'merged'] },
      ),
      { nil: undefined },
    ),
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
        const last = m.attempts.filter((a) => a.outcome === 'solved').at(-1);
        const shipAnswer =
          m.state === 'shipping' && last && m.answer?.attempt === last.id ? m.answer : undefined;
        // A merge under way for the attempt it names, whose PR the pass read merged, is that merge.
        const readMerged =
          shipAnswer?.merging &&
          !shipAnswer.shipRefused &&
          m.merge?.merged &&
          m.merge.pr === shipAnswer.merging.pr
            ? { pr: m.merge.pr, sha: m.merge.sha }
            : undefined;
        const merge = shipAnswer?.shipped ?? readMerged;
        // A merge recorded (or read) for the attempt it names lands the member closed with its size and
        // merge, open on the tracker or not, after closing and cleaning up; it is never shipped again.
        if (merge) {
          const { pr, sha } = merge;
          expect(ops(got)).toEqual(['close', 'clean_up', 'land']);
          expect(got[1]).toEqual({ op: 'clean_up', attempt: last!.id, pr });
          expect(landing(got)).toMatchObject({ landing: 'closed', size: 'XS' });
          expect(landing(got)?.mergeSha).toBe(sha);
        } else if (m.open && shipAnswer?.merging && !shipAnswer.shipRefused) {
          // A merge under way whose PR is not merged is asked again.
          expect(got).toEqual([{ op: 'ship', attempt: last!.id }]);
        } else if (m.open && shipAnswer?.shipRefused) {
          // A refused ship for the attempt it names lands the member; it is never shipped again.
          expect(landing(got)?.landing).toBe('refused');
          expect(got.some((o) => o.op === 'ship')).toBe(false);
        }
        // Only a merge recorded, or read from the PR of one under way, closes the issue or cleans up.
        if (!merge) expect(got.some((o) => o.op === 'close' || o.op === 'clean_up')).toBe(false);
        // A question to the world ends its step: what the answer means is the next pass's to decide.
        const asks = got.findIndex((o) => o.op === 'read_plan' || o.op === 'review' || o.op === 'ship');
        if (asks >= 0) {
          expect(asks).toBe(got.length - 1);
          expect(lands).toHaveLength(0);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
