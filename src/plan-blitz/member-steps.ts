// Performs one wave member's step, op by op, as plan/plan-member.ts decided it: labels, the plan comment,
// a phase entered, a planner or worker queued, the XS lane's ship and, once merged, its close and
// clean-up, a PIVOT's replan issue, a landing. A step that reads the pushed plan, asks the reviewers or
// merges an XS only records the world's answer on the member (its wave's `answers`, through the run
// writer) and asks for a pass: the next pass's step decides on it. Each op checks the world where it
// matters.

import { markdownText } from '../dashboard/escape.ts';
import { renderPlanComment, replanIssueBody } from '../dashboard/plan-comment.ts';
import { formatRepo } from '../forges/types.ts';
import { beforeMerge, markersLeft } from '../plan/merge-conflict.ts';
import { planMarker } from '../plan/plan-labels.ts';
import type { MemberAnswer, MemberOp } from '../plan/plan-member.ts';
import type { Action } from '../plan/snapshot.ts';
import type { IssueKey } from '../plan/types.ts';
import { attemptIsHere, onAttemptHost } from '../queue/dispatcher.ts';
import { reviewPlan } from '../review/plan-review.ts';
import { reviewAuthorOf } from '../review/review-leg.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { closeWithComment } from '../runs/close-issue.ts';
import { cleanUpMerged, mergeStep, openPr } from '../runs/pull-requests.ts';
import { issuesShippedOf, tellOnce } from '../runs/run-notice.ts';
import { writeIssue } from '../runs/run-writer.ts';
import { runNoticeOf } from '../ship/run-notices.ts';
import { enterPhase, issueRef, land, readPlan, startAttempt } from './member-phases.ts';
import { type PlanCtx, savePlan, waveOf } from './plan-context.ts';

type Step = Extract<Action, { type: 'advance_member' }>;
type Op<K extends MemberOp['op']> = Extract<MemberOp, { op: K }>;

const attemptOf = (pc: PlanCtx, id: string): AttemptRecord => {
  const a = pc.attempts.find((x) => x.id === id);
  if (!a) throw new Error(`attempt ${id} is not in the run's ledger`);
  return a;
};

/** XS: the worker's branch becomes a PR into the default branch, reviewed, merged; the answer is recorded. */
const ship = async (pc: PlanCtx, key: IssueKey, solved: AttemptRecord): Promise<void> => {
  const issue = pc.issues.get(key)!;
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
    lane: 'xs',
    row: pc.rows.get(key),
  });
  if (!row.reviewPosted && pc.deps.review) {
    // The leg asks the reviewer furthest from the worker's tool and provider first.
    const r = await pc.deps.review({ forge: pc.forge, pr: pr.ref, attempt: solved, runId: pc.run.id });
    await writeIssue(pc.deps.store, pc.run.id, issue.repo, issue.number, { reviewPosted: r.posted });
  }
  const now = await pc.forge.getPullRequest(pr.ref);
  const answer = { attempt: solved.id, planner: solved.rosterEntry };
  const number = pr.ref.number;
  // After a conflict resume, no file that conflicted may still hold a marker (the blitz's one check).
  const left = now.merged ? undefined : await markersLeftAfterResume(pc, key, solved);
  if (left) return record(pc, key, { ...answer, shipRefused: { pr: number, reason: left, conflict: true } });
  const reviewed = pc.deps.review !== undefined;
  // Recorded before the merge: a bot that stops before recording its answer reads the PR next pass.
  await record(pc, key, { ...answer, merging: { pr: number, reviewed } });
  const m = await mergeStep(pc.forge, now, {
    method: pc.repoConfig.mergeMethod.blitz,
    title: `Merge #${issue.number}: ${issue.title}`,
  });
  // The next pass's step decides what the merge or the refusal means (plan/plan-member.ts).
  // A conflict is told by the PR as the forge shows it after the refusal (plan/merge-conflict.ts).
  const conflict = m.kind === 'mergeRefused' && m.refusal.why === 'conflict';
  await record(
    pc,
    key,
    m.kind === 'mergeRefused'
      ? {
          ...answer,
          shipRefused: {
            pr: number,
            reason: conflict ? `its PR #${number} conflicts with ${pc.defaultBranch}` : m.why,
            ...(conflict ? { conflict: true } : {}),
          },
        }
      : {
          ...answer,
          shipped: { pr: number, ...(m.sha ? { sha: m.sha } : {}), reviewed },
        },
  );
};

