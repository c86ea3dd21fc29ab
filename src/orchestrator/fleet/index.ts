// The fleet run kind (seed 004): `/ticket-fleet` starts one, `/merge` and `/review` act on its PRs,
// and reconcileFleet drives it. The orchestrator hands fleet intents and fleet runs to this module.
import { commandSchema } from '../../commands/schema.ts';
import type { Intent } from '../../store/types.ts';
import type { IntentOutcome } from '../start-run.ts';
import type { FleetHooks, FleetPorts } from './fleet-context.ts';
import { requestMerge, requestReview } from './person-commands.ts';
import { reconcileFleet } from './reconcile-fleet.ts';
import { startFleet } from './start-fleet.ts';

export interface Fleet {
  /** `not_mine` for commands another run kind handles. */
  handleIntent(intent: Intent): Promise<IntentOutcome>;
  reconcile(runId: string): Promise<void>;
}

export const createFleet = (deps: FleetPorts, hooks: FleetHooks): Fleet => ({
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
  reconcile: (runId) => reconcileFleet(deps, hooks, runId),
});
