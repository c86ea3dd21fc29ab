// A GitHub App permission the installation lacks (issue 37). An installation registered before the
// bot asked for a permission, or whose owner has not accepted the App's new permissions, is refused
// (403) what needs it. Where the bot cannot do without it (reading a PR's check runs: nothing could
// merge unread), the run stops BLOCKED with one notice naming the permission and the page where an
// admin accepts it; it goes on by itself at the first pass whose reads get through (GitHub's
// `new_permissions_accepted` webhook asks for one at once). Where it can (its own check run: the
// report goes as a commit status), it says so once, on the notice and the dashboard, and carries on.
// Pure: the load reads the refusal (typed, `forges/app-permission.ts`) into the views; this decides.
import { type AppPermission, formatPermission } from '../forges/app-permission.ts';
import type { Action, BlockCause, MissingPermissionView, RunSnapshot } from './snapshot.ts';

/** What the bot cannot do without the permission, in a person's words. */
const withoutIt = (p: AppPermission): string => {
  switch (p.name) {
    case 'checks':
      return "read the CI results (check runs) of the workers' PRs, so nothing can merge";
    case 'statuses':
      return "read the commit statuses of the workers' PRs, so nothing can merge";
    case 'pull_requests':
      return p.level === 'read' ? "read the workers' PRs" : "open or update the workers' PRs";
    case 'contents':
      return p.level === 'read' ? "read the repository's branches" : 'push branches or merge PRs';
    default:
      return 'do its work on this repository';
  }
};

/** Where the permission is accepted, in words: the page, or how to find it. */
const where = (page: string | undefined): string =>
  page ?? "the installation's settings page (the owner's Settings → GitHub Apps → Configure)";

/** The blocker's sentence: the same on every pass while the same permission is missing. */
export const permissionBlockReason = (v: MissingPermissionView): string =>
  `the GitHub App installation lacks the \`${formatPermission(v.permission)}\` permission, without which the bot cannot ${withoutIt(v.permission)}; an admin accepts it at ${where(v.page)}`;

/** The run's actions while a permission it cannot do without is missing: block on it (said once). */
export const permissionBlockActions = (snap: RunSnapshot): Action[] | undefined => {
  const m = snap.missingPermission;
  if (!m) return undefined;
  const cause: BlockCause = {
    kind: 'missing_permission',
    permission: m.permission,
    ...(m.page ? { page: m.page } : {}),
  };
  return [{ type: 'block', reason: permissionBlockReason(m), cause }];
};

/** What a person reads in a block's notice: the cause, and how the run goes on. */
export const blockNoticeOf = (a: Extract<Action, { type: 'block' }>): string =>
  a.cause?.kind === 'missing_permission'
    ? `${a.reason}. The run goes on by itself once GitHub says the permission was accepted, or at the first check that gets through`
    : `${a.reason}; fix it, then resume`;

/**
 * The bot's own report went as a commit status because the installation lacks a check-run permission:
 * said once (the notifiers, and a line on the dashboard while it lasts). Nothing stops.
 */
export const reportedInsteadNotices = (snap: Pick<RunSnapshot, 'reportedInstead'>): Action[] => {
  const instead = snap.reportedInstead;
  if (!instead) return [];
  const name = formatPermission(instead.lacking);
  const how =
    instead.as === 'status'
      ? 'the bot reports on each PR as a commit status `blitz` instead of a check run'
      : 'the bot cannot report on the PRs at all (nor as a commit status: `statuses:write` is missing too)';
  return [
    {
      type: 'issue_notice',
      event: 'warning',
      key: `notice:reported-instead:${instead.as}:${name}`,
      message: `the GitHub App installation lacks the \`${name}\` permission, so ${how}; the run goes on (an admin can accept the permission on the installation's settings page)`,
      dashboard: 'warning',
    },
  ];
};
