// The run-change bus: the orchestrator publishes "run X changed" (with the dashboard it just built),
// the status page's SSE streams and live views subscribe. In-process only; a second replica serves
// its own subscribers from its own reconciles.
import type { DashboardInput } from '../dashboard/types.ts';

export type RunChangeListener = (runId: string) => void;

export interface RunEvents {
  /** Tell subscribers the run changed; pass the dashboard input the reconcile just built, if any. */
  publish(runId: string, dashboard?: DashboardInput): void;
  /** Called for every published run id; returns the unsubscribe function. */
  subscribe(listener: RunChangeListener): () => void;
  /** The last dashboard published for the run (titles, edges, epics) since this process started. */
  latestDashboard(runId: string): DashboardInput | undefined;
}

/** Dashboards kept for at most this many runs, oldest dropped first, so memory stays bounded. */
export const maxRememberedRuns = 200;

export const createRunEvents = (opts: { onListenerError?: (err: unknown) => void } = {}): RunEvents => {
  const listeners = new Set<RunChangeListener>();
  const dashboards = new Map<string, DashboardInput>();
  return {
    publish(runId, dashboard) {
      if (dashboard) {
        dashboards.delete(runId);
        dashboards.set(runId, dashboard);
        if (dashboards.size > maxRememberedRuns) {
          const oldest = dashboards.keys().next().value;
          if (oldest !== undefined) dashboards.delete(oldest);
        }
      }
      // A broken subscriber (a closed stream) must not stop the others or the orchestrator.
      for (const listener of [...listeners]) {
        try {
          listener(runId);
        } catch (err) {
          opts.onListenerError?.(err);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    latestDashboard: (runId) => dashboards.get(runId),
  };
};
