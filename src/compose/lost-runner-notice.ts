// How a person hears of a lost runner that held work (remote-runner/lost-runners.ts): one `warning`
// notice to the notify targets, on the run of its most recent work, and a line on the dashboard of
// every run it held work in (kept in the run's progress, `lostRunners`, written under the run lock,
// then a pass of the run to show it).
import type { Logger } from '../observability/logger.ts';
import type { LostRunner } from '../remote-runner/lost-runners.ts';
import { issuesShippedOf, sendRunNotice } from '../runs/run-notice.ts';
import { writeProgress } from '../runs/run-writer.ts';
import type { Notifier } from '../ship/notice.ts';
import { runNoticeOf } from '../ship/run-notices.ts';
import type { RunStore } from '../store/run-store.ts';

/** How many lost runners a run's dashboard remembers (the latest). */
const keptPerRun = 10;

/** The one sentence of the notice and of the dashboard line. */
export const lostRunnerSentence = (l: LostRunner): string => {
  const parts = [
    l.released.length > 0 &&
      `${l.released.length} job${l.released.length === 1 ? '' : 's'} it held went back to the queue for another runner`,
    l.dropped.length > 0 &&
      `${l.dropped.length} job${l.dropped.length === 1 ? '' : 's'} waiting for its host were dropped (its worktrees went with it)`,
  ].filter((p): p is string => Boolean(p));
  const heard = l.lastSeenAt ? ` since ${l.lastSeenAt.slice(0, 19).replace('T', ' ')} UTC` : '';
  return `runner ${l.runner} has not been heard from${heard} and is marked lost${parts.length ? `: ${parts.join('; ')}` : ''}`;
};

export const tellLostRunner =
  (deps: {
    runs: Pick<RunStore, 'getRun' | 'updateRun' | 'withRunLock' | 'listRunIssues'>;
    notifiers: readonly Notifier[];
    logger: Logger;
    publicUrl?: string | undefined;
    /** Asks for a pass of the run, which shows the dashboard line. */
    reconcileRun: (runId: string) => Promise<void>;
  }) =>
  async (lost: LostRunner): Promise<void> => {
    const sentence = lostRunnerSentence(lost);
    let told = false;
    for (const runId of lost.runIds) {
      const run = await deps.runs.getRun(runId);
      if (!run) continue;
      await deps.runs.withRunLock(runId, () =>
        writeProgress(deps.runs, runId, (p) => ({
          lostRunners: [
            ...(p.lostRunners ?? []).filter((x) => x.runner !== lost.runner),
            { runner: lost.runner, at: lost.lostAt, sentence },
          ].slice(-keptPerRun),
        })),
      );
      if (!told) {
        told = true;
        const shipped = await issuesShippedOf({ store: deps.runs }, runId);
        await sendRunNotice(
          { logger: deps.logger, notifiers: deps.notifiers, store: deps.runs },
          runNoticeOf(run, 'warning', sentence, {
            issuesShipped: shipped,
            ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
          }),
          (write) => deps.runs.withRunLock(runId, write),
        );
      }
      void deps
        .reconcileRun(runId)
        .catch((err: unknown) => deps.logger.warn({ runId, err }, 'pass after a lost runner failed'));
    }
  };
