// reconcileFleet: a fleet run's kind of the one pass loop (pass-loop.ts). Its load reads the tickets
// and the store (on a call's first pass, PRs a person merged or closed by hand too) and relays
// finished reports; the planner (kind `fleet`: pilot first, waves, PRs merge only on a person's word)
// decides; fleet-perform.ts performs; the scoreboard shows the pass.

import { renderScoreboard } from '../dashboard/scoreboard.ts';
import { scoreboardInput } from '../dashboard/scoreboard-view.ts';
import type { Action } from '../plan/snapshot.ts';
import { keepRefusedWrite } from '../runs/missing-permission.ts';
import { type PassKind, runPasses } from '../runs/pass-loop.ts';
import { paceReason } from '../runs/run-pace.ts';
import { keepWaitReason } from '../runs/wait-reason.ts';
import type { FleetCtx, FleetHooks, FleetPorts } from './fleet-context.ts';
import { performFleet } from './fleet-perform.ts';
import { loadFleet } from './load-fleet.ts';
import { relayReports } from './relay-reports.ts';
import { syncPulls } from './sync-pulls.ts';

const advancing = new Set<Action['type']>(['open_pr', 'review', 'merge', 'close_issue']);

/** The scoreboard of a pass: the fleet's facts and what the pass read. */
const board = (ctx: FleetCtx, final?: { reason: string }): string => {
  const slowed = paceReason(ctx.pace);
  const facts = { ...ctx, progress: ctx.snap.progress, maxSessions: ctx.options.maxSessions };
  return renderScoreboard(scoreboardInput(slowed ? { ...facts, slowed } : facts, final));
};

/** The fleet's kind of the pass loop (its load, perform, scoreboard and why a ticket waits). */
export const fleetPasses = (deps: FleetPorts, hooks: FleetHooks, runId: string): PassKind<FleetCtx> => ({
  async load(pass) {
    let ctx = await loadFleet(deps, hooks, runId);
    if (!ctx) return undefined;
    if (pass === 0 && (await syncPulls(deps, ctx))) ctx = (await loadFleet(deps, hooks, runId)) ?? ctx;
    // A paused fleet plans nothing but its park (which lifts by itself); its scoreboard still shows
    // where it stands.
    if (ctx.run.state === 'paused' && !ctx.run.progress.park && ctx.run.progress.stopKind !== 'budget_park')
      return void hooks.scoreboard(runId, board(ctx));
    await relayReports(deps, ctx);
    return ctx;
  },
  perform: (ctx, a) => performFleet(deps, ctx, a),
  advancing,
  async publish(ctx, actions) {
    // The scoreboard shows this pass's results: read the rows and the fleet facts again.
    const after = (await loadFleet(deps, hooks, runId, true)) ?? ctx;
    const stop = actions.find((a) => a.type === 'stop');
    // A blocked fleet that stays blocked plans no stop again: its summary keeps the reason it stopped for.
    const reason =
      stop?.type === 'stop'
        ? stop.reason
        : after.run.state === 'blocked'
          ? after.run.progress.reason
          : undefined;
    hooks.scoreboard(runId, board(after, reason !== undefined ? { reason } : undefined));
    if (stop) await hooks.flushScoreboard(runId);
  },
  // Why a ticket waits (a forge that refused its merge, a runner that refused its job) stays on its
  // row for the status pages, as for a blitz.
  // A write refused for an App permission (a merge without contents:write) is kept: the next load blocks.
  ended: async (ctx, a, err) => {
    await keepRefusedWrite(deps, ctx.run.id, err);
    await keepWaitReason(deps.store, { runId: ctx.run.id, rows: ctx.rows }, a, err);
  },
});

export const reconcileFleet = (deps: FleetPorts, hooks: FleetHooks, runId: string): Promise<void> =>
  runPasses(deps, fleetPasses(deps, hooks, runId));
