// The plan run kind (`/plan-blitz`): start-plan-run.ts starts one, reconcilePlanRun drives its waves.
// The composition root registers it with the orchestrator (run-kind.ts).
import { commandSchema } from '../commands/schema.ts';
import { initialPlanDashboard } from '../dashboard/plan-dashboard.ts';
import type { RunKindOf } from '../orchestrator/run-kind.ts';
import { reconcilePlanRun } from './reconcile-plan-run.ts';
import { createPlanIntentHandler } from './start-plan-run.ts';

export const planBlitzKind: RunKindOf = (deps, { reconcileSoon, serialized, dashboards, trusted }) => {
  const start = createPlanIntentHandler(deps, {
    reconcileSoon,
    serialized,
    postDashboard: dashboards.first(initialPlanDashboard),
  });
  const hooks = {
    trusted,
    dashboardBody: (runId: string, body: string) => dashboards.coalescer.update(runId, body),
  };
  return {
    kind: 'plan',
    async handleIntent(intent) {
      const cmd = commandSchema.safeParse(intent.command);
      return cmd.success && cmd.data.name === 'plan-blitz' ? start(intent, cmd.data) : 'not_mine';
    },
    reconcile: (runDeps, runId) => reconcilePlanRun(runDeps, hooks, runId),
  };
};
