// A run's dashboard comment on its trigger issue: one writer at a time (across replicas too, under its
// own lock key, so a pass holding the run lock never waits on an edit nor an edit on a pass), edits
// coalesced per run (dashboard/coalescer.ts), and a new run's first dashboard posted at once.
import { createDashboardCoalescer, type DashboardCoalescer } from '../dashboard/coalescer.ts';
import { dashboardMarkerText } from '../dashboard/render.ts';
import { type Forge, repoRefOf } from '../forges/types.ts';
import { forgeOfRun } from '../runs/context.ts';
import type { DashboardPacing, Forges, Log, Records } from '../runs/ports.ts';
import { setDashboardComment } from '../runs/run-writer.ts';
import type { RunRecord } from '../store/run-store.ts';

export interface RunDashboards {
  coalescer: DashboardCoalescer;
  /** Posts a new run's dashboard (`body`) on its trigger issue at once; gives the comment's id. */
  first(body: (run: RunRecord) => string): (run: RunRecord, forge: Forge) => Promise<number | undefined>;
}

export const createRunDashboards = (deps: Records & Forges & Log & DashboardPacing): RunDashboards => {
  // Two replicas that both found no dashboard comment would each create one: one writer at a time.
  const dashboardLock = <T>(runId: string, fn: () => Promise<T>): Promise<T> =>
    deps.store.withRunLock(`dashboard:${runId}`, fn);
  const publishDashboard = (runId: string, body: string): Promise<void> =>
    dashboardLock(runId, async () => {
      const run = await deps.store.getRun(runId);
      if (!run || run.triggerIssue === undefined) return;
      const repo = repoRefOf(run.repo);
      const forge = await forgeOfRun(deps, run, repo);
      const c = await forge.upsertStickyComment(
        { repo, number: run.triggerIssue },
        dashboardMarkerText(run.id),
        body,
      );
      if (run.dashboardCommentId !== c.id) await setDashboardComment(deps.store, run.id, c.id);
    });
  const coalescer = createDashboardCoalescer({
    publish: publishDashboard,
    ...(deps.dashboard?.intervalMs !== undefined ? { intervalMs: deps.dashboard.intervalMs } : {}),
    ...(deps.dashboard?.timers ? { timers: deps.dashboard.timers } : {}),
    ...(deps.dashboard?.clock ? { clock: deps.dashboard.clock } : {}),
    onError: (runId, err) =>
      deps.logger.warn({ runId, err }, 'dashboard edit failed; retried at the next slot'),
  });
  const first =
    (body: (run: RunRecord) => string) =>
    (run: RunRecord, forge: Forge): Promise<number | undefined> =>
      dashboardLock(run.id, async () => {
        if (run.triggerIssue === undefined) return undefined;
        const ref = { repo: repoRefOf(run.repo), number: run.triggerIssue };
        // The run was created just now: no comment carries its marker yet (a lost answer is found
        // by the next edit, which looks).
        return (await forge.upsertStickyComment(ref, dashboardMarkerText(run.id), body(run), { fresh: true }))
          .id;
      });
  return { coalescer, first };
};
