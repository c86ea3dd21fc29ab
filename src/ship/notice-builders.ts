// One builder per named state a run can reach (issue 18): each gives the notice its event, its one
// sentence, the command that continues and the link, so that every failure reaches a person with a way
// on. The orchestrator calls the one for the state it just entered; notifyAll sends it everywhere.
import type { RunNotice, ShipPath } from './notice.ts';

/** What every notice of a run carries: where, which run, how far it got, where to look. */
export interface NoticeBase {
  repo: string;
  run: RunNotice['run'];
  /** The run's dashboard issue, used when a notice concerns no one issue. */
  dashboardIssue?: number;
  /** The run's status page, when the bot's public address is known. */
  runUrl?: string;
  issuesShipped: number;
}

const ref = (n: number): string => `#${n}`;

const notice = (
  base: NoticeBase,
  event: RunNotice['event'],
  sentence: string,
  more: { issue?: number; command?: string; url?: string; path?: ShipPath; resetAt?: string } = {},
): RunNotice => {
  const issue = more.issue ?? base.dashboardIssue;
  const url = more.url ?? base.runUrl;
  return {
    event,
    repo: base.repo,
    run: base.run,
    ...(issue !== undefined ? { issue } : {}),
    sentence,
    ...(url ? { url } : {}),
    issuesShipped: base.issuesShipped,
    ...(more.path ? { path: more.path } : {}),
    ...(more.command ? { command: more.command } : {}),
    ...(more.resetAt ? { resetAt: more.resetAt } : {}),
  };
};

/** `started`: who started the run; `/blitz pause` stops new work. */
export const startedNotice = (base: NoticeBase, who: string): RunNotice =>
  notice(base, 'started', `${who} started a ${base.run.kind} of ${base.run.title}`, {
    command: '/blitz pause',
  });

/**
 * `parked`: an environment failure (endpoint down, spend limit) parked the run; it resumes by itself
 * when the probe allows, or at once with `/blitz resume`. `sentence` is parkSentence's.
 */
export const parkedNotice = (base: NoticeBase, sentence: string, resetAt?: string): RunNotice =>
  notice(base, 'parked', sentence, { command: '/blitz resume', ...(resetAt ? { resetAt } : {}) });

/** `blocked`: a hard blocker (credentials, a missing CLI, red builds); `/blitz resume` once it is fixed. */
export const blockedNotice = (base: NoticeBase, reason: string, blockerIssue?: number): RunNotice =>
  notice(base, 'blocked', `${reason}; fix it, then resume`, {
    command: '/blitz resume',
    ...(blockerIssue !== undefined ? { issue: blockerIssue } : {}),
  });

/** `needs_person`: an issue is held (nudge cap, failures, its cap reached); `/blitz retry #n` goes on. */
export const needsPersonNotice = (base: NoticeBase, issue: number, reason: string): RunNotice =>
  notice(base, 'needs_person', `${ref(issue)} is held: ${reason}`, {
    issue,
    command: `/blitz retry ${ref(issue)}`,
  });

/** `failed`: an issue's attempts ran out; `/blitz retry #n` gives it another, `/blitz skip #n` leaves it. */
export const failedNotice = (base: NoticeBase, issue: number, reason: string): RunNotice =>
  notice(base, 'failed', `${ref(issue)} failed: ${reason}`, { issue, command: `/blitz retry ${ref(issue)}` });

/** `review_unclear`: the integration review gave no verdict; a writer accepts it or runs it again. */
export const reviewUnclearNotice = (base: NoticeBase, reason: string): RunNotice =>
  notice(base, 'review_unclear', `the integration review is unclear: ${reason}`, {
    command: '/blitz accept-review (or /blitz review to run it again)',
  });

/**
 * `shipped`: the milestone is out; the link is the live URL (a deploy proven healthy, or the preview
 * answering on its port). Nothing to continue: the run is done.
 */
export const shippedNotice = (base: NoticeBase, path: ShipPath, liveUrl: string | undefined): RunNotice =>
  notice(
    base,
    'shipped',
    path === 'deploy'
      ? `every issue closed, build and smoke green, deployed${liveUrl ? ' and answering' : ''}`
      : `every issue closed, build and smoke green, a local preview is running${liveUrl ? '' : ' (no address to link)'}`,
    { path, ...(liveUrl ? { url: liveUrl } : {}) },
  );

/** A deploy or preview that could not be proven live: blocked, with the failure and how to retry. */
export const shipFailedNotice = (base: NoticeBase, path: ShipPath, failure: string): RunNotice =>
  notice(base, 'blocked', `the ${path === 'deploy' ? 'deploy' : 'preview'} is not live: ${failure}`, {
    command: '/blitz resume',
  });
