// The XS lane (seed 002 §4, "dispatch: work already done in the wave"): the worker's branch becomes a
// PR into the default branch, gets its review leg, is merged, and the issue is closed, all in the wave.
// Shipping needs the execution gate; an XS whose blockers are not closed is marked execution-ready.
import { isAppError } from '../../errors.ts';
import { pickReviewer } from '../../plan/routing.ts';
import type { IssueKey } from '../../plan/types.ts';
import type { AttemptRecord } from '../../runner/types.ts';
import { closeWithComment } from '../close-issue.ts';
import { onAttemptHost } from '../dispatcher.ts';
import { openPr } from '../open-pr.ts';
import { rosterEntryFor } from '../roster-entry.ts';
import { issueRef, land } from './member-phases.ts';
import { type PlanCtx, waveOf } from './plan-context.ts';
import { planRunLabels } from './plan-labels.ts';

/**
 * XS whose blockers are not all closed: the planning gate let it into the wave, but shipping code
 * needs the execution gate. It needs no plan, so it is marked execution-ready for a later /blitz.
 */
export const readyXs = async (pc: PlanCtx, key: IssueKey) => {
  await pc.forge.addLabels(issueRef(key), [planRunLabels.ready]);
  return land(pc, key, {
    landing: 'ready',
    size: 'XS',
    note: 'needs no plan; its blockers are not all closed yet, so /blitz ships it later',
  });
};

/** XS: the worker's branch becomes a PR into the default branch, reviewed, merged; the issue closes. */
export const ship = async (pc: PlanCtx, key: IssueKey, solved: AttemptRecord) => {
  const issue = pc.issues.get(key)!;
  const ref = issueRef(key);
  const { pr, row } = await openPr(pc.deps, {
    runId: pc.run.id,
    issue: key,
    title: issue.title,
    forge: pc.forge,
    repo: pc.repo,
    base: pc.defaultBranch,
    solved,
    body: `Resolves #${issue.number}\n\nSize XS: shipped straight from plan-blitz wave ${waveOf(pc).index} by ${solved.rosterEntry}.`,
    known: pc.rows.get(key)?.prNumber,
    state: 'shipping',
  });
  if (!row.reviewPosted && pc.deps.review) {
    const author = rosterEntryFor(pc.deps.config.roster, { name: solved.rosterEntry });
    const r = await pc.deps.review({
      forge: pc.forge,
      pr: pr.ref,
      attempt: solved,
      reviewer: pickReviewer(pc.deps.config.roster, {
        name: author.name,
        tool: author.tool,
        ...(author.provider ? { provider: author.provider } : {}),
        roles: [],
        tiers: [],
        costRank: 0,
      }),
      runId: pc.run.id,
    });
    await pc.deps.store.upsertRunIssue(pc.run.id, issue.repo, issue.number, { reviewPosted: r.posted });
  }
  const now = await pc.forge.getPullRequest(pr.ref);
  let sha = now.merged ? now.mergeCommitSha : undefined;
  if (!now.merged) {
    try {
      sha = (
        await pc.forge.mergePullRequest(pr.ref, {
          method: pc.repoConfig.mergeMethod.blitz,
          expectedHeadSha: now.head.sha,
          title: `Merge #${issue.number}: ${issue.title}`,
        })
      ).sha;
    } catch (err) {
      if (!isAppError(err, 'unmergeable') && !isAppError(err, 'conflict')) throw err;
      return land(pc, key, {
        landing: 'refused',
        size: 'XS',
        note: `its PR #${pr.ref.number} could not be merged: ${err.message}`,
      });
    }
  }
  await closeWithComment(
    pc.forge,
    ref,
    `Shipped in plan-blitz wave ${waveOf(pc).index} (size XS): merged into \`${pc.defaultBranch}\` by ${sha ?? 'a merge'} (PR #${pr.ref.number}).`,
  );
  // The merged worktree and branch go, as after a blitz merge; a failure only leaves them behind.
  await onAttemptHost(
    pc.deps,
    {
      kind: 'cleanup',
      repo: pc.repo,
      mergedInto: pc.defaultBranch,
      attemptIds: [],
      mergedHeads: [now.head.sha],
    },
    [solved],
  )
    .then(() => pc.forge.deleteBranch(pc.repo, solved.branch))
    .catch((err: unknown) =>
      pc.deps.logger.warn({ runId: pc.run.id, issue: key, err }, 'XS branch not cleaned up'),
    );
  await land(pc, key, {
    landing: 'closed',
    size: 'XS',
    ...(sha ? { mergeSha: sha } : {}),
    ...(pc.deps.review ? {} : { note: 'merged without a review leg: no review module is wired' }),
  });
};
