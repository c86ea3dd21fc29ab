// The effects of the planner's actions, each idempotent by checking the world first: a PR that
// exists is found, not opened twice; a closed issue is not closed again; a dispatch of an issue with
// a live attempt is skipped; a report or notification with the same content is posted once.

import { blockerReport } from '../dashboard/blocker-reports.ts';
import { blitzDryRun } from '../dashboard/dry-run.ts';
import { markdownText } from '../dashboard/escape.ts';
import {
  type BoundedDiff,
  type Forge,
  formatRepo,
  type ProgressReport,
  type PullRequest,
  type RepoRef,
} from '../forges/types.ts';
import { handoffFor } from '../plan/handoff.ts';
import { issueAttempts } from '../plan/issue-progress.ts';
import { awaitReviewPatch } from '../plan/run-patches.ts';
import type { Action } from '../plan/snapshot.ts';
import { type IssueKey, issueRef, type PlanIssue, refOf } from '../plan/types.ts';
import { dispatchAttempt } from '../queue/dispatch-attempt.ts';
import { type AttemptJob, onAttemptHost } from '../queue/dispatcher.ts';
import { diffOfHead, mergeCommitOf } from '../runner/integration-git.ts';
import { rosterEntryFor } from '../runner/roster-entry.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { cloneUrlOf, integrationGitOf } from '../runner/worker-clone.ts';
import type { BudgetProbe } from '../runs/budget-probe.ts';
import { batchedClose, closeRunIssue, epicClosedText, keepCloseFailure } from '../runs/close-issue.ts';
import type { RunCtx } from '../runs/context.ts';
import { performPark } from '../runs/environment-park-run.ts';
import { blockRun, unblockRun } from '../runs/hard-blocker-run.ts';
import type { Announcer, Clock, Forges, Log, Records, Reviewers, Settings, Workers } from '../runs/ports.ts';
import { mergeStep, openPr, pushedHead } from '../runs/pull-requests.ts';
import { repoCommandsOf } from '../runs/repo-settings.ts';
import { issuesShippedOf, reportOnce, tellOnce } from '../runs/run-notice.ts';
import { setRunState, stopRun } from '../runs/run-state.ts';
import { setProgress, writeOutcome, writeRun } from '../runs/run-writer.ts';
import { neverReported, reportedKey } from '../ship/pr-feedback-forge.ts';
import { queuedReport } from '../ship/pr-progress.ts';
import { runNoticeOf, runPageUrl } from '../ship/run-notices.ts';
import { checkBaseChange, keepBaseChange, ownBranch } from './base-change-step.ts';
import { approvedPlanText } from './blitz-plans.ts';
import { fileReportedBugs } from './file-findings.ts';
import { closeGateBlocker, fileGateBlocker } from './gate-blocker-run.ts';
import { runIntegrationReview } from './integration-review.ts';
import { sendIssueNotice } from './issue-notices.ts';
import { readyToMerge, settleRefusedMerge } from './merge-conflict-step.ts';
import { keepFeedbackState, keepReviewVerdict, reportQueued } from './pr-feedback.ts';
import { performPrFeedback } from './pr-feedback-step.ts';
import { settleFailedReviewLeg } from './review-leg-failed.ts';
import { fileSmokeFinding } from './smoke-finding.ts';
import { nudgeWithTells } from './tell-nudge.ts';

export interface Effects {
  /** Starts a build or smoke check in the background; the result lands in the run's progress. */
  startGate(ctx: RunCtx, name: 'build' | 'smoke', covers: IssueKey[]): Promise<void>;
  bounce(ctx: RunCtx, issue: IssueKey, reason: string): Promise<void>;
  ship(ctx: RunCtx, path: 'deploy' | 'local', reason: string): Promise<void>;
  notify(
    ctx: RunCtx,
    level: 'info' | 'ready' | 'blocked' | 'waiting',
    title: string,
    message: string,
  ): Promise<void>;
  /**
   * Removes a closed issue's worktree and branches after the pass (issue-cleanup.ts): git work that
   * decides nothing, so the issues its close made ready are dispatched without waiting for it.
   */
  cleanupClosed(ctx: RunCtx, issue: IssueKey): void;
}

