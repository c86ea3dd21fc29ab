// A run's notice and its comment to a person, made from the run's record: the event, one sentence, the
// command that continues, the link to the run's page; the targets the repository picked, else the
// starter @mentioned on the trigger issue. Sending and keeping a failure: runs/run-notice.ts.
import { z } from 'zod';
import { pickedNotifiers } from '../config/notify-picks.ts';
import { type Forge, repoRefOf } from '../forges/types.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Notifier, NotifyEvent, RunNotice, ShipPath } from './notice.ts';

/** The run's page on the status site, when the bot's public address is configured. */
export const runPageUrl = (publicUrl: string | undefined, runId: string): string | undefined =>
  publicUrl ? `${publicUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(runId)}` : undefined;

/** Every run kind's options name who started it, as a forge login. */
const starterSchema = z.object({ sender: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,38}$/) });

/** `@login` of the person who started the run, when the run names one a forge would mention. */
export const starterOf = (run: Pick<RunRecord, 'options'>): string | undefined => {
  const parsed = starterSchema.safeParse(run.options);
  return parsed.success ? `@${parsed.data.sender}` : undefined;
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
