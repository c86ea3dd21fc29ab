// One step of one wave member down its size lane (seed 002 §4), each step checking the world first:
// XS → a worker ships it (PR into the default branch, review leg, merge, issue closed);
// S → a short spec comment and `plan/ready`; M/L → a planner worker writes the plan and reviewers
// review it (APPROVED → `plan/approved`; BLOCKED → the planner applies the findings and the fixed
// plan is approved; PIVOT → a replan issue is filed and linked). No size → the planner sizes it first.
import { isAppError } from '../../errors.ts';
import type { IssueRef } from '../../forges/types.ts';
import { pickReviewer, pickWorker } from '../../plan/routing.ts';
import { assessTier } from '../../plan/tier.ts';
import type { IssueKey, PlanIssue } from '../../plan/types.ts';
import { type PlanReviewResult, reviewPlan } from '../../review/plan-review.ts';
import type { AttemptRecord } from '../../runner/types.ts';
import { refOf } from '../perform.ts';
import { type PlanStatus, renderPlanComment, replanIssueBody } from './plan-comment.ts';
import {
  attemptsOfIssue,
  entryByName,
  type PlanCtx,
  phaseAttempts,
  savePlan,
  waveOf,
} from './plan-context.ts';
import {
  needsReview,
  parsePlanSize,
  planMarker,
  planRunLabels,
  type Size,
  sizeLabel,
  sizeOf,
} from './plan-labels.ts';
import type { WaveOutcome } from './plan-state.ts';
import { type PlannerStep, plannerTaskBody, plannerTaskTitle } from './planner-task.ts';
import { readPushedPlan } from './read-plan.ts';

export type Phase = 'sizing' | 'planning' | 'fixing' | 'coding';
const phases: readonly string[] = ['sizing', 'planning', 'fixing', 'coding'];
const stepOf: Record<Exclude<Phase, 'coding'>, PlannerStep> = {
  sizing: 'size',
  planning: 'plan',
  fixing: 'fix',
};

const repoOf = (i: PlanIssue) => i.repo;
const issueRef = (key: IssueKey): IssueRef => refOf(key);

/** Plan branches are a transport: once the plan is on the tracker they go (best effort). */
const dropPlanBranches = async (pc: PlanCtx, key: IssueKey): Promise<void> => {
  const branches = new Set(
    attemptsOfIssue(pc, key)
      .filter((a) => a.job.runSlug === pc.run.slug && a.outcome === 'solved')
      .map((a) => a.branch),
  );
  for (const b of branches)
    await pc.forge.deleteBranch(pc.repo, b).catch((err: unknown) => {
      pc.deps.logger.warn({ runId: pc.run.id, branch: b, err }, 'plan branch not deleted');
    });
};

const land = async (pc: PlanCtx, key: IssueKey, outcome: WaveOutcome): Promise<void> => {
  const w = waveOf(pc);
  w.outcomes[key] = outcome;
  const ref = issueRef(key);
  await dropPlanBranches(pc, key);
  await pc.deps.store.upsertRunIssue(pc.run.id, `${ref.repo.owner}/${ref.repo.name}`, ref.number, {
    state: outcome.landing,
    ...(outcome.note ? { lastError: outcome.note } : {}),
  });
  await savePlan(pc);
};

/** Moves the issue into a phase: attempts before now no longer count for it. */
const enterPhase = async (
  pc: PlanCtx,
  key: IssueKey,
  phase: Phase | 'reviewing' | 'shipping',
  feedback?: string,
) => {
  const issue = pc.issues.get(key)!;
  const last = attemptsOfIssue(pc, key).at(-1);
  const row = await pc.deps.store.upsertRunIssue(pc.run.id, repoOf(issue), issue.number, {
    state: phase,
    ...(phases.includes(phase) && last ? { bouncedAfter: last.id } : {}),
    ...(feedback !== undefined ? { lastError: feedback } : {}),
  });
  pc.rows.set(key, row);
};

