// The fleet run kind (seed 004): `/ticket-fleet` starts one, `/merge` and `/review` act on its PRs,
// and reconcileFleet drives it. The composition root registers it with the orchestrator (run-kind.ts).
import { commandSchema } from '../commands/schema.ts';
import type { RunKindOf } from '../orchestrator/run-kind.ts';
import type { FleetHooks } from './fleet-context.ts';
import { requestMerge, requestReview } from './person-commands.ts';
import { reconcileFleet } from './reconcile-fleet.ts';
import { startFleet } from './start-fleet.ts';

export const fleetKind: RunKindOf = (deps, { reconcileSoon, serialized, dashboards, trusted }) => {
  const hooks: FleetHooks = {
    reconcileSoon,
    serialized,
    trusted,
    scoreboard: (runId, body) => dashboards.coalescer.update(runId, body),
    flushScoreboard: (runId) => dashboards.coalescer.flush(runId),
  };
  return {
    kind: 'fleet',
    async handleIntent(intent) {
      const parsed = commandSchema.safeParse(intent.command);
      if (!parsed.success) return 'not_mine';
      const cmd = parsed.data;
      if (cmd.name === 'ticket-fleet') return startFleet(deps, hooks, intent, cmd);
      if (cmd.name === 'merge' || cmd.name === 'merge-when-green' || cmd.name === 'ticket-fleet-merge')
        return requestMerge(deps, hooks, intent, cmd);
      if (cmd.name === 'review') return requestReview(deps, hooks, intent);
      return 'not_mine';
    },
    reconcile: (runDeps, runId) => reconcileFleet(runDeps, hooks, runId),
  };
};
