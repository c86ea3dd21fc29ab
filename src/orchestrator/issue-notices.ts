// Sends one of the planner's issue notices (src/plan/notices.ts decides which and when) to the
// notifiers, once per content key: the key is recorded on the run first.
import type { Action } from '../plan/snapshot.ts';
import type { Ports, RunCtx } from './context.ts';
import { refOf } from './context.ts';
import { runNoticeOf, sendRunNotice } from './run-notice.ts';
import { firstTime } from './run-writer.ts';

export const sendIssueNotice = async (
  deps: Ports<'config' | 'logger' | 'notifiers' | 'store'>,
  ctx: RunCtx,
  a: Extract<Action, { type: 'issue_notice' }>,
): Promise<void> => {
  if ((deps.notifiers ?? []).length === 0) return;
  if (!(await firstTime(deps, ctx, a.key))) return;
  const closed = ctx.snap.progress.filter((p) => p.state === 'closed' || p.state === 'merged').length;
  await sendRunNotice(
    deps,
    runNoticeOf(ctx.run, a.event, a.message, {
      issuesShipped: closed,
      ...(deps.config.publicUrl ? { publicUrl: deps.config.publicUrl } : {}),
      ...(a.issue !== undefined ? { issue: refOf(a.issue).number } : {}),
      ...(a.command ? { command: a.command } : {}),
    }),
  );
};
