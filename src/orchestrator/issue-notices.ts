// Notices about single issues and reviews, read off the run as it stands (level-triggered, like the
// rest of reconcile): an issue the planner holds because its attempts are spent is `failed`, one held
// because its worker stalled past its nudges `needs_person`, an integration review without a verdict
// `review_unclear`. Each is sent once per occurrence: the content key (issue and attempt count,
// review time) is recorded on the run first.
import { buildRunContext } from '../plan/run-context.ts';
import type { RunCtx } from './context.ts';
import { firstTime, type PerformDeps, refOf } from './perform.ts';
import { runNoticeOf, sendRunNotice } from './run-notice.ts';

export const sendIssueNotices = async (deps: PerformDeps, ctx: RunCtx): Promise<void> => {
  if ((deps.notifiers ?? []).length === 0) return;
  const closed = ctx.snap.progress.filter((p) => p.state === 'closed' || p.state === 'merged').length;
  const common = {
    issuesShipped: closed,
    ...(deps.config.publicUrl ? { publicUrl: deps.config.publicUrl } : {}),
  };
  const { classified, progress } = buildRunContext(ctx.snap);
  for (const [key, c] of classified.byKey) {
    const p = progress.get(key);
    if (!p || c.category !== 'held' || (c.kind !== 'gave_up' && c.kind !== 'stalled')) continue;
    const event = c.kind === 'gave_up' ? 'failed' : 'needs_person';
    if (!(await firstTime(deps, ctx, `notice:${event}:${p.key}:${p.attempts.length}`))) continue;
    const issue = refOf(p.key).number;
    const last = p.attempts[p.attempts.length - 1];
    const sentence =
      event === 'failed'
        ? `#${issue} failed after ${p.attempts.length} attempt${p.attempts.length === 1 ? '' : 's'}${last ? ` (last: ${last.entry}, ${last.outcome ?? 'no outcome'})` : ''}; it is held until a person looks`
        : `the worker on #${issue} stalled and did not recover after its nudges; a person has to look`;
    // Either way `/blitz retry #n` continues it (a new allowance); `/blitz skip #n` leaves it out.
    await sendRunNotice(
      deps,
      runNoticeOf(ctx.run, event, sentence, { ...common, issue, command: `/blitz retry #${issue}` }),
    );
  }
  const review = ctx.run.progress.integrationReview;
  if (review?.verdict === 'unclear' && (await firstTime(deps, ctx, `notice:review_unclear:${review.at}`))) {
    await sendRunNotice(
      deps,
      runNoticeOf(
        ctx.run,
        'review_unclear',
        'the integration review gave no clear verdict on the integration branch; a person should read it',
        common,
      ),
    );
  }
};
