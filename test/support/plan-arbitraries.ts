// Builders and generators shared by the planner's tests (not shipped code paths): plain issues,
// random dependency graphs for fast-check, and a small run simulator that performs nextActions'
// actions on a snapshot the way a well-behaved orchestrator would.
import fc from 'fast-check';
import { nextActions } from '../../src/plan/next-actions.ts';
import type { Action, IssueProgress, RunSnapshot } from '../../src/plan/snapshot.ts';
import type { RunState } from '../../src/plan/states.ts';
import type { PlanIssue } from '../../src/plan/types.ts';
import { issueKey, keyOf } from '../../src/plan/types.ts';

export const repo = 'acme/app';
export const k = (n: number): string => issueKey(repo, n);

export const issue = (n: number, over: Partial<PlanIssue> = {}): PlanIssue => ({
  repo,
  number: n,
  title: `Issue ${n}`,
  body: `Fix the thing in \`src/f${n}.ts\`: the root cause is a typo; change it to the right word.`,
  labels: [],
  state: 'open',
  authorTrusted: true,
  createdAt: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}Z`,
  blockedBy: [],
  children: [],
  ...over,
});

/** Random graph over issues 1..n; `dag` keeps every edge pointing to a lower number. */
export const graphArb = (opts: { dag: boolean; maxN?: number }) =>
  fc
    .integer({ min: 1, max: opts.maxN ?? 12 })
    .chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.array(fc.tuple(fc.integer({ min: 1, max: n }), fc.integer({ min: 1, max: n })), {
          maxLength: n * 2,
        }),
        closed: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
        unknown: fc.array(fc.integer({ min: 1, max: n }), { maxLength: 2 }),
      }),
    )
    .map(({ n, edges, closed, unknown }) => {
      const issues: PlanIssue[] = [];
      for (let i = 1; i <= n; i++) {
        const blockedBy = edges.filter(([a, b]) => a === i && (!opts.dag || b < a)).map(([, b]) => k(b));
        for (const u of unknown) if (u === i) blockedBy.push('ghost/repo#1');
        issues.push(issue(i, { blockedBy, state: closed[i - 1] ? 'closed' : 'open' }));
      }
      return issues;
    });

export const baseSnapshot = (issues: PlanIssue[], over: Partial<RunSnapshot> = {}): RunSnapshot => ({
  kind: 'blitz',
  options: { maxSessions: 4, dryRun: false },
  milestoneTitle: 'M1',
  milestoneDescription: '',
  changedFiles: [],
  issues,
  external: [],
  progress: [],
  budget: { verdict: 'ok', recommendedMaxSessions: 4, preferMedium: false },
  machine: { limit: 4, contended: false },
  build: { status: 'none', covers: [], failures: 0 },
  smoke: 'none',
  ship: 'none',
  roster: [],
  ...over,
});

export const progressOf = (key: string, over: Partial<IssueProgress> = {}): IssueProgress => ({
  key,
  state: 'dispatched',
  attempts: [],
  branchPushed: false,
  reviewPosted: false,
  ...over,
});

export interface SimResult {
  /** Actions of each call, in order. */
  calls: Action[][];
  final: RunSnapshot;
  stop?: Extract<Action, { type: 'stop' }>;
  dispatches: Map<string, number>;
}

/** Decides whether a worker's attempt fails (by issue and attempt number); default: never. */
export type FailWhen = (key: string, attempt: number) => boolean;

/** Applies one call's actions; workers finish (push, or fail) right after their dispatch call. */
export const applyActions = (
  snap: RunSnapshot,
  actions: readonly Action[],
  fail: FailWhen = () => false,
): RunSnapshot => {
  const progress = new Map(snap.progress.map((p) => [p.key, { ...p }]));
  const issues = new Map(snap.issues.map((i) => [keyOf(i), { ...i }]));
  let { build, smoke, ship } = snap;
  for (const a of actions) {
    switch (a.type) {
      case 'dispatch': {
        const prev = progress.get(a.issue);
        progress.set(a.issue, {
          ...progressOf(a.issue),
          attempts: [...(prev?.attempts ?? []), { entry: a.worker.entry.name, tier: a.worker.tier }],
        });
        break;
      }
      case 'open_pr': {
        const p = progress.get(a.issue)!;
        progress.set(a.issue, {
          ...p,
          state: 'pr_open',
          pr: { number: 1000 + progress.size, merged: false },
        });
        break;
      }
      case 'review':
        progress.set(a.issue, { ...progress.get(a.issue)!, state: 'reviewed', reviewPosted: true });
        break;
      case 'merge': {
        const p = progress.get(a.issue)!;
        progress.set(a.issue, { ...p, state: 'merged', pr: { number: p.pr!.number, merged: true } });
        break;
      }
      case 'run_build':
        build = { status: 'passed', covers: a.covers, failures: 0 };
        break;
      case 'close_issue':
      case 'close_epic':
        issues.set(a.issue, { ...issues.get(a.issue)!, state: 'closed' });
        if (progress.has(a.issue)) progress.set(a.issue, { ...progress.get(a.issue)!, state: 'closed' });
        break;
      case 'run_smoke':
        smoke = 'passed';
        break;
      case 'ship':
        ship = 'passed';
        break;
      default:
        break;
    }
  }
  // Workers dispatched earlier finish now: branch pushed and solved, or failed.
  for (const [key, p] of progress)
    if (p.state === 'dispatched' && !actions.some((a) => a.type === 'dispatch' && a.issue === key)) {
      const failed = fail(key, p.attempts.length);
      const outcome = failed ? ('unsolved' as const) : ('solved' as const);
      const attempts = p.attempts.map((x, i) => (i === p.attempts.length - 1 ? { ...x, outcome } : x));
      if (failed) progress.set(key, { ...p, state: 'failed', attempts });
      else progress.set(key, { ...p, state: 'pushed', branchPushed: true, attempts });
    }
  return { ...snap, issues: [...issues.values()], progress: [...progress.values()], build, smoke, ship };
};

/** Runs nextActions and applies its actions until a stop; `onCall` sees each call's input and output. */
export const simulate = (
  start: RunSnapshot,
  opts: { maxCalls?: number; fail?: FailWhen; onCall?: (snap: RunSnapshot, actions: Action[]) => void } = {},
): SimResult => {
  const maxCalls = opts.maxCalls ?? 500;
  let snap = start;
  const calls: Action[][] = [];
  const dispatches = new Map<string, number>();
  let state: RunState = 'running';
  for (let i = 0; i < maxCalls; i++) {
    const actions = nextActions(state, snap);
    calls.push(actions);
    opts.onCall?.(snap, actions);
    for (const a of actions)
      if (a.type === 'dispatch') dispatches.set(a.issue, (dispatches.get(a.issue) ?? 0) + 1);
    const stop = actions.find((a): a is Extract<Action, { type: 'stop' }> => a.type === 'stop');
    snap = applyActions(snap, actions, opts.fail);
    if (stop) {
      state = stop.state;
      return { calls, final: snap, stop, dispatches };
    }
  }
  return { calls, final: snap, dispatches };
};
