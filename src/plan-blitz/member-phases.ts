// The executor's primitives for one wave member's phases (sizing, planning, fixing, coding, then
// reviewing or shipping; plan/plan-member.ts decides them) as run_issues rows, the attempts that serve
// them, reading a pushed plan, and landing: the outcome written into the wave at once, plan branches dropped.
import { formatRepo, type IssueRef } from '../forges/types.ts';
import { sizeOf } from '../plan/plan-labels.ts';
import type { MemberPhase as Phase } from '../plan/plan-member.ts';
import type { WaveOutcome } from '../plan/plan-progress.ts';
import { pickWorker } from '../plan/routing.ts';
import { assessTier } from '../plan/tier.ts';
import { type IssueKey, type PlanIssue, refOf } from '../plan/types.ts';
import { dispatchAttempt } from '../queue/dispatch-attempt.ts';
import { type PlannerStep, plannerJob } from '../runner/planner-task.ts';
import { readPushedPlan } from '../runner/read-plan.ts';
import { rosterEntryFor } from '../runner/roster-entry.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { writeIssue, writeOutcome } from '../runs/run-writer.ts';
import { attemptsOfIssue, type PlanCtx, savePlan, waveOf } from './plan-context.ts';

const stepOf: Record<Exclude<Phase, 'coding'>, PlannerStep> = {
  sizing: 'size',
  planning: 'plan',
  fixing: 'fix',
};

/** An S issue is asked for a short spec, not a full plan. */
const stepFor = (phase: Exclude<Phase, 'coding'>, size: string | undefined): PlannerStep =>
  phase === 'planning' && size === 'S' ? 'spec' : stepOf[phase];

export const repoOf = (i: PlanIssue) => i.repo;
export const issueRef = (key: IssueKey): IssueRef => refOf(key);

/** Plan branches are a transport: once the plan is on the tracker they go (best effort). */
export const dropPlanBranches = async (pc: PlanCtx, key: IssueKey): Promise<void> => {
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

export const land = async (pc: PlanCtx, key: IssueKey, outcome: WaveOutcome): Promise<void> => {
  const w = waveOf(pc);
  // The title is kept: a closed issue is no longer in the milestone's open list.
  const title = pc.issues.get(key)?.title;
  w.outcomes[key] = { ...outcome, ...(title !== undefined && outcome.title === undefined ? { title } : {}) };
  delete w.answers[key];
  const ref = issueRef(key);
  const at = { repo: formatRepo(ref.repo), number: ref.number };
  await writeOutcome(pc.deps.store, pc.run.id, at, pc.rows.get(key), {
    kind: 'landed',
    landing: outcome.landing,
    ...(outcome.note ? { note: outcome.note } : {}),
  });
  await savePlan(pc);
  // Only once the landing is saved: a step retried after a crash may still need to read the plan.
  await dropPlanBranches(pc, key);
};

/** Moves the issue into a phase: attempts before now no longer count for it. */
export const enterPhase = async (
  pc: PlanCtx,
  key: IssueKey,
  phase: Phase | 'reviewing' | 'shipping',
  feedback?: string,
) => {
  const issue = pc.issues.get(key)!;
  const last = attemptsOfIssue(pc, key).at(-1);
  const at = { repo: repoOf(issue), number: issue.number };
  const row = await writeOutcome(pc.deps.store, pc.run.id, at, pc.rows.get(key), {
    kind: 'phaseEntered',
    phase,
    ...(last ? { last: last.id } : {}),
    ...(feedback !== undefined ? { feedback } : {}),
  });
  pc.rows.set(key, row);
};

/** A worker (coding) or a planner for the phase; the planner gave the step a free slot. */
export const startAttempt = async (pc: PlanCtx, key: IssueKey, phase: Phase): Promise<void> => {
  const issue = pc.issues.get(key)!;
  const row = pc.rows.get(key);
  const size = sizeOf(issue);
  const history = attemptsOfIssue(pc, key).map((a) => ({
    entry: a.rosterEntry,
    tier: a.tier,
    ...(a.outcome ? { outcome: a.outcome } : {}),
  }));
  const pick = pickWorker({
    role: phase === 'coding' ? 'blitz' : 'plan',
    assessedTier: assessTier(issue.body, issue.labels).tier,
    roster: pc.deps.config.roster,
    attempts: history,
  });
  const attemptNo = (row?.attempts ?? 0) + 1;
  const planner = phase !== 'coding';
  const job = async () => ({
    kind: 'attempt' as const,
    runId: pc.run.id,
    issue: { repo: refOf(key).repo, number: issue.number },
    ...(planner
      ? plannerJob({
          step: stepFor(phase, size),
          title: issue.title,
          body: issue.body,
          ...(size ? { size } : {}),
        })
      : { title: issue.title, body: issue.body }),
    branchStyle: 'blitz' as const,
    runSlug: planner ? pc.run.slug : `${pc.run.slug}-xs`,
    baseBranch: pc.defaultBranch,
    cloneUrl: pc.cloneUrl,
    entry: rosterEntryFor(pc.deps.config.roster, pick.entry),
    tier: pick.tier,
    ...(phase === 'fixing' && row?.lastError
      ? { failureFeedback: `The reviewers said BLOCKED. Apply these findings:\n${row.lastError}` }
      : {}),
  });
  // Through the queue like every attempt: the count and the job commit together, once per replica set.
  await dispatchAttempt(pc.deps, {
    runId: pc.run.id,
    issue: key,
    attemptNo,
    job,
    record: (w) => writeIssue(w, pc.run.id, repoOf(issue), issue.number, { attempts: attemptNo }),
  });
};

export const readPlan = async (pc: PlanCtx, a: AttemptRecord): Promise<string | undefined> =>
  readPushedPlan({
    workspace: pc.deps.config.runner.workspace,
    repo: pc.repo,
    cloneUrl: pc.cloneUrl,
    branch: a.branch,
    ctx: await pc.deps.runner.gitContext(pc.repo),
  });