/** What applying an action uses: each step below takes its own part of it. */
export type PerformPorts = Records &
  Workers &
  Forges &
  Announcer &
  Clock &
  Log &
  Settings &
  Reviewers & {
    effects: Effects;
    /** The run loop's one budget probe (budget-probe.ts), shared with the fleet and plan passes. */
    probe: BudgetProbe;
  };

export { refOf };

/** What a pass performs on: all it read, or (`held`: the forge refused it) the run and the hard blocker alone. */
export type PassCtx = RunCtx | (Pick<RunCtx, 'run' | 'snap'> & { held: true });

/** Where a run kind does one issue's work, and what its jobs and PRs carry beyond the shared fields. */
export interface RunKind {
  issue(key: IssueKey): PlanIssue | undefined;
  /** The issue's forge and repository, and the branch its PR merges into. */
  site(key: IssueKey): { forge: Forge; repo: RepoRef; base: string };
  job: Pick<AttemptJob, 'branchStyle' | 'runSlug'>;
  /** More job fields (an approved plan, a failure to fix, other runs' fences), read as the job is built. */
  extras(key: IssueKey): Promise<Partial<AttemptJob>>;
  prBody(key: IssueKey, solved: AttemptRecord): string;
  /** The CI fix attempts the issue's repository allows (its `ci:` settings). */
  maxFixAttempts(key: IssueKey): Promise<number>;
}

type StepCtx = Pick<RunCtx, 'run' | 'rows' | 'attempts'>;

const solvedOf = (ctx: StepCtx, key: IssueKey): AttemptRecord | undefined =>
  issueAttempts(ctx, key)
    .filter((x) => x.outcome === 'solved')
    .at(-1);

/** The issue's worker, through the one dispatch path; true when a job was sent. */
export const dispatchIssue = async (
  deps: Workers & Log & Settings,
  ctx: StepCtx,
  kind: RunKind,
  a: Extract<Action, { type: 'dispatch' }>,
): Promise<boolean> => {
  const issue = kind.issue(a.issue);
  if (!issue) return false;
  const { forge, repo, base } = kind.site(a.issue);
  const ref = refOf(a.issue);
  const attemptNo = (ctx.rows.get(a.issue)?.attempts ?? 0) + 1;
  const job = async (): Promise<AttemptJob> => {
    const cloneUrl = await cloneUrlOf(deps, forge, repo);
    const { fences = [], ...extras } = await kind.extras(a.issue);
    return {
      kind: 'attempt',
      runId: ctx.run.id,
      issue: { repo, number: ref.number },
      title: issue.title,
      body: issue.body,
      ...kind.job,
      baseBranch: base,
      cloneUrl,
      entry: rosterEntryFor(deps.config.roster, a.worker.entry),
      tier: a.worker.tier,
      fences: [...a.fenceOff.map((f) => ({ path: f.path, ownerIssue: refOf(f.owner).number })), ...fences],
      ...extras,
    };
  };
  // The row and the job commit together; branch and worktree come back through the ledger.
  const at = { repo: formatRepo(ref.repo), number: ref.number };
  const dispatched = { kind: 'dispatched' as const, attempt: attemptNo };
  return dispatchAttempt(deps, {
    runId: ctx.run.id,
    issue: a.issue,
    attemptNo,
    job,
    record: (w) => writeOutcome(w, ctx.run.id, at, ctx.rows.get(a.issue), dispatched),
  });
};

