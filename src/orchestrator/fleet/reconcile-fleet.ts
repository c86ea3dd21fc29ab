// reconcileFleet: the level-triggered loop of a fleet run, the same shape as the blitz one. Read the
// tickets and the store, ask the planner (kind `fleet`: pilot first, waves, PRs merge only on a
// person's word), perform each action (each checks the world first), relay finished reports, and
// publish the scoreboard; repeat while a pass moved something the next can build on.

import { renderScoreboard } from '../../dashboard/scoreboard.ts';
import { scoreboardInput } from '../../dashboard/scoreboard-view.ts';
import { nextActions } from '../../plan/next-actions.ts';
import type { Action } from '../../plan/snapshot.ts';
import type { RunState } from '../../plan/states.ts';
import { paceReason } from '../run-pace.ts';
import type { FleetCtx, FleetHooks, FleetPorts } from './fleet-context.ts';
import { performFleet } from './fleet-perform.ts';
import { loadFleet } from './load-fleet.ts';
import { relayReports } from './relay-reports.ts';
import { syncPulls } from './sync-pulls.ts';

const advancing = new Set<Action['type']>(['open_pr', 'review', 'merge', 'close_issue']);
const maxPasses = 8;

/** The scoreboard of a pass: the fleet's facts and what the pass read. */
const board = (ctx: FleetCtx, final?: { reason: string }): string => {
  const slowed = paceReason(ctx.pace);
  const facts = { ...ctx, progress: ctx.snap.progress, maxSessions: ctx.options.maxSessions };
  return renderScoreboard(scoreboardInput(slowed ? { ...facts, slowed } : facts, final));
};

export const reconcileFleet = async (deps: FleetPorts, hooks: FleetHooks, runId: string): Promise<void> => {
  for (let pass = 0; pass < maxPasses; pass++) {
    let ctx = await loadFleet(deps, hooks, runId);
    if (!ctx) return;
    if (pass === 0 && (await syncPulls(deps, ctx))) ctx = (await loadFleet(deps, hooks, runId)) ?? ctx;
    if (ctx.run.state === 'paused') {
      hooks.scoreboard(runId, board(ctx));
      return;
    }
    await relayReports(deps, ctx);
    const actions = nextActions(ctx.run.state as RunState, ctx.snap);
    let moved = false;
    let stopped: Extract<Action, { type: 'stop' }> | undefined;
    for (const a of actions) {
      try {
        await performFleet(deps, ctx, a);
        if (advancing.has(a.type)) moved = true;
      } catch (err) {
        deps.logger.error(
          { runId, action: a.type, err },
          'fleet action failed; the next reconcile retries it',
        );
      }
      if (a.type === 'stop') {
        stopped = a;
        break;
      }
    }
    // The scoreboard shows this pass's results: read the rows and the fleet facts again.
    const after = (await loadFleet(deps, hooks, runId, true)) ?? ctx;
    if (stopped) {
      hooks.scoreboard(runId, board(after, { reason: stopped.reason }));
      await hooks.flushScoreboard(runId);
      return;
    }
    hooks.scoreboard(runId, board(after));
    if (!moved) return;
  }
};