/** The words for conflicted files still marked after a conflict resume of the XS's worker; undefined: none. */
const markersLeftAfterResume = async (
  pc: PlanCtx,
  key: IssueKey,
  solved: AttemptRecord,
): Promise<string | undefined> => {
  const resumes = pc.rows.get(key)?.conflictResumes ?? 0;
  const facts = {
    resumes,
    session: true,
    base: pc.defaultBranch,
    worker: 'ended' as const,
    solved: true,
    conflictFiles: solved.conflictFiles ?? [],
    remote: !attemptIsHere(pc.deps, solved),
  };
  const s = beforeMerge(facts);
  if (s.step !== 'read_markers') return undefined;
  const markers = await pc.deps.runner.markedFiles(solved.id, facts.conflictFiles);
  return beforeMerge({ ...facts, markers }).step === 'merge' ? undefined : markersLeft(markers);
};

/** XS whose PR conflicts: its worker's session merges the default branch in; the try is counted on its row. */
const resumeOnConflict = async (pc: PlanCtx, key: IssueKey, a: AttemptRecord, n: number): Promise<void> => {
  await onAttemptHost(
    pc.deps,
    { kind: 'resume', attemptId: a.id, reason: 'conflict', mergeBase: pc.defaultBranch },
    [a],
  );
  const issue = issueRef(key);
  await writeIssue(pc.deps.store, pc.run.id, formatRepo(issue.repo), issue.number, {
    conflictResumes: n,
    conflictResumeAt: a.launchedAt,
    conflictResumeSentAt: pc.deps.clock.now().toISOString(),
  });
  // The refusal is answered: the next pass waits for the session, then ships again.
  await record(pc, key, { attempt: a.id, planner: a.rosterEntry });
};

/** XS merged: the issue closes with a comment naming the merge, unless the forge or a person closed it. */
const close = (pc: PlanCtx, key: IssueKey, o: Op<'close'>) =>
  closeWithComment(
    pc.forge,
    issueRef(key),
    `Shipped in plan-blitz wave ${waveOf(pc).index} (size XS): merged into \`${pc.defaultBranch}\` by ${o.sha ?? 'a merge'} (PR #${o.pr}).`,
  );

/** XS merged: its worktree and the PR's branch go, as after a blitz merge (a failure only leaves them). */
const cleanUp = async (pc: PlanCtx, key: IssueKey, o: Op<'clean_up'>) => {
  const log = { runId: pc.run.id, issue: key, pr: o.pr };
  const pr = await pc.forge.getPullRequest({ repo: pc.repo, number: o.pr }).catch((err: unknown) => {
    pc.deps.logger.warn({ ...log, err }, 'merged branch not cleaned up');
  });
  if (pr)
    await cleanUpMerged(pc.deps, pc.forge, { repo: pc.repo, pr, attempt: attemptOf(pc, o.attempt), log });
};

/** PIVOT: a replan issue (found again by its title, else filed) blocks the member, which lands pivoted. */
const pivot = async (pc: PlanCtx, key: IssueKey, p: Op<'pivot'>) => {
  const issue = pc.issues.get(key)!;
  const title = `Replan #${issue.number}: ${issue.title}`.slice(0, 200);
  const existing = [...pc.issues.values()].find((i) => i.title === title);
  const replan =
    existing?.number ??
    (
      await pc.forge.createIssue(pc.repo, {
        title,
        body: replanIssueBody(issue.number, issue.title, p.reviews),
        milestone: pc.run.milestoneNumber,
      })
    ).ref.number;
  await pc.forge.addBlockedBy(issueRef(key), { repo: pc.repo, number: replan });
  await comment(pc, key, { ...p, op: 'comment', status: 'pivot' }, replan);
  await land(pc, key, {
    landing: 'pivoted',
    size: p.size,
    replanIssue: replan,
    note: `PIVOT: replan in #${replan}`,
  });
};