const startAttempt = async (pc: PlanCtx, key: IssueKey, phase: Phase): Promise<void> => {
  if (pc.slots.free <= 0) return;
  const issue = pc.issues.get(key)!;
  const row = pc.rows.get(key);
  const size = sizeOf(issue);
  const history = attemptsOfIssue(pc, key).map((a) => ({
    entry: a.rosterEntry,
    tier: a.tier,
    ...(a.outcome ? { outcome: a.outcome } : {}),
  }));
  const opts = pc.run.options as { override?: Parameters<typeof pickWorker>[0]['override'] };
  const pick = pickWorker({
    role: phase === 'coding' ? 'blitz' : 'plan',
    assessedTier: assessTier(issue.body, issue.labels).tier,
    roster: pc.deps.config.roster,
    attempts: history,
    ...(opts.override ? { override: opts.override } : {}),
  });
  pc.slots.free--;
  await pc.deps.store.upsertRunIssue(pc.run.id, repoOf(issue), issue.number, {
    attempts: (row?.attempts ?? 0) + 1,
  });
  const planner = phase !== 'coding';
  await pc.deps.runner.execute({
    kind: 'attempt',
    runId: pc.run.id,
    issue: { repo: refOf(key).repo, number: issue.number },
    title: planner ? plannerTaskTitle({ step: stepOf[phase], title: issue.title }) : issue.title,
    body: planner
      ? plannerTaskBody({
          step: stepOf[phase],
          issueNumber: issue.number,
          title: issue.title,
          body: issue.body,
          ...(size ? { size } : {}),
        })
      : issue.body,
    branchStyle: 'blitz',
    runSlug: planner ? pc.run.slug : `${pc.run.slug}-xs`,
    baseBranch: pc.defaultBranch,
    cloneUrl: pc.cloneUrl,
    entry: entryByName(pc.deps, pick.entry),
    tier: pick.tier,
    ...(phase === 'fixing' && row?.lastError ? { failureFeedback: row.lastError } : {}),
  });
  pc.deps.logger.info(
    { runId: pc.run.id, issue: key, phase, entry: pick.entry.name },
    'plan-blitz attempt started',
  );
};

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

const readPlan = async (pc: PlanCtx, a: AttemptRecord): Promise<string | undefined> =>
  readPushedPlan({
    workspace: pc.deps.config.runner.workspace,
    repo: pc.repo,
    cloneUrl: pc.cloneUrl,
    branch: a.branch,
    ctx: await pc.deps.runner.gitContext(pc.repo),
  });

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

