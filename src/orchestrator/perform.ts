// The effects of the planner's actions, each idempotent by checking the world first: a PR that
// exists is found, not opened twice; a closed issue is not closed again; a dispatch of an issue with
// a live attempt is skipped; a report or notification with the same content is posted once.
import { isAppError } from '../errors.ts';
import type { Action } from '../plan/snapshot.ts';
import type { IssueKey } from '../plan/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunProgress } from '../store/run-store.ts';
import { closeEpic, closeWithComment } from './close-issue.ts';
import type { OrchestratorDeps, RunCtx } from './context.ts';
import { refOf, repoRefOf } from './context.ts';
import { dispatchAttempt } from './dispatch-attempt.ts';
import { onAttemptHost } from './dispatcher.ts';
import { openPr } from './open-pr.ts';
import { approvedPlanText } from './plan-blitz/blitz-plans.ts';
import { performPrFeedback } from './pr-feedback-step.ts';
import { rosterEntryFor } from './roster-entry.ts';
import { attemptKey, currentAttempts } from './run-progress.ts';
import { markPosted, writeProgress } from './run-writer.ts';

export interface Effects {
  /** Starts a build or smoke check in the background; the result lands in the run's progress. */
  startGate(ctx: RunCtx, name: 'build' | 'smoke', covers: IssueKey[]): Promise<void>;
  bounce(ctx: RunCtx, issue: IssueKey, reason: string): Promise<void>;
  ship(ctx: RunCtx, path: 'deploy' | 'local', reason: string): Promise<void>;
  notify(ctx: RunCtx, level: 'info' | 'ready' | 'blocked', title: string, message: string): Promise<void>;
  stop(ctx: RunCtx, state: 'done' | 'blocked' | 'paused', reason: string): Promise<void>;
  postPlan(ctx: RunCtx, wave: IssueKey[], explanations: string[]): Promise<void>;
}

export type PerformDeps = OrchestratorDeps & { effects: Effects };

export { refOf };

/** Records a content key in the run's progress; false when it was already there (post nothing). */
export const firstTime = async (
  deps: Pick<OrchestratorDeps, 'store'>,
  ctx: Pick<RunCtx, 'run'>,
  key: string,
): Promise<boolean> => {
  const { first, run } = await markPosted(deps.store, ctx.run.id, key);
  ctx.run = run;
  return first;
};

/** Writes fields of the run's progress (computed from the stored progress when a function). */
export const setProgress = async (
  deps: Pick<OrchestratorDeps, 'store'>,
  ctx: Pick<RunCtx, 'run'>,
  patch: Partial<RunProgress> | ((p: RunProgress) => Partial<RunProgress> | undefined),
): Promise<void> => {
  ctx.run = await writeProgress(deps.store, ctx.run.id, typeof patch === 'function' ? patch : () => patch);
};

const attemptsOf = (ctx: RunCtx, key: IssueKey): AttemptRecord[] =>
  currentAttempts(
    ctx.attempts.filter((a) => attemptKey(a) === key),
    ctx.rows.get(key),
  );

const dispatch = async (deps: OrchestratorDeps, ctx: RunCtx, a: Extract<Action, { type: 'dispatch' }>) => {
  const issue = ctx.issues.get(a.issue);
  if (!issue) return;
  const row = ctx.rows.get(a.issue);
  const attemptNo = (row?.attempts ?? 0) + 1;
  const job = async () => {
    const cloneUrl = deps.cloneUrl
      ? await deps.cloneUrl(ctx.forge, ctx.repo)
      : (await ctx.forge.cloneCredentials(ctx.repo)).url;
    // An approved plan (plan-blitz) goes into the worker's prompt.
    const planText = await approvedPlanText(ctx.forge, ctx.repo, issue);
    return {
      kind: 'attempt' as const,
      runId: ctx.run.id,
      issue: { repo: repoRefOf(issue.repo), number: issue.number },
      title: issue.title,
      body: issue.body,
      branchStyle: 'blitz' as const,
      runSlug: ctx.run.slug,
      baseBranch: ctx.run.integrationBranch,
      cloneUrl,
      entry: rosterEntryFor(deps.config.roster, a.worker.entry),
      tier: a.worker.tier,
      fences: a.fenceOff.map((f) => ({ path: f.path, ownerIssue: refOf(f.owner).number })),
      ...(planText ? { planText } : {}),
      ...(row?.bouncedAfter && row.lastError ? { failureFeedback: row.lastError } : {}),
    };
  };
  // The row and the job commit together; branch and worktree come via the ledger.
  await dispatchAttempt(deps, {
    runId: ctx.run.id,
    issue: a.issue,
    attemptNo,
    job,
    record: (w) =>
      w.upsertRunIssue(ctx.run.id, issue.repo, issue.number, { state: 'dispatched', attempts: attemptNo }),
  });
};