/** The worker pushed: find its PR, or open one (it may not have opened one). */
export const openIssuePr = async (
  deps: Records & Workers & Log & Settings,
  ctx: StepCtx,
  kind: RunKind,
  key: IssueKey,
) => {
  const solved = solvedOf(ctx, key);
  if (!solved) return;
  const title = kind.issue(key)?.title;
  const body = kind.prBody(key, solved);
  const site = kind.site(key);
  // The bot's own `blitz` check starts queued on the new head (issue 21: progress as checks); where
  // the forge can, it goes with the open, on the head the bot's own git sees pushed.
  const report = queuedReport(runPageUrl(deps.config.publicUrl, ctx.run.id));
  const sha =
    neverReported(ctx.run.progress.prFeedback?.[key]) && site.forge.opensWithProgress
      ? await pushedHead(deps, { ...site, branch: solved.branch })
      : undefined;
  const { pr } = await openPr(deps, {
    ...site,
    runId: ctx.run.id,
    issue: key,
    title,
    solved,
    body,
    lane: 'integration',
    row: ctx.rows.get(key),
    ...(sha ? { progress: { sha, report } } : {}),
  });
  await reportQueued(deps, {
    ...site,
    runId: ctx.run.id,
    key,
    head: pr.head.sha,
    ...(pr.progressSent ? { sent: true } : {}),
  });
};

/** An interrupted worker goes on where its worktree is. */
export const resumeIssue = async (deps: Workers, ctx: StepCtx, key: IssueKey) => {
  const live = issueAttempts(ctx, key).at(-1);
  if (live) await onAttemptHost(deps, { kind: 'resume', attemptId: live.id, reason: 'interrupted' }, [live]);
};

/**
 * The issue work every run kind performs alike, through its `RunKind`: a worker resumed, a PR opened, a
 * `/blitz tell` delivered, a PR's feedback acted on, the run's state moved or stopped (blitz and fleet;
 * a plan run's stop is its own). False for any other action.
 */
export const performIssueWork = async (
  deps: Records & Workers & Announcer & Log & Settings,
  ctx: StepCtx & Pick<RunCtx, 'prFacts' | 'mergeNext'>,
  kind: RunKind,
  a: Action,
): Promise<boolean> => {
  switch (a.type) {
    case 'resume':
      await resumeIssue(deps, ctx, a.issue);
      return true;
    case 'open_pr':
      await openIssuePr(deps, ctx, kind, a.issue);
      return true;
    case 'tell':
      await nudgeWithTells(deps, ctx, a.issue);
      ctx.run = (await deps.store.getRun(ctx.run.id)) ?? ctx.run;
      return true;
    case 'pr_feedback': {
      if (!ctx.prFacts) return true;
      const { forge, repo, base } = kind.site(a.issue);
      const maxFixAttempts = await kind.maxFixAttempts(a.issue);
      const { run, attempts, rows, prFacts } = ctx;
      // A merge of this head follows in the pass: the check's completion goes with it (one request).
      const next = ctx.mergeNext?.issue === a.issue && forge.mergesWithProgress ? ctx.mergeNext : undefined;
      const carry = next && {
        head: next.head,
        take: (report: ProgressReport) => {
          next.report = report;
        },
      };
      await performPrFeedback(
        deps,
        { forge, repo, run, attempts, rows, maxFixAttempts, prFacts, base, ...(carry ? { carry } : {}) },
        a.issue,
        a.pr,
      );
      ctx.run = (await deps.store.getRun(ctx.run.id)) ?? ctx.run;
      return true;
    }
    case 'set_state':
      ctx.run = await setRunState(deps, ctx.run.id, a);
      return true;
    case 'stop':
      ctx.run = await stopRun(deps, ctx.run.id, a.state, a.reason, a.command, a.cause);
      return true;
    default:
      return false;
  }
};

const blitzKind = (ctx: RunCtx): RunKind => ({
  issue: (key) => ctx.issues.get(key),
  site: (key) => ({ forge: ctx.forge, repo: refOf(key).repo, base: ctx.run.integrationBranch }),
  job: { branchStyle: 'blitz', runSlug: ctx.run.slug },
  async extras(key) {
    const row = ctx.rows.get(key);
    // An approved plan (plan-blitz) goes into the worker's prompt.
    const planText = await approvedPlanText(ctx.forge, ctx.repo, ctx.issues.get(key)!);
    const tip = ctx.run.progress.integrationTip;
    const handoff = handoffFor(ctx, key);
    return {
      ...(planText ? { planText } : {}),
      ...(handoff.length ? { handoff } : {}),
      ...(row?.bouncedAfter && row.lastError ? { failureFeedback: row.lastError } : {}),
      // A redo after a bounce starts off the integration branch as it is now, not from the old work.
      ...(row?.bouncedAfter && issueAttempts(ctx, key).length === 0 ? { fresh: true } : {}),
      // The integration branch as the bot last set it: a runner already there starts without a fetch.
      ...(tip ? { baseSha: tip } : {}),
      ...repoCommandsOf(ctx.repoConfig),
    };
  },
  prBody: (key, solved) =>
    `Resolves #${refOf(key).number}\n\nWorked by ${solved.rosterEntry} (${solved.tier}) in blitz run of ${ctx.run.milestoneTitle}; merges into \`${ctx.run.integrationBranch}\`.`,
  maxFixAttempts: async () => ctx.repoConfig.ci.maxFixAttempts,
});

