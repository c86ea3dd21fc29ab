// The steps of the planner's `block` and `unblock` actions. A pass the forge refused (401, 403:
// forges/hard-blocker.ts) stops the run BLOCKED instead of being retried every tick in silence (seed 000
// §6): the reason on the run, one `blocked` notice through every notifier with the command that
// continues, and a blocker issue filed once in the milestone (labelled `hold`, so no worker takes it) as
// soon as the forge lets the bot write (with no notify target, a comment on the trigger issue then
// @mentions whoever started the run). The next pass that gets through lifts it: the blocker issue is
// closed and the run goes on (plan/next-actions.ts decides both). A missing agent CLI blocks the same
// way (plan/tool-blocker.ts), lifted once a probe attempt finds the tool.

import { repoRefOf } from '../forges/types.ts';
import { blockerKey } from '../plan/block-cause.ts';
import { blockNoticeOf } from '../plan/permission-block.ts';
import { resumeCommandOf } from '../plan/resume-command.ts';
import { blockPatch } from '../plan/run-patches.ts';
import { withoutReason } from '../plan/run-reason.ts';
import type { Action } from '../plan/snapshot.ts';
import { planLabels } from '../plan/types.ts';
import { commentOnTrigger, mentionsStarter, runNoticeOf, starterOf } from '../ship/run-notices.ts';
import type { RunRecord } from '../store/run-store.ts';
import { closeWithComment } from './close-issue.ts';
import { forgeOfRun } from './context.ts';
import type { Announcer, Clock, Forges, Log, Records, Settings } from './ports.ts';
import { issuesShippedOf, sendRunNotice } from './run-notice.ts';
import { markPosted, writeProgress, writeRun } from './run-writer.ts';

/** What the blocker issue calls the run. */
const runWord = (run: RunRecord): string => (run.kind === 'plan' ? 'plan-blitz' : 'blitz');

/** Files the blocker issue once (a failure is tried again on the next blocked pass). */
const fileBlockerIssue = async (
  deps: Records & Forges & Announcer & Log,
  run: RunRecord,
  reason: string,
): Promise<void> => {
  // A fleet has no milestone to file it in: its notice and its scoreboard on the trigger issue say it.
  if (run.kind === 'fleet' || run.progress.hardBlocker?.issue !== undefined) return;
  try {
    const forge = await forgeOfRun(deps, run, repoRefOf(run.repo));
    const word = runWord(run);
    // No @mention: with no notify target the starter is told once, on the trigger issue (tellStarter).
    const issue = await forge.createIssue(repoRefOf(run.repo), {
      title: `${word}: ${run.milestoneTitle} is BLOCKED`,
      body: `The ${word} of this milestone stopped: ${reason}.\n\nFix it; the run resumes by itself at its next pass (or \`${resumeCommandOf(run.kind)}\`), and this issue is closed then.`,
      labels: [planLabels.hold],
      milestone: run.milestoneNumber,
    });
    await writeProgress(deps.store, run.id, (p) =>
      p.hardBlocker ? { hardBlocker: { ...p.hardBlocker, issue: issue.ref.number } } : undefined,
    );
  } catch (err) {
    deps.logger.warn({ runId: run.id, err }, 'blocker issue not filed yet; tried again at the next pass');
  }
};

/**
 * With no notify target, whoever started the run is told once per cause, on the issue where they started
 * it, with the command that continues. A milestone run says it once its blocker issue is filed (named in
 * it), so a forge that refuses every write is told when it lets the bot write again.
 */
const tellStarter = async (
  deps: Records & Forges & Announcer & Log,
  run: RunRecord,
  reason: string,
  key: string,
): Promise<void> => {
  if (!mentionsStarter(deps, run) || !starterOf(run)) return;
  const issue = run.progress.hardBlocker?.issue;
  if (run.kind !== 'fleet' && issue === undefined) return;
  const { first } = await markPosted(deps.store, run.id, `comment:hard-blocker:${key}`);
  if (!first) return;
  try {
    const forge = await forgeOfRun(deps, run, repoRefOf(run.repo));
    await commentOnTrigger(deps, forge, run, {
      title: `${run.milestoneTitle} is BLOCKED`,
      sentence: issue === undefined ? reason : `${reason} (#${issue})`,
      next: `Fix it; the run resumes by itself at its next pass, or \`${resumeCommandOf(run.kind)}\`.`,
    });
  } catch (err) {
    // Said once: a refused comment leaves the cause on the dashboard and in the log.
    deps.logger.warn({ runId: run.id, err }, 'blocker comment not posted');
  }
};

/**
 * `block`: the run BLOCKED on the hard blocker, said once, and its blocker issue filed. The blocker is
 * known by its cause (plan/block-cause.ts): the same cause in other words is neither written nor said again.
 */
export const blockRun = async (
  deps: Records & Forges & Announcer & Clock & Log & Settings,
  runId: string,
  block: Extract<Action, { type: 'block' }>,
): Promise<void> => {
  const { reason, cause } = block;
  const key = blockerKey(cause);
  const since = deps.clock.now().toISOString();
  const run = await writeRun(deps.store, runId, (now) => blockPatch(now, { reason, cause, since }));
  const { first } = await markPosted(deps.store, runId, `notice:hard-blocker:${key}`);
  if (first) {
    deps.logger.error({ runId, reason }, 'run blocked');
    await sendRunNotice(
      deps,
      runNoticeOf(run, 'blocked', blockNoticeOf(block), {
        command: resumeCommandOf(run.kind),
        issuesShipped: await issuesShippedOf(deps, runId),
        publicUrl: deps.config.publicUrl,
      }),
    );
  }
  await fileBlockerIssue(deps, (await deps.store.getRun(runId)) ?? run, reason);
  await tellStarter(deps, (await deps.store.getRun(runId)) ?? run, reason, key);
};

/** `unblock`: a pass got through; the blocker issue is closed and the reason leaves the run. */
export const unblockRun = async (deps: Records & Forges & Log, runId: string): Promise<void> => {
  const run = await deps.store.getRun(runId);
  const blocker = run?.progress.hardBlocker;
  if (!run || !blocker) return;
  if (blocker.issue !== undefined) {
    const forge = await forgeOfRun(deps, run, repoRefOf(run.repo));
    const ref = { repo: repoRefOf(run.repo), number: blocker.issue };
    // Closed the one way (close-issue.ts): a blocker issue a person closed already gets no comment.
    await closeWithComment(forge, ref, `The cause is gone: the ${runWord(run)} resumed by itself.`);
  }
  await writeRun(deps.store, runId, (now) => {
    // A refused write kept as its cause goes too: the next pass tries the write again.
    const {
      hardBlocker: _gone,
      refusedWrite: _lifted,
      ...progress
    } = withoutReason(now.progress, 'hard_blocker');
    return { progress };
  });
  deps.logger.info({ runId, reason: blocker.reason }, 'hard blocker lifted; the run resumed');
};
