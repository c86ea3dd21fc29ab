// The notices a run sends (started, shipped, blocked…; made by ship/run-notices.ts), sent to the targets
// that asked for the event, and any failure kept on the run for its dashboard. Never throws into the run.
import type { Forge } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import { noticeEventWords } from '../plan/state-words.ts';
import type { Notifier, RunNotice } from '../ship/notice.ts';
import { notifyAll } from '../ship/notify.ts';
import { commentOnTrigger, runNotifiers } from '../ship/run-notices.ts';
import type { RunRecord, RunStore } from '../store/run-store.ts';
import type { RunCtx } from './context.ts';
import type { Records } from './ports.ts';
import { firstTime, writeProgress } from './run-writer.ts';

/**
 * Tells the people on a run once per `key`: `notice` (when given) to the notify targets, and the comment on
 * the trigger issue (`commentOnTrigger`: it @mentions the starter when no target would tell them).
 */
export const tellOnce = async (
  deps: { logger: Logger; notifiers?: readonly Notifier[]; store: Pick<RunStore, 'getRun' | 'updateRun'> },
  ctx: { run: RunRecord; forge: Pick<Forge, 'createComment'> },
  key: string,
  text: { title: string; sentence: string; next?: string },
  notice?: RunNotice,
): Promise<void> => {
  if (!(await firstTime(deps, ctx, key))) return;
  if (notice) await sendRunNotice(deps, notice);
  await commentOnTrigger(deps, ctx.forge, ctx.run, text);
};

/** How many of the run's issues are closed: the count every notice of the run carries. */
export const issuesShippedOf = async (
  deps: { store: Pick<RunStore, 'listRunIssues'> },
  runId: string,
): Promise<number> => (await deps.store.listRunIssues(runId)).filter((r) => r.state === 'closed').length;

/**
 * Sends the notice; the failures (target and error, never a secret) are written to the run's progress.
 * A pass holds the run lock already; a caller outside one (a run's start) passes `underLock`, which
 * takes it for that write (the sending itself holds no lock).
 */
export const sendRunNotice = async (
  deps: { logger: Logger; notifiers?: readonly Notifier[]; store: Pick<RunStore, 'getRun' | 'updateRun'> },
  notice: RunNotice,
  underLock: (write: () => Promise<void>) => Promise<void> = (write) => write(),
): Promise<void> => {
  // The run as it stands: the repository's pick of targets is kept on it by each pass (run-repo.ts).
  const run = await deps.store.getRun(notice.run.id);
  const results = await notifyAll(runNotifiers(deps, run), notice);
  const failures = results.flatMap((r) =>
    r.ok ? [] : [{ target: r.target, error: `${noticeEventWords(notice.event)}: ${r.error}` }],
  );
  if (failures.length === 0) return;
  deps.logger.warn({ runId: notice.run.id, event: notice.event, failures }, 'notification failed');
  await underLock(async () => {
    if (await deps.store.getRun(notice.run.id))
      await writeProgress(deps.store, notice.run.id, () => ({ notifyFailures: failures }));
  }).catch((err: unknown) =>
    // A run written meanwhile refuses this write: the failure is in the log, and the next one is kept.
    deps.logger.error({ runId: notice.run.id, err }, 'notification failure not kept on the run'),
  );
};

/** Comments on the run's trigger issue, once per content key (a repeat while its cause lasts posts nothing). */
export const reportOnce = async (
  deps: Records,
  ctx: Pick<RunCtx, 'run' | 'forge' | 'repo'>,
  key: string,
  text: string,
) => {
  if (ctx.run.triggerIssue === undefined || !(await firstTime(deps, ctx, key))) return;
  await ctx.forge.createComment({ repo: ctx.repo, number: ctx.run.triggerIssue }, text);
};