/**
 * The bot's own PR's diff read with git in its integration clone at the head the feedback read saw
 * (the forge's diff read costs a request per review), or undefined where git would not see the PR as
 * the forge does (not the worker's branch, another base): the review leg then asks the forge.
 */
const diffFromGit = (
  deps: Workers & Settings,
  ctx: RunCtx,
  issue: IssueKey,
  pull: PullRequest | undefined,
): ((maxBytes: number) => Promise<BoundedDiff>) | undefined => {
  const branch = ctx.rows.get(issue)?.branch;
  if (!pull || !branch || !ownBranch.test(branch) || pull.head.ref !== branch) return undefined;
  if (pull.base.ref !== ctx.run.integrationBranch) return undefined;
  return async (maxBytes) => diffOfHead(await integrationGitOf(deps, ctx), branch, pull.head.sha, maxBytes);
};

const review = async (
  deps: Records & Reviewers & Workers & Announcer & Log & Settings,
  ctx: RunCtx,
  a: Extract<Action, { type: 'review' }>,
) => {
  const ref = refOf(a.issue);
  const at = { repo: formatRepo(ref.repo), number: ref.number };
  if (deps.review) {
    const attempt = solvedOf(ctx, a.issue);
    // The PR as this call's feedback read saw it: the leg does not read it again, and a conversation
    // with no comment holds no review comment of the bot's to look for.
    const facts = ctx.prFacts?.get(a.issue);
    const read = facts?.pull?.ref.number === a.pr ? { pull: facts.pull } : {};
    const readDiff = diffFromGit(deps, ctx, a.issue, read.pull);
    const r = await deps.review({
      ...(attempt ? { attempt } : {}),
      forge: ctx.forge,
      pr: { repo: ctx.repo, number: a.pr },
      ...read,
      ...(readDiff ? { readDiff } : {}),
      ...(read.pull && facts?.conversationComments === 0 ? { fresh: true } : {}),
      reviewer: a.reviewer,
      runId: ctx.run.id,
    });
    if (r.posted) {
      await writeOutcome(deps.store, ctx.run.id, at, ctx.rows.get(a.issue), { kind: 'reviewPosted' });
      return keepReviewVerdict(deps, ctx.run.id, a.issue, r.summary ?? 'posted');
    }
    if (!r.unavailable) {
      // No review (the leg failed, or every reviewer did): asked again on a later pass, up to a bound.
      const why = r.failure ?? 'the review leg failed';
      const missing = await settleFailedReviewLeg(deps, ctx, { key: a.issue, ...at, pr: a.pr }, why);
      if (missing !== undefined) await tellReviewMissing(deps, ctx, a, missing);
      return;
    }
  }
  // No review module, or no reviewer can start on this host (asking again cannot help): the leg is
  // skipped, and the dashboard says so; nothing claims a review happened.
  await keepReviewVerdict(deps, ctx.run.id, a.issue, 'skipped (no reviewer available)');
  await setProgress(deps, ctx, { reviewUnavailable: true });
  await writeOutcome(deps.store, ctx.run.id, at, ctx.rows.get(a.issue), { kind: 'reviewSkipped' });
};

/**
 * A PR that goes on without a review (its leg kept failing): the dashboard says some PR has none, and a
 * person is told once, to the notify targets and on the run's issue; the run goes on.
 */
