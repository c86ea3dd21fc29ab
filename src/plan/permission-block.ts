// A GitHub App permission the installation lacks (issue 37). An installation registered before the
// bot asked for a permission, or whose owner has not accepted the App's new permissions, is refused
// (403) what needs it. Where the bot cannot do without it (reading a PR's check runs or the milestone,
// merging, opening a PR, commenting), the run stops BLOCKED with one notice naming the permission and
// the page where an admin accepts it; it goes on by itself at the first pass whose reads get through, or
// for a refused write once the bot's credential carries the permission (GitHub's
// `new_permissions_accepted` webhook asks for that pass at once). Where it can (its own check run: the
// report goes as a commit status), it says so once, on the notice and the dashboard, and carries on.
// Pure: the load reads the refusal (typed, `forges/app-permission.ts`) into the views; this decides.
import { formatPermission } from '../forges/app-permission.ts';
import { type BlockCause, blockReasonOf } from './block-cause.ts';
import type { Action, MissingPermissionView, RunSnapshot } from './snapshot.ts';

/** The blocker's sentence: the same on every pass while the same permission is missing. */
export const permissionBlockReason = (v: MissingPermissionView): string => blockReasonOf(causeOf(v));

const causeOf = (m: MissingPermissionView): BlockCause => ({
  kind: 'missing_permission',
  permission: m.permission,
  ...(m.page ? { page: m.page } : {}),
});

/** The run's actions while a permission it cannot do without is missing: block on it (said once). */
export const permissionBlockActions = (snap: RunSnapshot): Action[] | undefined => {
  const m = snap.missingPermission;
  if (!m) return undefined;
  const cause = causeOf(m);
  return [{ type: 'block', reason: blockReasonOf(cause), cause }];
};

/** What a person reads in a block's notice: the cause, and how the run goes on. */
export const blockNoticeOf = (a: Extract<Action, { type: 'block' }>): string =>
  a.cause.kind === 'missing_permission'
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