const review = async (pc: PlanCtx, key: IssueKey, size: Size, plan: string, author: AttemptRecord) => {
  const issue = pc.issues.get(key)!;
  const entry = entryByName(pc.deps, { name: author.rosterEntry });
  const r = await reviewPlan({
    issue: { repo: issue.repo, number: issue.number, title: issue.title, body: issue.body },
    plan,
    size,
    author: { name: entry.name, tool: entry.tool, ...(entry.provider ? { provider: entry.provider } : {}) },
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
    await enterPhase(pc, key, 'fixing', `The reviewers said BLOCKED. Apply these findings:\n${findings}`);
    return startAttempt(pc, key, 'fixing');
  }
  const note =
    r.verdict === 'unclear'
      ? 'the reviewers answered without a verdict'
      : `no reviewer could review it (${r.failures.join('; ') || 'none configured'})`;
  await comment(pc, key, 'refused', size, plan, author.rosterEntry, { note });
  await land(pc, key, { landing: 'refused', size, note });
};

/**
 * XS whose blockers are not all closed: the planning gate let it into the wave, but shipping code
 * needs the execution gate. It needs no plan, so it is marked execution-ready for a later /blitz.
 */
const readyXs = async (pc: PlanCtx, key: IssueKey) => {
  await pc.forge.addLabels(issueRef(key), [planRunLabels.ready]);
  return land(pc, key, {
    landing: 'ready',
    size: 'XS',
    note: 'needs no plan; its blockers are not all closed yet, so /blitz ships it later',
  });
};

/** XS: the worker's branch becomes a PR into the default branch, reviewed, merged; the issue closes. */
const ship = async (pc: PlanCtx, key: IssueKey, solved: AttemptRecord) => {
  const issue = pc.issues.get(key)!;
  const ref = issueRef(key);
  const found = await pc.forge.findPullRequest(pc.repo, solved.branch);
  const pr =
    found ??
    (await pc.forge.openPullRequest(pc.repo, {
      head: solved.branch,
      base: pc.defaultBranch,
      title: `#${issue.number}: ${issue.title}`,
      body: `Resolves #${issue.number}\n\nSize XS: shipped straight from plan-blitz wave ${waveOf(pc).index} by ${solved.rosterEntry}.`,
    }));
  const row = await pc.deps.store.upsertRunIssue(pc.run.id, issue.repo, issue.number, {
    state: 'shipping',
    prNumber: pr.ref.number,
    branch: solved.branch,
  });
  if (!row.reviewPosted && pc.deps.review) {
    const author = entryByName(pc.deps, { name: solved.rosterEntry });
    const r = await pc.deps.review({
      forge: pc.forge,
      repo: pc.repo,
      pr: pr.ref.number,
      issue,
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
  const current = await pc.forge.getIssue(ref);
  if (current.state === 'open') {
    await pc.forge.createComment(
      ref,
      `Shipped in plan-blitz wave ${waveOf(pc).index} (size XS): merged into \`${pc.defaultBranch}\` by ${sha ?? 'a merge'} (PR #${pr.ref.number}).`,
    );
    await pc.forge.closeIssue(ref);
  }
  // The merged worktree and branch go, as after a blitz merge; a failure only leaves them behind.
  await pc.deps.runner
    .execute({ kind: 'cleanup', repo: pc.repo, mergedInto: pc.defaultBranch, attemptIds: [solved.id] })
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

/** A planner attempt finished with its branch pushed: read PLAN.md and take the issue down its lane. */
const planned = async (
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

const failed = (a: AttemptRecord, runnerRetries: number): boolean =>
  a.outcome !== undefined &&
  a.outcome !== 'solved' &&
  !(a.outcome === 'unsolved' && a.job.retry < runnerRetries);

/** Takes one wave member one step further; a member already landed is left alone. */
export const advanceMember = async (pc: PlanCtx, key: IssueKey): Promise<void> => {
  if (waveOf(pc).outcomes[key]) return;
  const issue = pc.issues.get(key);
  if (!issue) return land(pc, key, { landing: 'closed', note: 'closed on the tracker during the wave' });
  const row = pc.rows.get(key);
  const state = row?.state ?? 'queued';
  if (
    state === 'queued' ||
    !['sizing', 'planning', 'fixing', 'coding', 'reviewing', 'shipping'].includes(state)
  ) {
    const size = sizeOf(issue);
    if (size === 'XS' && !pc.executionOpen.has(key)) return readyXs(pc, key);
    const phase: Phase = size === undefined ? 'sizing' : size === 'XS' ? 'coding' : 'planning';
    if (pc.slots.free <= 0) return;
    await enterPhase(pc, key, phase);
    return startAttempt(pc, key, phase);
  }
  const attempts = phaseAttempts(pc, key);
  const latest = attempts.at(-1);
  if (state === 'reviewing' || state === 'shipping') {
    const solved = attempts.filter((a) => a.outcome === 'solved').at(-1);
    if (!solved) return land(pc, key, { landing: 'refused', note: 'its worker result was lost' });
    if (state === 'shipping') return ship(pc, key, solved);
    const text = await readPlan(pc, solved);
    const size = sizeOf(issue);
    if (!text || !size) return land(pc, key, { landing: 'refused', note: 'the plan to review is gone' });
    return review(pc, key, size, text, solved);
  }
  const phase = state as Phase;
  if (!latest) return startAttempt(pc, key, phase);
  if (latest.outcome === undefined) return;
  if (failed(latest, pc.deps.config.runner.retries))
    return land(pc, key, {
      landing: 'refused',
      ...(sizeOf(issue) ? { size: sizeOf(issue)! } : {}),
      note: `its ${phase === 'coding' ? 'worker' : 'planner'} finished ${latest.outcome}${latest.failureSummary ? `: ${latest.failureSummary.slice(0, 200)}` : ''}`,
    });
  if (latest.outcome !== 'solved') return;
  if (phase === 'coding') {
    await enterPhase(pc, key, 'shipping');
    return ship(pc, key, latest);
  }
  return planned(pc, key, phase, latest);
};