const tellReviewMissing = async (
  deps: Records & Announcer & Log & Settings,
  ctx: RunCtx,
  a: Extract<Action, { type: 'review' }>,
  missing: string,
) => {
  await setProgress(deps, ctx, { reviewUnavailable: true });
  const sentence = `${issueRef(a.issue)}'s PR #${a.pr} has no review: ${missing}; the run goes on and merges it without one`;
  await tellOnce(
    deps,
    ctx,
    `review-missing:${a.issue}:${a.pr}`,
    { title: `blitz: ${markdownText(ctx.run.milestoneTitle)}`, sentence },
    runNoticeOf(ctx.run, 'warning', sentence, {
      issue: refOf(a.issue).number,
      issuesShipped: await issuesShippedOf(deps, ctx.run.id),
      ...(deps.config.publicUrl ? { publicUrl: deps.config.publicUrl } : {}),
    }),
  );
};

const merge = async (
  deps: Records &
    Workers &
    Clock &
    Log &
    Settings & {
      effects: Effects;
    },
  ctx: RunCtx,
  a: Extract<Action, { type: 'merge' }>,
) => {
  const ref = refOf(a.issue);
  const repo = `${ref.repo.owner}/${ref.repo.name}`;
  const ref0 = { repo: ctx.repo, number: a.pr };
  // The gate read the PR this call, at the head it let through: merged at that head unread again.
  const kept = ctx.prFacts?.get(a.issue)?.pull;
  const seen = kept && !kept.merged && a.head !== undefined && kept.head.sha === a.head ? kept : undefined;
  const pr = seen ?? (await ctx.forge.getPullRequest(ref0));
  // The feedback gate let this head through: a head pushed since is gated again by the next pass.
  if (!pr.merged && a.head !== undefined && pr.head.sha !== a.head) return;
  // Not while its session resolves a conflict, nor with a marker left in a file that conflicted.
  if (!pr.merged && !(await readyToMerge(deps, ctx, a.issue))) return;
  // The check's completing report the feedback left for this merge (mergeAfterFeedback).
  const next = ctx.mergeNext;
  const carried =
    next?.issue === a.issue && next.report && next.head === pr.head.sha
      ? { sha: next.head, report: next.report }
      : undefined;
  const tried = carried && !pr.merged ? carried : undefined;
  // Not tried (merged already): the completing report is sent on its own, as before.
  if (carried && !tried) await keepCarried(deps, ctx, a.issue, carried, { send: true });
  const m = await mergeStep(ctx.forge, pr, {
    method: ctx.repoConfig.mergeMethod.blitz,
    title: `${pr.title} (#${a.pr})`,
    // The merge commit is found in git where the forge's answer lacks it (Gitea): no read back.
    readBack: false,
    ...(tried ? { progress: tried } : {}),
  });
  // A refused merge must not leave the check saying the head is ready: the completion written with it,
  // or one written before it on this head (a failure to say so is logged; the refusal is handled).
  const unclaim = async (why: string) => {
    const kept = (await deps.store.getRun(ctx.run.id))?.progress.prFeedback?.[a.issue];
    if (!tried && !kept?.reported?.startsWith(`${pr.head.sha} success `)) return;
    const report = notMerged(why, runPageUrl(deps.config.publicUrl, ctx.run.id));
    await keepCarried(deps, ctx, a.issue, { sha: pr.head.sha, report }, { send: true }).catch(
      (err: unknown) =>
        deps.logger.warn(
          { runId: ctx.run.id, issue: a.issue, err },
          'the blitz check could not be corrected',
        ),
    );
  };
  if (m.kind === 'mergeRefused') {
    // Merged after all, moved since the gate read it (the next pass gates and merges again), or what
    // the refusal was (a conflict with the integration branch, or anything else).
    if (m.now.merged) {
      if (tried) await keepCarried(deps, ctx, a.issue, tried, { send: false });
      return;
    }
    await unclaim(m.why);
    if (seen && m.now.head.sha !== a.head) return;
    return settleRefusedMerge(deps, ctx, a.issue, a.pr, m.refusal);
  }
  if (tried) await keepCarried(deps, ctx, a.issue, tried, { send: false });
  // The merge commit is the integration branch's new tip as the bot knows it: the next attempt jobs
  // carry it as their base sha (dispatchIssue).
  const mergedSha = m.sha ?? (await mergeCommitFound(deps, ctx, pr));
  await writeOutcome(deps.store, ctx.run.id, { repo, number: ref.number }, ctx.rows.get(a.issue), {
    kind: 'merged',
    sha: mergedSha ?? pr.head.sha,
  });
  await setProgress(deps, ctx, (p) => ({
    mergedSinceReview: (p.mergedSinceReview ?? 0) + 1,
    integrationTip: mergedSha,
  }));
  // What the merge changed, for the open PRs it moved the integration branch under (plan/base-change.ts).
  if (mergedSha) await keepBaseChange(deps, ctx, a.issue, mergedSha, ref0);
};

