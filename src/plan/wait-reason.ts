// Why an issue waits, in words, from the action on it that failed: the status pages show it beside
// the issue's state (a PR `pr_open` because the forge answered 404 says so). Decided on the error's
// code, never on its sentence; the message follows only as the detail a person reads.
import { type AppErrorCode, isAppError } from '../errors.ts';
import type { Action } from './snapshot.ts';
import type { IssueKey } from './types.ts';

const causes: Partial<Record<AppErrorCode, string>> = {
  not_found: 'the forge answered 404 Not Found',
  forbidden: 'the forge answered 403 Forbidden',
  unauthorized: "the forge refused the bot's credentials (401)",
  conflict: 'the forge answered 409 Conflict',
  rate_limited: "the forge's rate limit is spent",
  forge_unavailable: 'the forge is unavailable',
  forge_error: 'the forge answered with an error',
  unmergeable: 'the forge will not merge it',
  git_failed: 'git failed',
  timeout: 'it timed out',
  tool_missing: 'a tool is missing',
  store_error: 'the database is unavailable',
};

const doing = (a: Action): string => {
  switch (a.type) {
    case 'open_pr':
      return 'opening its PR';
    case 'merge':
      return `merging PR #${a.pr}`;
    case 'review':
      return `reviewing PR #${a.pr}`;
    case 'pr_feedback':
      return `reading PR #${a.pr}'s feedback`;
    case 'dispatch':
    case 'resume':
      return 'starting its worker';
    case 'close_issue':
    case 'close_epic':
      return 'closing it';
    case 'advance_member':
      return 'taking its next plan step';
    default:
      return a.type.replaceAll('_', ' ');
  }
};

/**
 * The issue an action works on, when it works on one. A notice about an issue does nothing to it: told,
 * it does not clear why the issue waits.
 */
export const actionIssue = (a: Action): IssueKey | undefined =>
  a.type !== 'issue_notice' && 'issue' in a && typeof a.issue === 'string' ? a.issue : undefined;

/** At most this much of the error's own message follows the cause. */
const maxDetail = 160;

/** What failed, in words made from the error's code alone (never its message). */
export const failureCause = (err: unknown): string => (isAppError(err) && causes[err.code]) || 'it failed';

export const waitReason = (a: Action, err: unknown): string => {
  const cause = failureCause(err);
  const message = err instanceof Error ? (err.message.split('\n')[0] ?? '').trim() : '';
  const detail = message.length > maxDetail ? `${message.slice(0, maxDetail - 1)}…` : message;
  return `${doing(a)}: ${cause}${detail ? ` (${detail})` : ''}; retried on the next pass`;
};
