import { describe, expect, it } from 'vitest';
import type { Logger } from '../observability/logger.ts';
import type { Action, RunSnapshot } from '../plan/snapshot.ts';
import { maxPasses, type Pass, type PassKind, passLoop } from './pass-loop.ts';

const merge: Action = { type: 'merge', issue: 'o/r#1', pr: 11 };
const openPr: Action = { type: 'open_pr', issue: 'o/r#2' };
const probe: Action = { type: 'probe_budget' };
const stop: Action = { type: 'stop', state: 'done', reason: 'all closed', cause: { kind: 'finished' } };
const notice: Action = { type: 'notify', level: 'info', title: 't', message: 'm' };

/** A fake run kind: its passes plan the lists given (then nothing); it records what the loop did. */
const fakeKind = (plans: Action[][], opts: { fails?: Action['type']; endless?: boolean } = {}) => {
  const seen = {
    loads: 0,
    performed: [] as string[],
    published: [] as string[][],
    errors: [] as string[],
    ended: [] as string[],
    warned: [] as string[],
  };
  const logger = {
    error: (fields: { action: string }) => seen.errors.push(fields.action),
    warn: (fields: { action: string }) => seen.warned.push(fields.action),
    info: () => undefined,
  } as unknown as Logger;
  // The fake planner reads the pass's list off its snapshot.
  const snapOf = (actions: Action[]) => ({ actions }) as unknown as RunSnapshot;
  const kind: PassKind<Pass> = {
    load: async (pass) => {
      seen.loads++;
      return {
        run: { id: 'run-1', state: 'running' },
        snap: snapOf(opts.endless ? [merge] : (plans[pass] ?? [])),
      };
    },
    perform: async (_ctx, a) => {
      seen.performed.push(a.type);
      if (a.type === opts.fails) throw new Error('forge answered 500');
    },
    advancing: new Set(['merge', 'open_pr']),
    publish: async (_ctx, actions) => void seen.published.push(actions.map((a) => a.type)),
    ended: async (_ctx, a, err) => {
      seen.ended.push(`${a.type}:${err instanceof Error ? err.message : 'ok'}`);
      if (a.type === 'notify') throw new Error('store away');
    },
  };
  const run = passLoop((_state, snap) => (snap as unknown as { actions: Action[] }).actions);
  return { seen, go: () => run({ logger }, kind) };
};

describe('the pass loop', () => {
  it('repeats while a pass moved something, and ends after a pass that moved nothing', async () => {
    const { seen, go } = fakeKind([[merge], [openPr], [notice]]);
    await go();
    expect(seen.performed).toEqual(['merge', 'open_pr', 'notify']);
    expect(seen.published).toEqual([['merge'], ['open_pr'], ['notify']]);
  });

  it('stops after a bounded number of passes when every pass moves', async () => {
    const { seen, go } = fakeKind([], { endless: true });
    await go();
    expect(seen.loads).toBe(maxPasses);
    expect(seen.performed).toHaveLength(maxPasses);
  });

  it('ends the pass after an action whose result the rest depends on, and plans again', async () => {
    const { seen, go } = fakeKind([[probe, merge, openPr], [merge]]);
    await go();
    expect(seen.performed).toEqual(['probe_budget', 'merge']);
    expect(seen.loads).toBe(3);
  });

  it('logs a failed action and performs the others', async () => {
    const { seen, go } = fakeKind([[merge, openPr, notice]], { fails: 'merge' });
    await go();
    expect(seen.performed).toEqual(['merge', 'open_pr', 'notify']);
    expect(seen.errors).toEqual(['merge']);
    // The open_pr moved the run: a second pass is planned (it finds nothing).
    expect(seen.loads).toBe(2);
  });

  it('ends the call with the pass that stops, once its notices are performed and it is shown', async () => {
    const { seen, go } = fakeKind([[merge, stop, notice], [merge]]);
    await go();
    expect(seen.performed).toEqual(['merge', 'stop', 'notify']);
    expect(seen.published).toEqual([['merge', 'stop', 'notify']]);
    expect(seen.loads).toBe(1);
  });

  it('tells the kind how each action ended, the error with it; a failure to keep that changes nothing', async () => {
    const { seen, go } = fakeKind([[merge, openPr, notice]], { fails: 'merge' });
    await go();
    expect(seen.ended).toEqual(['merge:forge answered 500', 'open_pr:ok', 'notify:ok']);
    expect(seen.warned).toEqual(['notify']);
    expect(seen.performed).toEqual(['merge', 'open_pr', 'notify']);
  });
});