const solvedOf = (ctx: RunCtx, key: IssueKey): AttemptRecord | undefined =>
  attemptsOf(ctx, key)
    .filter((x) => x.outcome === 'solved')
    .at(-1);

const prFor = async (deps: OrchestratorDeps, ctx: RunCtx, key: IssueKey) => {
  const solved = solvedOf(ctx, key);
  if (!solved) return;
  await openPr(deps, {
    runId: ctx.run.id,
    issue: key,
    title: ctx.issues.get(key)?.title,
    forge: ctx.forge,
    repo: ctx.repo,
    base: ctx.run.integrationBranch,
    solved,
    body: `Resolves #${refOf(key).number}\n\nWorked by ${solved.rosterEntry} (${solved.tier}) in blitz run of ${ctx.run.milestoneTitle}; merges into \`${ctx.run.integrationBranch}\`.`,
    state: 'pr_open',
  });
};

const review = async (deps: OrchestratorDeps, ctx: RunCtx, a: Extract<Action, { type: 'review' }>) => {
  const ref = refOf(a.issue);
  const repo = `${ref.repo.owner}/${ref.repo.name}`;
  if (deps.review && ctx.issues.has(a.issue)) {
    const attempt = solvedOf(ctx, a.issue);
    const r = await deps.review({
      ...(attempt ? { attempt } : {}),
      forge: ctx.forge,
      pr: { repo: ctx.repo, number: a.pr },
      reviewer: a.reviewer,
      runId: ctx.run.id,
    });
    await deps.store.upsertRunIssue(ctx.run.id, repo, ref.number, {
      reviewPosted: r.posted,
      state: r.posted ? 'reviewed' : 'pr_open',
    });
    if (r.posted) return;
  }
  // No review module: the leg is skipped, and the dashboard says so; nothing claims a review happened.
  await setProgress(deps, ctx, { reviewUnavailable: true });
  await deps.store.upsertRunIssue(ctx.run.id, repo, ref.number, { reviewPosted: true });
};

const merge = async (deps: PerformDeps, ctx: RunCtx, a: Extract<Action, { type: 'merge' }>) => {
  const ref = refOf(a.issue);
  const repo = `${ref.repo.owner}/${ref.repo.name}`;
  const prRef = { repo: ctx.repo, number: a.pr };
  const pr = await ctx.forge.getPullRequest(prRef);
  // The feedback gate let this head through: a head pushed since is gated again by the next pass.
  if (!pr.merged && a.head !== undefined && pr.head.sha !== a.head) return;
  let sha = pr.merged ? pr.mergeCommitSha : undefined;
  if (!pr.merged) {
    try {
      sha = (
        await ctx.forge.mergePullRequest(prRef, {
          method: ctx.repoConfig.mergeMethod.blitz,
          expectedHeadSha: pr.head.sha,
          title: `${pr.title} (#${a.pr})`,
        })
      ).sha;
    } catch (err) {
      if (isAppError(err, 'unmergeable') || isAppError(err, 'conflict')) {
        await deps.effects.bounce(
          ctx,
          a.issue,
          `its PR #${a.pr} could not be merged into ${ctx.run.integrationBranch}: ${err.message}`,
        );
        return;
      }
      throw err;
    }
  }
  await deps.store.upsertRunIssue(ctx.run.id, repo, ref.number, {
    state: 'merged',
    mergedSha: sha ?? pr.head.sha,
  });
  await setProgress(deps, ctx, (p) => ({ mergedSinceReview: (p.mergedSinceReview ?? 0) + 1 }));
};

