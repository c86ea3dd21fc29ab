// The notices a run sends (started, shipped, blocked…) built from its record, sent to the targets that
// asked for the event, and any failure kept on the run for its dashboard. Never throws into the run.
// Its ports are spelled out (not the roles of ports.ts): pr-feedback.ts links here, and context.ts to it.
import { pickedNotifiers } from '../config/notify-picks.ts';
import { type Forge, repoRefOf } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import { noticeEventWords } from '../plan/state-words.ts';
import type { Notifier, NotifyEvent, RunNotice, ShipPath } from '../ship/notice.ts';
import { notifyAll } from '../ship/notify.ts';
import type { RunRecord, RunStore } from '../store/run-store.ts';
import { firstTime, writeProgress } from './run-writer.ts';

/** The run's page on the status site, when the bot's public address is configured. */
export const runPageUrl = (publicUrl: string | undefined, runId: string): string | undefined =>
  publicUrl ? `${publicUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(runId)}` : undefined;

/** `@login` of the person who started the run, when the run names one a forge would mention. */
export const starterOf = (run: Pick<RunRecord, 'options'>): string | undefined => {
  const sender = (run.options as { sender?: unknown } | null | undefined)?.sender;
  return typeof sender === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,38}$/.test(sender)
    ? `@${sender}`
    : undefined;
};

/** The notifiers the run tells: the ones its repository picked by name (`notify:` in blitz.yml), or all. */
export const runNotifiers = (
  deps: { notifiers?: readonly Notifier[] },
  run: Pick<RunRecord, 'progress'> | undefined,
): Notifier[] => pickedNotifiers(deps.notifiers ?? [], run?.progress.notifyTo);

/**
 * No notify target is configured, or the repository picked none: whoever started the run is told on the
 * forge instead, with an @mention in the comment the bot posts (seed 000 §6: a person is told, with no
 * configuration).
 */
export const mentionsStarter = (
  deps: { notifiers?: readonly Notifier[] },
  run: Pick<RunRecord, 'progress'>,
): boolean => runNotifiers(deps, run).length === 0;

/**
 * The one way a run tells a person on the forge: a comment on the issue where the run was started, which
 * @mentions whoever started it when no notify target would tell them (`mentionsStarter`). `next` is the
 * closing paragraph (the command that continues, the live URL). A run with no trigger issue posts nothing.
 */
export const commentOnTrigger = async (
  deps: { notifiers?: readonly Notifier[] },
  forge: Pick<Forge, 'createComment'>,
  run: Pick<RunRecord, 'options' | 'progress' | 'repo' | 'triggerIssue'>,
  text: { title: string; sentence: string; next?: string },
): Promise<void> => {
  if (run.triggerIssue === undefined) return;
  const who = mentionsStarter(deps, run) ? starterOf(run) : undefined;
  await forge.createComment(
    { repo: repoRefOf(run.repo), number: run.triggerIssue },
    `${who ? `${who} ` : ''}**${text.title}**: ${text.sentence}${text.next ? `\n\n${text.next}` : ''}`,
  );
};

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

/** The one way to build a run's notice: its event, its one sentence, the command that continues, the link. */
export const runNoticeOf = (
  run: Pick<RunRecord, 'id' | 'kind' | 'milestoneTitle' | 'repo' | 'triggerIssue'>,
  event: NotifyEvent,
  sentence: string,
  more: {
    issue?: number;
    url?: string;
    issuesShipped?: number;
    path?: ShipPath;
    publicUrl?: string;
    /** The command that continues from here (`/blitz retry #12`). */
    command?: string;
    /** When a spend limit lifts (ISO). */
    resetAt?: string;
  } = {},
): RunNotice => {
  const url = more.url || runPageUrl(more.publicUrl, run.id);
  const issue = more.issue ?? run.triggerIssue;
  return {
    event,
    repo: run.repo,
    run: { id: run.id, kind: run.kind, title: run.milestoneTitle },
    ...(issue !== undefined ? { issue } : {}),
    sentence,
    ...(url ? { url } : {}),
    issuesShipped: more.issuesShipped ?? 0,
    ...(more.path ? { path: more.path } : {}),
    ...(more.command ? { command: more.command } : {}),
    ...(more.resetAt ? { resetAt: more.resetAt } : {}),
  };
};

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
