import { describe, expect, it } from 'vitest';
import { silentLogger } from '../observability/logger.ts';
import { rosterEntryFor } from '../runner/roster-entry.ts';
import type { AttemptRecord, RunnerJob } from '../runner/types.ts';
import type { RunStore } from '../store/run-store.ts';
import { dispatchAttempt } from './dispatch-attempt.ts';
import { createDispatcher, type DispatchWrites } from './dispatcher.ts';
import { InProcessQueue } from './in-process-queue.ts';

const entry = rosterEntryFor([], { name: 'default-sonnet' });
const job = (n: number): Extract<RunnerJob, { kind: 'attempt' }> => ({
  kind: 'attempt',
  runId: 'run-1',
  issue: { repo: { owner: 'o', name: 'r' }, number: n },
  title: `issue ${n}`,
  body: '',
  branchStyle: 'blitz',
  runSlug: 'm1',
  baseBranch: 'blitz/m1',
  cloneUrl: 'file:///nowhere',
  entry,
  tier: 'execution',
});

const setup = (ledger: Partial<AttemptRecord>[]) => {
  const rows: string[] = [];
  const built: number[] = [];
  const store = {
    async upsertRunIssue(runId, repo, number, patch) {
      rows.push(`${runId} ${repo}#${number} ${patch.state}`);
      return { runId, repo, number, state: patch.state ?? 'ready', attempts: 1 } as never;
    },
  } satisfies DispatchWrites;
  const deps = {
    ledger: { listByRun: async () => ledger as AttemptRecord[] },
    dispatcher: createDispatcher({
      queue: new InProcessQueue(),
      store: store as unknown as RunStore,
      localHost: 'bot',
    }),
    logger: silentLogger(),
  };
  const order = (n: number) => ({
    runId: 'run-1',
    issue: `o/r#${n}`,
    attemptNo: 1,
    job: async () => {
      built.push(n);
      return job(n);
    },
    record: (w: DispatchWrites) => w.upsertRunIssue('run-1', 'o/r', n, { state: 'dispatched' }),
  });
  return { rows, built, deps, order };
};

describe('the one dispatch path', () => {
  it('sends an attempt with its record once; a twin and an issue with a live worker send nothing', async () => {
    const live = { id: 'a1', issue: { repo: { owner: 'o', name: 'r' }, number: 2 } };
    const x = setup([live]);
    expect(await dispatchAttempt(x.deps, x.order(1))).toBe(true);
    expect(await dispatchAttempt(x.deps, x.order(1))).toBe(false);
    // Issue 2 has a worker on it (no outcome yet): the job is not even built.
    expect(await dispatchAttempt(x.deps, x.order(2))).toBe(false);
    expect(x.rows).toEqual(['run-1 o/r#1 dispatched']);
    expect(x.built).toEqual([1, 1]);
    // A finished attempt does not hold the issue.
    const done = setup([{ ...live, outcome: 'unsolved' }]);
    expect(await dispatchAttempt(done.deps, done.order(2))).toBe(true);
  });
});

describe('the roster entry of a pick', () => {
  it('is the operator’s entry, else the built-in default of that name, else the pick itself', () => {
    const mine = { ...entry, name: 'mine', model: 'opus' };
    expect(rosterEntryFor([mine], { name: 'mine' })).toBe(mine);
    expect(rosterEntryFor([mine], { name: 'default-sonnet' })).toMatchObject({ tool: 'claude' });
    const override = {
      name: 'x',
      tool: 'codex' as const,
      roles: ['blitz' as const],
      tiers: ['execution' as const],
    };
    expect(rosterEntryFor([mine], override)).toEqual(override);
    expect(() => rosterEntryFor([mine], { name: 'nobody' })).toThrow();
  });
});