const comment = (pc: PlanCtx, key: IssueKey, c: Op<'comment'>, replanIssue?: number) =>
  pc.forge.upsertStickyComment(
    issueRef(key),
    planMarker,
    renderPlanComment({
      status: c.status,
      size: c.size,
      plan: c.plan,
      wave: waveOf(pc).index,
      planner: c.planner,
      ...(c.reviews ? { reviews: c.reviews } : {}),
      ...(c.note ? { note: c.note } : {}),
      ...(replanIssue !== undefined ? { replanIssue } : {}),
    }),
  );

/** Records the world's answer to the member's step; the next pass's step decides what it means. */
const record = async (pc: PlanCtx, key: IssueKey, answer: MemberAnswer): Promise<void> => {
  waveOf(pc).answers[key] = answer;
  await savePlan(pc);
};

const readAnswer = async (pc: PlanCtx, author: AttemptRecord): Promise<MemberAnswer> => {
  const plan = await readPlan(pc, author);
  return { attempt: author.id, planner: author.rosterEntry, ...(plan !== undefined ? { plan } : {}) };
};

const reviewAnswer = async (pc: PlanCtx, key: IssueKey, o: Op<'review'>): Promise<MemberAnswer> => {
  const issue = pc.issues.get(key)!;
  const author = attemptOf(pc, o.attempt);
  const r = await reviewPlan({
    issue: { repo: issue.repo, number: issue.number, title: issue.title, body: issue.body },
    plan: o.plan,
    size: o.size,
    author: reviewAuthorOf(pc.deps.config.roster, author, 'unknown'),
    roster: pc.deps.config.roster,
    timeoutSeconds: pc.deps.config.reviewTimeoutSeconds,
    baseEnv: pc.deps.baseEnv,
    signal: new AbortController().signal,
    logger: pc.deps.logger,
  });
  return {
    attempt: author.id,
    planner: author.rosterEntry,
    plan: o.plan,
    review: { verdict: r.verdict, reviews: r.reviews, failures: r.failures },
  };
};

/**
 * Performs the step; true when it moved the member (a phase entered, an answer recorded, or landed):
 * another pass follows.
 */
export const performMemberStep = async (pc: PlanCtx, step: Step): Promise<boolean> => {
  const key = step.issue;
  let moved = false;
  for (const o of step.ops)
    switch (o.op) {
      case 'land':
        moved = true;
        await land(pc, key, o.outcome);
        break;
      case 'add_labels':
        await pc.forge.addLabels(issueRef(key), o.labels);
        break;
      case 'remove_label':
        await pc.forge.removeLabel(issueRef(key), o.label).catch(() => undefined);
        break;
      case 'comment':
        await comment(pc, key, o);
        break;
      case 'enter':
        moved = true;
        await enterPhase(pc, key, o.phase, o.feedback);
        break;
      case 'attempt':
        await startAttempt(pc, key, o.phase);
        break;
      case 'ship':
        await ship(pc, key, attemptOf(pc, o.attempt));
        moved = true;
        break;
      case 'close':
        await close(pc, key, o);
        break;
      case 'clean_up':
        await cleanUp(pc, key, o);
        break;
      case 'notify': {
        // A member that needs a person: the notify targets, and the planning issue (@mentioning the
        // starter when no target would tell them), once per key.
        const sentence = markdownText(o.message, 600);
        await tellOnce(
          pc.deps,
          pc,
          o.key,
          {
            title: `plan-blitz: ${markdownText(pc.run.milestoneTitle)}`,
            sentence,
            next: `To continue: \`${o.command}\``,
          },
          runNoticeOf(pc.run, 'needs_person', o.message, {
            issue: issueRef(key).number,
            command: o.command,
            issuesShipped: await issuesShippedOf(pc.deps, pc.run.id),
            ...(pc.deps.config.publicUrl ? { publicUrl: pc.deps.config.publicUrl } : {}),
          }),
        );
        break;
      }
      case 'read_plan':
        await record(pc, key, await readAnswer(pc, attemptOf(pc, o.attempt)));
        moved = true;
        break;
      case 'review':
        await record(pc, key, await reviewAnswer(pc, key, o));
        moved = true;
        break;
      case 'pivot':
        moved = true;
        await pivot(pc, key, o);
        break;
      case 'resume_conflict':
        moved = true;
        await resumeOnConflict(pc, key, attemptOf(pc, o.attempt), o.try);
        break;
    }
  return moved;
};
