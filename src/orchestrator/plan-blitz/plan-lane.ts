// The plan lanes (seed 002 §4): S → a short spec comment and `plan/ready`; M/L → the planner's plan as
// a draft comment, reviewed: APPROVED → `plan/approved`; BLOCKED → the planner applies the findings
// and the fixed plan is approved; PIVOT → a replan issue is filed and linked, the others carry on.
// An unsized issue's plan starts with its size: the label is added and the issue takes its lane.

import {
  needsReview,
  parsePlanSize,
  planMarker,
  planRunLabels,
  type Size,
  sizeLabel,
  sizeOf,
} from '../../plan/plan-labels.ts';
import type { IssueKey } from '../../plan/types.ts';
import { type PlanReviewResult, reviewPlan } from '../../review/plan-review.ts';
import type { AttemptRecord } from '../../runner/types.ts';
import { reviewAuthorOf } from '../review-leg.ts';
import { enterPhase, issueRef, land, type Phase, readPlan, startAttempt } from './member-phases.ts';
import { type PlanStatus, renderPlanComment, replanIssueBody } from './plan-comment.ts';
import { type PlanCtx, waveOf } from './plan-context.ts';
import { readyXs } from './xs-lane.ts';

const comment = async (
  pc: PlanCtx,
  key: IssueKey,
  status: PlanStatus,
  size: Size,
  plan: string,
  by: string,
  extra: { reviews?: PlanReviewResult['reviews']; replanIssue?: number; note?: string } = {},
) => {
  await pc.forge.upsertStickyComment(
    issueRef(key),
    planMarker,
    renderPlanComment({ status, size, plan, wave: waveOf(pc).index, planner: by, ...extra }),
  );
};

const approve = async (
  pc: PlanCtx,
  key: IssueKey,
  size: Size,
  plan: string,
  by: string,
  reviews: PlanReviewResult['reviews'],
) => {
  await comment(pc, key, 'approved', size, plan, by, { reviews });
  await pc.forge.addLabels(issueRef(key), [planRunLabels.approved]);
  await pc.forge.removeLabel(issueRef(key), planRunLabels.draft).catch(() => undefined);
  await land(pc, key, { landing: 'approved', size });
};

const pivot = async (
  pc: PlanCtx,
  key: IssueKey,
  size: Size,
  plan: string,
  by: string,
  r: PlanReviewResult,
) => {
  const issue = pc.issues.get(key)!;
  const title = `Replan #${issue.number}: ${issue.title}`.slice(0, 200);
  const existing = [...pc.issues.values()].find((i) => i.title === title);
  const replan =
    existing?.number ??
    (
      await pc.forge.createIssue(pc.repo, {
        title,
        body: replanIssueBody(issue.number, issue.title, r.reviews),
        milestone: pc.run.milestoneNumber,
      })
    ).ref.number;
  await pc.forge.addBlockedBy(issueRef(key), { repo: pc.repo, number: replan });
  await comment(pc, key, 'pivot', size, plan, by, { reviews: r.reviews, replanIssue: replan });
  await land(pc, key, { landing: 'pivoted', size, replanIssue: replan, note: `PIVOT: replan in #${replan}` });
};

export const review = async (pc: PlanCtx, key: IssueKey, size: Size, plan: string, author: AttemptRecord) => {
  const issue = pc.issues.get(key)!;
  const r = await reviewPlan({
    issue: { repo: issue.repo, number: issue.number, title: issue.title, body: issue.body },
    plan,
    size,
    author: reviewAuthorOf(pc.deps.config.roster, author, 'unknown'),
    roster: pc.deps.config.roster,
    timeoutSeconds: pc.deps.config.reviewTimeoutSeconds,
    baseEnv: pc.deps.baseEnv,
    signal: new AbortController().signal,
    logger: pc.deps.logger,
  });
  if (r.verdict === 'approved') return approve(pc, key, size, plan, author.rosterEntry, r.reviews);
  if (r.verdict === 'pivot') return pivot(pc, key, size, plan, author.rosterEntry, r);
  if (r.verdict === 'blocked') {
    await comment(pc, key, 'fixing', size, plan, author.rosterEntry, { reviews: r.reviews });
    const findings = r.reviews
      .filter((x) => x.verdict === 'blocked')
      .map((x) => x.findings)
      .join('\n');
    await enterPhase(pc, key, 'fixing', findings);
    return startAttempt(pc, key, 'fixing');
  }
  const note =
    r.verdict === 'unclear'
      ? 'the reviewers answered without a verdict'
      : `no reviewer could review it (${r.failures.join('; ') || 'none configured'})`;
  await comment(pc, key, 'refused', size, plan, author.rosterEntry, { note });
  await land(pc, key, { landing: 'refused', size, note });
};

/** A planner attempt finished with its branch pushed: read PLAN.md and take the issue down its lane. */
export const planned = async (
  pc: PlanCtx,
  key: IssueKey,
  phase: Exclude<Phase, 'coding'>,
  solved: AttemptRecord,
) => {
  const issue = pc.issues.get(key)!;
  const text = await readPlan(pc, solved);
  if (!text) return land(pc, key, { landing: 'refused', note: 'the planner pushed no PLAN.md' });
  let size = sizeOf(issue);
  if (phase === 'sizing') {
    const said = parsePlanSize(text);
    if (!said)
      return land(pc, key, { landing: 'refused', note: 'the planner did not give the issue a size' });
    await pc.forge.addLabels(issueRef(key), [sizeLabel(said)]);
    issue.labels.push({ name: sizeLabel(said) });
    size = said;
    if (said === 'XS' && !pc.executionOpen.has(key)) return readyXs(pc, key);
    if (said === 'XS') {
      await enterPhase(pc, key, 'coding');
      return startAttempt(pc, key, 'coding');
    }
  }
  if (!size) return land(pc, key, { landing: 'refused', note: 'the issue has no size' });
  if (phase === 'fixing') {
    const findings = pc.rows.get(key)?.lastError ?? '';
    return approve(pc, key, size, text, solved.rosterEntry, [
      { reviewer: 'the reviewers', verdict: 'blocked', findings },
    ]);
  }
  if (!needsReview(size)) {
    await comment(pc, key, 'spec', size, text, solved.rosterEntry);
    await pc.forge.addLabels(issueRef(key), [planRunLabels.draft, planRunLabels.ready]);
    return land(pc, key, { landing: 'ready', size });
  }
  await comment(pc, key, 'draft', size, text, solved.rosterEntry);
  await pc.forge.addLabels(issueRef(key), [planRunLabels.draft]);
  await enterPhase(pc, key, 'reviewing');
  return review(pc, key, size, text, solved);
};