/** The report a refused merge leaves on the head instead of the completing one before it. */
const notMerged = (why: string, detailsUrl: string | undefined): ProgressReport => ({
  state: 'failure',
  title: `not merged: ${why}`.slice(0, 200),
  summary: [
    `- Merge: refused by the forge (${why})`,
    ...(detailsUrl ? [`- Status page: ${detailsUrl}`] : []),
  ].join('\n'),
  ...(detailsUrl ? { detailsUrl } : {}),
});

/** Keeps a carried report as the head's last one (`reported`), sending it first when `send`. */
const keepCarried = async (
  deps: Records,
  ctx: RunCtx,
  key: IssueKey,
  carried: { sha: string; report: ProgressReport },
  opts: { send: boolean },
): Promise<void> => {
  if (opts.send) await ctx.forge.reportProgress?.(refOf(key).repo, carried.sha, carried.report);
  const kept = (await deps.store.getRun(ctx.run.id))?.progress.prFeedback?.[key];
  if (kept)
    await keepFeedbackState(
      deps,
      ctx.run.id,
      key,
      { ...kept, reported: reportedKey(carried.sha, carried.report) },
      kept,
    );
};

/**
 * The merge commit of a PR merged without one in the answer: from git (free), else read from the
 * forge (a squash or rebase merge, or git failing), else unknown.
 */
const mergeCommitFound = async (
  deps: Workers & Log & Settings,
  ctx: RunCtx,
  pr: PullRequest,
): Promise<string | undefined> => {
  const fromGit = await mergeCommitOf(await integrationGitOf(deps, ctx), pr.head.sha).catch(
    (err: unknown) => {
      deps.logger.warn({ runId: ctx.run.id, pr: pr.ref.number, err }, 'merge commit not found in git');
      return undefined;
    },
  );
  return fromGit ?? (await ctx.forge.getPullRequest(pr.ref)).mergeCommitSha;
};

const closeText = (ctx: RunCtx, key: IssueKey, epic: boolean): string => {
  const row = ctx.rows.get(key);
  return epic
    ? epicClosedText
    : `Integrated into \`${ctx.run.integrationBranch}\` by merge commit ${row?.mergedSha ?? 'unknown'} (PR #${row?.prNumber ?? '?'}); the wave build is green.`;
};

const closeIssue = (deps: Records, ctx: RunCtx, key: IssueKey, epic: boolean) => {
  const row = ctx.rows.get(key);
  // Open in the milestone this pass loaded: no second read of it (close-issue.ts reads otherwise).
  const known = ctx.issues.has(key) ? { knownOpen: true } : {};
  // Closes planned back to back go out together where the forge can (close-issue.ts `batchedClose`).
  const together = epic
    ? undefined
    : batchedClose(ctx.closes, ctx.forge, key, (k) =>
        ctx.issues.has(k) ? { ref: refOf(k), comment: closeText(ctx, k, false) } : undefined,
      );
  const forge = together ? { ...ctx.forge, closeIssue: () => together } : ctx.forge;
  return closeRunIssue(deps.store, ctx.run.id, forge, refOf(key), closeText(ctx, key, epic), {
    ...known,
    row,
  });
};

