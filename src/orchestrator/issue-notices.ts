// Sends one of the planner's issue notices (src/plan/notices.ts decides which and when) to the
// notifiers, once per content key: the key is recorded on the run first.
import type { Action } from '../plan/snapshot.ts';
import { refOf } from '../plan/types.ts';
import type { RunCtx } from '../runs/context.ts';
import type { Announcer, Log, Records, Settings } from '../runs/ports.ts';
import { sendRunNotice } from '../runs/run-notice.ts';
import { firstTime } from '../runs/run-writer.ts';
import { mentionsStarter, runNoticeOf, starterOf } from '../ship/run-notices.ts';

export const sendIssueNotice = async (
  deps: Records & Announcer & Log & Settings,
  ctx: RunCtx,
  a: Extract<Action, { type: 'issue_notice' }>,
): Promise<void> => {
  if (mentionsStarter(deps, ctx.run)) return mentionStarter(deps, ctx, a);
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

/** The notices a person must act on; a cap warning or a closed-while-running note is only logged. */
const MENTIONED: ReadonlySet<string> = new Set(['needs_person', 'failed', 'review_unclear']);

/** With no notify target: one comment on the trigger issue, @mentioning the starter, with the command. */
const mentionStarter = async (
  deps: Records,
  ctx: RunCtx,
  a: Extract<Action, { type: 'issue_notice' }>,
): Promise<void> => {
  const who = starterOf(ctx.run);
  if (!who || !MENTIONED.has(a.event) || ctx.run.triggerIssue === undefined) return;
  if (!(await firstTime(deps, ctx, a.key))) return;
  const next = a.command && !a.message.includes(a.command) ? ` To continue: \`${a.command}\`.` : '';
  await ctx.forge.createComment(
    { repo: ctx.repo, number: ctx.run.triggerIssue },
    `${who}, ${a.message}.${next}`,
  );
};