const closeIssue = async (deps: OrchestratorDeps, ctx: RunCtx, key: IssueKey, epic: boolean) => {
  const ref = refOf(key);
  const row = ctx.rows.get(key);
  if (epic) await closeEpic(ctx.forge, ref);
  else
    await closeWithComment(
      ctx.forge,
      ref,
      `Integrated into \`${ctx.run.integrationBranch}\` by merge commit ${row?.mergedSha ?? 'unknown'} (PR #${row?.prNumber ?? '?'}); the wave build is green.`,
    );
  await deps.store.upsertRunIssue(ctx.run.id, `${ref.repo.owner}/${ref.repo.name}`, ref.number, {
    state: 'closed',
  });
};

const report = async (deps: OrchestratorDeps, ctx: RunCtx, key: string, text: string) => {
  if (ctx.run.triggerIssue === undefined || !(await firstTime(deps, ctx, key))) return;
  await ctx.forge.createComment({ repo: ctx.repo, number: ctx.run.triggerIssue }, text);
};

export const perform = async (deps: PerformDeps, ctx: RunCtx, a: Action): Promise<void> => {
  switch (a.type) {
    case 'report_cycle':
      return report(
        deps,
        ctx,
        `cycle:${a.members.join(',')}`,
        `blitz: these issues block each other in a cycle and will not run until a person cuts it: ${a.members.map((m) => `#${refOf(m).number}`).join(', ')}.`,
      );
    case 'report_unknown_blocker':
      return report(
        deps,
        ctx,
        `unknown:${a.blocker}:${a.namedBy.join(',')}`,
        `blitz: ${a.namedBy.map((m) => `#${refOf(m).number}`).join(', ')} ${a.namedBy.length === 1 ? 'is' : 'are'} blocked by ${a.blocker}, which does not exist or cannot be read; ${a.namedBy.length === 1 ? 'it stays' : 'they stay'} open and will not run (fail closed).`,
      );
    case 'post_plan':
      return deps.effects.postPlan(ctx, a.wave, a.explanations);
    case 'dispatch':
      return dispatch(deps, ctx, a);
    case 'resume': {
      const live = attemptsOf(ctx, a.issue).at(-1);
      if (!live) return;
      await onAttemptHost(deps, { kind: 'resume', attemptId: live.id, reason: 'interrupted' }, [live]);
      return;
    }
    case 'open_pr':
      return prFor(deps, ctx, a.issue);
    case 'review':
      return review(deps, ctx, a);
    case 'merge':
      return merge(deps, ctx, a);
    case 'pr_feedback': {
      if (!ctx.prFacts) return;
      await performPrFeedback(
        deps,
        {
          forge: ctx.forge,
          repo: ctx.repo,
          run: ctx.run,
          attempts: ctx.attempts,
          rows: ctx.rows,
          maxFixAttempts: ctx.repoConfig.ci.maxFixAttempts,
          prFacts: ctx.prFacts,
        },
        a.issue,
        a.pr,
      );
      ctx.run = (await deps.store.getRun(ctx.run.id)) ?? ctx.run;
      return;
    }
    case 'run_build':
      return deps.effects.startGate(ctx, 'build', a.covers);
    case 'run_smoke':
      return deps.effects.startGate(ctx, 'smoke', []);
    case 'bounce':
      return deps.effects.bounce(ctx, a.issue, a.reason);
    case 'close_issue':
      return closeIssue(deps, ctx, a.issue, false);
    case 'close_epic':
      return closeIssue(deps, ctx, a.issue, true);
    case 'ship':
      return deps.effects.ship(ctx, a.path, a.reason);
    case 'notify':
      return deps.effects.notify(ctx, a.level, a.title, a.message);
    case 'stop':
      return deps.effects.stop(ctx, a.state, a.reason);
  }
};
