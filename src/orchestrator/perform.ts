// The effects of the planner's actions, each idempotent by checking the world first: a PR that
// exists is found, not opened twice; a closed issue is not closed again; a dispatch of an issue with
// a live attempt is skipped; a report or notification with the same content is posted once.
import { type RosterEntry, rosterEntrySchema } from '../config/blitz-config.ts';
import { isAppError } from '../errors.ts';
import type { IssueRef } from '../forges/types.ts';
import { defaultEntries } from '../plan/routing.ts';
import type { Action } from '../plan/snapshot.ts';
import type { IssueKey } from '../plan/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunProgress } from '../store/run-store.ts';
import type { OrchestratorDeps, RunCtx } from './context.ts';
import { repoRefOf } from './context.ts';
import { onAttemptHost } from './dispatcher.ts';
import { approvedPlanText } from './plan-blitz/blitz-plans.ts';
import { performPrFeedback } from './pr-feedback-step.ts';
import { attemptKey, currentAttempts, liveAttempt } from './run-progress.ts';
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

export const refOf = (key: IssueKey): IssueRef => {
  const at = key.lastIndexOf('#');
  return { repo: repoRefOf(key.slice(0, at)), number: Number(key.slice(at + 1)) };
};

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

const entryFor = (
  deps: OrchestratorDeps,
  pick: Extract<Action, { type: 'dispatch' }>['worker'],
): RosterEntry =>
  deps.config.roster.find((e) => e.name === pick.entry.name) ??
  rosterEntrySchema.parse(
    Object.values(defaultEntries).find((e) => e.name === pick.entry.name) ?? {
      ...pick.entry,
      roles: pick.entry.roles,
    },
  );

const dispatch = async (deps: OrchestratorDeps, ctx: RunCtx, a: Extract<Action, { type: 'dispatch' }>) => {
  // Read the ledger again: a worker started since this pass began (another replica) must not get a twin.
  const fresh = (await deps.ledger.listByRun(ctx.run.id)).filter((x) => attemptKey(x) === a.issue);
  if (liveAttempt(fresh)) return;
  const issue = ctx.issues.get(a.issue);
  if (!issue) return;
  const row = ctx.rows.get(a.issue);
  const cloneUrl = deps.cloneUrl
    ? await deps.cloneUrl(ctx.forge, ctx.repo)
    : (await ctx.forge.cloneCredentials(ctx.repo)).url;
  const attemptNo = (row?.attempts ?? 0) + 1;
  // An approved plan (plan-blitz) goes into the worker's prompt.
  const planText = await approvedPlanText(ctx.forge, ctx.repo, issue);
  const job = {
    kind: 'attempt' as const,
    runId: ctx.run.id,
    issue: { repo: repoRefOf(issue.repo), number: issue.number },
    title: issue.title,
    body: issue.body,
    branchStyle: 'blitz' as const,
    runSlug: ctx.run.slug,
    baseBranch: ctx.run.integrationBranch,
    cloneUrl,
    entry: entryFor(deps, a.worker),
    tier: a.worker.tier,
    fences: a.fenceOff.map((f) => ({ path: f.path, ownerIssue: refOf(f.owner).number })),
    ...(planText ? { planText } : {}),
    ...(row?.bouncedAfter && row.lastError ? { failureFeedback: row.lastError } : {}),
  };
  const dispatched = { state: 'dispatched' as const, attempts: attemptNo };
  if (deps.dispatcher) {
    // Through the queue: the row and the job commit together; branch and worktree come via the ledger.
    const sent = await deps.dispatcher.attempt(job, attemptNo, (w) =>
      w.upsertRunIssue(ctx.run.id, issue.repo, issue.number, dispatched),
    );
    if (!sent) return;
  } else {
    await deps.store.upsertRunIssue(ctx.run.id, issue.repo, issue.number, dispatched);
    const result = await deps.runner.execute(job);
    if (result.kind === 'attempt')
      await deps.store.upsertRunIssue(ctx.run.id, issue.repo, issue.number, {
        branch: result.attempt.branch,
        worktree: result.attempt.worktree,
      });
  }
  deps.logger.info({ runId: ctx.run.id, issue: a.issue, entry: a.worker.entry.name }, 'issue dispatched');
};

const openPr = async (deps: OrchestratorDeps, ctx: RunCtx, key: IssueKey) => {
  const solved = attemptsOf(ctx, key)
    .filter((x) => x.outcome === 'solved')
    .at(-1);
  if (!solved) return;
  const ref = refOf(key);
  const issue = ctx.issues.get(key);
  const found = await ctx.forge.findPullRequest(ctx.repo, solved.branch);
  const pr =
    found ??
    (await ctx.forge.openPullRequest(ctx.repo, {
      head: solved.branch,
      base: ctx.run.integrationBranch,
      title: `#${ref.number}: ${issue?.title ?? solved.job.title}`,
      body: `Resolves #${ref.number}\n\nWorked by ${solved.rosterEntry} (${solved.tier}) in blitz run of ${ctx.run.milestoneTitle}; merges into \`${ctx.run.integrationBranch}\`.`,
    }));
  await deps.store.upsertRunIssue(ctx.run.id, `${ref.repo.owner}/${ref.repo.name}`, ref.number, {
    state: 'pr_open',
    prNumber: pr.ref.number,
    branch: solved.branch,
  });
};

const review = async (deps: OrchestratorDeps, ctx: RunCtx, a: Extract<Action, { type: 'review' }>) => {
  const ref = refOf(a.issue);
  const repo = `${ref.repo.owner}/${ref.repo.name}`;
  const issue = ctx.issues.get(a.issue);
  if (deps.review && issue) {
    const author = attemptsOf(ctx, a.issue)
      .filter((x) => x.outcome === 'solved')
      .at(-1)?.rosterEntry;
    const r = await deps.review({
      ...(author ? { author } : {}),
      forge: ctx.forge,
      repo: ctx.repo,
      pr: a.pr,
      issue,
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
  const current = await ctx.forge.getIssue(ref);
  const repo = `${ref.repo.owner}/${ref.repo.name}`;
  if (current.state === 'open') {
    const row = ctx.rows.get(key);
    const text = epic
      ? 'All the children of this epic are closed, so it is closed too.'
      : `Integrated into \`${ctx.run.integrationBranch}\` by merge commit ${row?.mergedSha ?? 'unknown'} (PR #${row?.prNumber ?? '?'}); the wave build is green.`;
    await ctx.forge.createComment(ref, text);
    await ctx.forge.closeIssue(ref);
  }
  await deps.store.upsertRunIssue(ctx.run.id, repo, ref.number, { state: 'closed' });
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
      return openPr(deps, ctx, a.issue);
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
