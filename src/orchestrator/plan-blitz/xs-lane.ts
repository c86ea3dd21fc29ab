// The XS lane (seed 002 §4, "dispatch: work already done in the wave"): the worker's branch becomes a
// PR into the default branch, gets its review leg, is merged, and the issue is closed, all in the wave.
// Shipping needs the execution gate; an XS whose blockers are not closed is marked execution-ready.

import { planRunLabels } from '../../plan/plan-labels.ts';
import type { IssueKey } from '../../plan/types.ts';
import type { AttemptRecord } from '../../runner/types.ts';
import { closeWithComment } from '../close-issue.ts';
import { cleanUpMerged, mergePr, openPr } from '../pull-requests.ts';
import { issueRef, land } from './member-phases.ts';
import { type PlanCtx, waveOf } from './plan-context.ts';

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
    // The leg asks the reviewer furthest from the worker's tool and provider first.
    const r = await pc.deps.review({ forge: pc.forge, pr: pr.ref, attempt: solved, runId: pc.run.id });
    await pc.deps.store.upsertRunIssue(pc.run.id, issue.repo, issue.number, { reviewPosted: r.posted });
  }
  const now = await pc.forge.getPullRequest(pr.ref);
  const m = await mergePr(pc.forge, now, {
    method: pc.repoConfig.mergeMethod.blitz,
    title: `Merge #${issue.number}: ${issue.title}`,
  });
  if ('refused' in m)
    return land(pc, key, {
      landing: 'refused',
      size: 'XS',
      note: `its PR #${pr.ref.number} could not be merged: ${m.refused}`,
    });
  const { sha } = m;
  await closeWithComment(
    pc.forge,
    ref,
    `Shipped in plan-blitz wave ${waveOf(pc).index} (size XS): merged into \`${pc.defaultBranch}\` by ${sha ?? 'a merge'} (PR #${pr.ref.number}).`,
  );
  // The merged worktree and branch go, as after a blitz merge.
  const log = { runId: pc.run.id, issue: key };
  await cleanUpMerged(pc.deps, pc.forge, { repo: pc.repo, pr: now, attempt: solved, log });
  await land(pc, key, {
    landing: 'closed',
    size: 'XS',
    ...(sha ? { mergeSha: sha } : {}),
    ...(pc.deps.review ? {} : { note: 'merged without a review leg: no review module is wired' }),
  });
};
