// `unblock`: the blocker issue is closed the one way (close-issue.ts), so one a person already closed
// gets no second comment, and the hard blocker leaves the run either way.
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import type { Forge, IssueRef } from '../forges/types.ts';
import { silentLogger } from '../observability/logger.ts';
import type { BlockCause } from '../plan/block-cause.ts';
import { blockReasonOf } from '../plan/block-cause.ts';
import type { Notifier, RunNotice } from '../ship/notice.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { blockRun, unblockRun } from './hard-blocker-run.ts';
import { writeProgress } from './run-writer.ts';

const setup = async (blockerState: 'open' | 'closed') => {
  const store = openSqliteRunStore(':memory:');
  await store.createRun({ ...newRun('r1'), state: 'running', triggerIssue: 7 });
  await writeProgress(store, 'r1', () => ({
    reason: 'the forge refused the bot',
    hardBlocker: { reason: 'the forge refused the bot', since: '2026-12-03T00:00:00Z', issue: 9 },
  }));
  const closes: { ref: IssueRef; comment: string | undefined }[] = [];
  const forge = {
    kind: 'github',
    getIssue: async (ref: IssueRef) => ({ ref, state: blockerState }),
    closeIssue: async (ref: IssueRef, o: { comment?: string } = {}) => {
      closes.push({ ref, comment: o.comment });
    },
  } as unknown as Forge;
  const deps = { store, forges: async () => forge, logger: silentLogger() };
  return { store, deps, closes };
};

describe('unblockRun', () => {
  it('closes an open blocker issue with its comment and lifts the blocker', async () => {
    const { store, deps, closes } = await setup('open');
    await unblockRun(deps, 'r1');
    expect(closes).toEqual([
      {
        ref: { repo: { owner: 'acme', name: 'app' }, number: 9 },
        comment: expect.stringContaining('resumed'),
      },
    ]);
    const run = (await store.getRun('r1'))!;
    expect(run.progress.hardBlocker).toBeUndefined();
    expect(run.progress.reason).toBeUndefined();
  });

  it('leaves a blocker issue a person closed already alone, and still lifts the blocker', async () => {
    const { store, deps, closes } = await setup('closed');
    await unblockRun(deps, 'r1');
    expect(closes).toEqual([]);
    expect((await store.getRun('r1'))!.progress.hardBlocker).toBeUndefined();
  });
});

describe('blockRun', () => {
  // A fleet run files no blocker issue: what is tried here is the run write and the notice alone.
  const blocked = async () => {
    const store = openSqliteRunStore(':memory:');
    await store.createRun({ ...newRun('r1'), kind: 'fleet', state: 'running' });
    const sent: RunNotice[] = [];
    const notifier: Notifier = {
      target: 'ops',
      events: new Set(['blocked']),
      notify: async (n) => {
        sent.push(n);
        return { ok: true, target: 'ops', attempts: 1 };
      },
    };
    const deps = {
      store,
      notifiers: [notifier],
      forges: async () => {
        throw new Error('a fleet blocker touches no forge');
      },
      clock: { now: () => new Date('2026-12-07T10:00:00Z') },
      logger: silentLogger(),
      config: {},
      baseEnv: {},
    } as unknown as Parameters<typeof blockRun>[0];
    const block = (cause: BlockCause) =>
      blockRun(deps, 'r1', { type: 'block', reason: blockReasonOf(cause), cause });
    return { store, sent, block, deps };
  };

  it('the same refusal worded anew by the forge is one blocker: written and said once', async () => {
    const { store, sent, block } = await blocked();
    await block({ kind: 'forge_refused', refusal: 'credentials', detail: 'Bad credentials' });
    const first = (await store.getRun('r1'))!;
    // Tried: a second pass whose 401 carries other words (a request id); matching words would say it again.
    await block({ kind: 'forge_refused', refusal: 'credentials', detail: 'Bad credentials (request 7f3a)' });
    const second = (await store.getRun('r1'))!;
    expect(sent).toHaveLength(1);
    expect(second.state).toBe('blocked');
    expect(second.version).toBe(first.version);
    expect(second.progress.reason).toBe("the forge refused the bot's credentials: Bad credentials");
  });

  it('two blockers in the same words are two: the second is written and said', async () => {
    const { store, sent, deps } = await blocked();
    const words = 'the agent CLI `claude` (roster entry e) is not installed';
    const on = (host: BlockCause & { kind: 'missing_tool' }) =>
      blockRun(deps, 'r1', { type: 'block', reason: words, cause: host });
    await on({ kind: 'missing_tool', tool: 'claude', entry: 'e', host: { host: 'a' } });
    // Tried: the same sentence for another cause (runner `a`, not host `a`); matching words would say nothing.
    await on({ kind: 'missing_tool', tool: 'claude', entry: 'e', host: { runner: 'a' } });
    expect(sent).toHaveLength(2);
    expect((await store.getRun('r1'))!.progress.hardBlocker?.cause).toEqual({
      kind: 'missing_tool',
      tool: 'claude',
      entry: 'e',
      host: { runner: 'a' },
    });
  });
});
