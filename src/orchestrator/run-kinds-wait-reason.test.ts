// Every run kind keeps why an issue waits on its row (wait-reason.ts), not only the blitz: the status
// pages of a ticket fleet and of a plan run show a ticket whose merge the forge refused, or a member
// whose step failed, with the reason beside its state, and the reason goes once an action goes through.
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import { AppError } from '../errors.ts';
import type { FleetCtx, FleetHooks, FleetPorts } from '../fleet/fleet-context.ts';
import { fleetPasses } from '../fleet/reconcile-fleet.ts';
import type { Action } from '../plan/snapshot.ts';
import {
  type PlanPass,
  type PlanReconcileHooks,
  type PlanRunPorts,
  planPasses,
} from '../plan-blitz/reconcile-plan-run.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';

const notFound = new AppError('not_found', 'Not Found');
const merge: Action = { type: 'merge', issue: 'acme/app#3', pr: 12 };
// A plan member's step; its facts and ops do not matter to why it waits.
const step = { type: 'advance_member', issue: 'acme/app#3', facts: {}, ops: [] } as unknown as Action;

const storeWithRow = async (id: string, kind: 'fleet' | 'plan') => {
  const store = openSqliteRunStore(':memory:');
  await store.createRun({ ...newRun(id), kind, state: 'running' });
  const row = await store.upsertRunIssue(id, 'acme/app', 3, { state: 'pr_open' });
  const waiting = async () => (await store.listRunIssues(id))[0]?.waitReason ?? null;
  return { store, row, waiting };
};

describe('why an issue waits, in every run kind', () => {
  it('a ticket fleet keeps the reason its merge failed on the ticket’s row, and clears it', async () => {
    const { store, row, waiting } = await storeWithRow('f1', 'fleet');
    const kind = fleetPasses({ store } as unknown as FleetPorts, {} as FleetHooks, 'f1');
    const ctx = { run: { id: 'f1' }, rows: new Map([['acme/app#3', row]]) } as unknown as FleetCtx;
    await kind.ended?.(ctx, merge, notFound);
    expect(await waiting()).toBe(
      'merging PR #12: the forge answered 404 Not Found (Not Found); retried on the next pass',
    );
    await kind.ended?.(ctx, merge);
    expect(await waiting()).toBeNull();
  });

  it('a plan run keeps the reason a member’s step failed, and writes nothing on a held pass', async () => {
    const { store, row, waiting } = await storeWithRow('p1', 'plan');
    const kind = planPasses({ store } as unknown as PlanRunPorts, {} as PlanReconcileHooks, 'p1');
    const held = { run: { id: 'p1' }, held: true } as unknown as PlanPass;
    await kind.ended?.(held, step, notFound);
    expect(await waiting()).toBeNull();
    const pass = { run: { id: 'p1' }, rows: new Map([['acme/app#3', row]]) } as unknown as PlanPass;
    await kind.ended?.(pass, step, new AppError('forge_unavailable', 'Bad Gateway'));
    expect(await waiting()).toBe(
      'taking its next plan step: the forge is unavailable (Bad Gateway); retried on the next pass',
    );
    await kind.ended?.(pass, step);
    expect(await waiting()).toBeNull();
  });
});