/** Applies one action: the run's own holds (park, hard blocker) need the run alone, the rest the pass. */
export const perform = async (deps: PerformPorts, ctx: PassCtx, a: Action): Promise<void> => {
  if (a.type === 'block') return blockRun(deps, ctx.run.id, a);
  if (a.type === 'unblock') return unblockRun(deps, ctx.run.id);
  if (await performPark(deps, ctx, a)) return;
  // Nothing else is planned on a pass the forge refused.
  if ('held' in ctx) return;
  return performWork(deps, ctx, a);
};

const performWork = async (deps: PerformPorts, ctx: RunCtx, a: Action): Promise<void> => {
  if (await performIssueWork(deps, ctx, blitzKind(ctx), a)) return;
  switch (a.type) {
    case 'file_findings':
      return void (await fileReportedBugs(deps, ctx));
    case 'probe_budget':
      // Asked afresh; the next pass of this call plans the wave on the answer.
      ctx.call.budget = await deps.probe(ctx.run.id, { fresh: true });
      return;
    case 'integration_review':
      return void (await runIntegrationReview(deps, ctx));
    case 'issue_notice':
      return sendIssueNotice(deps, ctx, a);
    case 'report_cycle':
    case 'report_unknown_blocker': {
      const r = blockerReport('blitz', a);
      return reportOnce(deps, ctx, r.key, r.text);
    }
    case 'post_plan':
      return reportOnce(
        deps,
        ctx,
        'plan',
        blitzDryRun(ctx.run.milestoneTitle, ctx.snap.options.maxSessions, a),
      );
    case 'dispatch':
      return void (await dispatchIssue(deps, ctx, blitzKind(ctx), a));
    case 'review':
      return review(deps, ctx, a);
    case 'merge':
      return merge(deps, ctx, a);
    case 'check_base_change':
      return checkBaseChange(deps, ctx, a);
    case 'run_build':
      return deps.effects.startGate(ctx, 'build', a.covers);
    case 'run_smoke':
      return deps.effects.startGate(ctx, 'smoke', []);
    case 'regate':
      deps.logger.info(
        { runId: ctx.run.id, reason: a.reason },
        'integration branch moved since the gate; gating again',
      );
      return setProgress(deps, ctx, (p) => ({
        integrationHead: undefined,
        ship: undefined,
        build: { status: 'none', covers: [], failures: 0 },
        smoke: 'none',
        smokeGate: { failures: p.smokeGate?.failures ?? 0 },
      }));
    case 'bounce':
      return deps.effects.bounce(ctx, a.issue, a.reason);
    case 'close_issue':
      await closeIssue(deps, ctx, a.issue, false).catch((err: unknown) =>
        keepCloseFailure(deps, ctx, a.issue, err),
      );
      return deps.effects.cleanupClosed(ctx, a.issue);
    case 'cancel_worker': {
      // Closed by hand on the tracker while its worker ran: the worker stops (its branch is kept).
      const live = issueAttempts(ctx, a.issue).find((x) => x.outcome === undefined);
      if (live) await onAttemptHost(deps, { kind: 'cancel', attemptId: live.id }, [live]);
      deps.logger.info({ runId: ctx.run.id, issue: a.issue, reason: a.reason }, 'worker stopped');
      return;
    }
    case 'close_epic':
      return closeIssue(deps, ctx, a.issue, true);
    case 'ship':
      return deps.effects.ship(ctx, a.path, a.reason);
    case 'notify':
      return deps.effects.notify(ctx, a.level, a.title, a.message);
    case 'smoke_finding':
      return fileSmokeFinding(deps, ctx);
    case 'file_gate_blocker':
      return fileGateBlocker(deps, ctx, a);
    case 'close_gate_blocker':
      return closeGateBlocker(deps, ctx, a);
    case 'await_review':
      ctx.run = await writeRun(deps.store, ctx.run.id, (run) => awaitReviewPatch(run, a.reason));
      deps.logger.info({ runId: ctx.run.id, reason: a.reason }, 'run waits on an unclear integration review');
      return;
  }
};
