// The fleet's effects of the planner's actions, each idempotent by checking the world first: a
// dispatch skips a ticket with a live worker; a PR that exists is found, not opened twice; the review
// leg edits its one comment; closing reads the issue's state first. Merges are in merge-ticket.ts.
import { defaultRepoConfig } from '../../config/repo-config.ts';
import { formatRepo } from '../../forges/types.ts';
import type { Action } from '../../plan/snapshot.ts';
import { closeWithComment } from '../close-issue.ts';
import { closeOnMerge } from '../close-on-merge.ts';
import { dispatchAttempt } from '../dispatch-attempt.ts';
import { onAttemptHost } from '../dispatcher.ts';
import { openPr } from '../open-pr.ts';
import { refOf } from '../perform.ts';
import { performPrFeedback } from '../pr-feedback-step.ts';
import { loadRepoConfig } from '../repo-settings.ts';
import { runReviewLeg } from '../review-leg.ts';
import { rosterEntryFor } from '../roster-entry.ts';
import { attemptKey, currentAttempts } from '../run-progress.ts';
import { writeRun } from '../run-writer.ts';
import { type FleetCtx, type FleetDeps, fleetReviewPorts } from './fleet-context.ts';
import { updateFleet, updateTicket } from './fleet-state.ts';
import { mergeTicket } from './merge-ticket.ts';

export const attemptsOf = (ctx: FleetCtx, key: string) =>
  currentAttempts(
    ctx.attempts.filter((a) => attemptKey(a) === key),
    ctx.rows.get(key),
  );

const repoOf = (ctx: FleetCtx, key: string) => {
  const ref = refOf(key);
  const facts = ctx.repos.get(formatRepo(ref.repo).toLowerCase());
  if (!facts) throw new Error(`no forge for ${key}`);
  return { ref, facts, name: formatRepo(ref.repo) };
};

const dispatch = async (deps: FleetDeps, ctx: FleetCtx, a: Extract<Action, { type: 'dispatch' }>) => {
  const issue = ctx.tickets.get(a.issue);
  if (!issue) return;
  const { ref, facts, name } = repoOf(ctx, a.issue);
  const row = ctx.rows.get(a.issue);
  const attemptNo = (row?.attempts ?? 0) + 1;
  const job = async () => ({
    kind: 'attempt' as const,
    runId: ctx.run.id,
    issue: { repo: facts.repo, number: ref.number },
    title: issue.title,
    body: issue.body,
    branchStyle: 'fleet' as const,
    runSlug: 'fleet',
    baseBranch: facts.defaultBranch,
    cloneUrl: deps.cloneUrl
      ? await deps.cloneUrl(facts.forge, facts.repo)
      : (await facts.forge.cloneCredentials(facts.repo)).url,
    entry: rosterEntryFor(deps.config.roster, a.worker.entry),
    tier: a.worker.tier,
    fences: [
      ...a.fenceOff.map((f) => ({ path: f.path, ownerIssue: refOf(f.owner).number })),
      ...(ctx.busyFences.get(name.toLowerCase()) ?? []),
    ],
  });
  // Through the queue, to whichever runner serves fleet work for this repo; the row and the job
  // commit together, and the attempt's branch comes back through the ledger.
  const sent = await dispatchAttempt(deps, {
    runId: ctx.run.id,
    issue: a.issue,
    attemptNo,
    job,
    record: (w) =>
      w.upsertRunIssue(ctx.run.id, name, ref.number, { state: 'dispatched', attempts: attemptNo }),
  });
  if (!sent) return;
  ctx.run = await updateFleet(deps.store, ctx.run.id, (p) => {
    if (!p.dispatched.includes(a.issue)) p.dispatched.push(a.issue);
  });
};

/** The worker pushed: find its PR, or open one that fixes the ticket (it may not have opened one). */
const prFor = async (deps: FleetDeps, ctx: FleetCtx, key: string) => {
  const solved = attemptsOf(ctx, key)
    .filter((x) => x.outcome === 'solved')
    .at(-1);
  if (!solved) return;
  const { ref, facts } = repoOf(ctx, key);
  await openPr(deps, {
    runId: ctx.run.id,
    issue: key,
    title: ctx.tickets.get(key)?.title,
    forge: facts.forge,
    repo: facts.repo,
    base: facts.defaultBranch,
    solved,
    body: `Fixes #${ref.number}\n\nWorked by ${solved.rosterEntry} (${solved.tier}) in the ticket fleet on ${ctx.run.repo}#${ctx.run.triggerIssue ?? '?'}. It merges only when a person says \`/merge\`.`,
    state: 'pr_open',
  });
};

const review = async (deps: FleetDeps, ctx: FleetCtx, a: Extract<Action, { type: 'review' }>) => {
  const { ref, facts, name } = repoOf(ctx, a.issue);
  const attempt = attemptsOf(ctx, a.issue).at(-1);
  const r = await runReviewLeg(fleetReviewPorts(deps), {
    forge: facts.forge,
    pr: { repo: facts.repo, number: a.pr },
    ...(attempt ? { attempt } : {}),
  });
  await updateTicket(deps.store, ctx.run.id, a.issue, () => ({ review: r.verdict }));
  await deps.store.upsertRunIssue(ctx.run.id, name, ref.number, { reviewPosted: true, state: 'reviewed' });
};

/** Merged and the ticket still open: close what the PR names (the ticket among them), once. */
const closeTicket = async (deps: FleetDeps, ctx: FleetCtx, key: string) => {
  const { ref, facts, name } = repoOf(ctx, key);
  const row = ctx.rows.get(key);
  if (row?.prNumber !== undefined && row.mergedSha !== undefined)
    await closeOnMerge({
      forge: facts.forge,
      pr: { repo: facts.repo, number: row.prNumber },
      mergeSha: row.mergedSha,
      forgeFor: async (repo) => ctx.repos.get(formatRepo(repo).toLowerCase())?.forge ?? facts.forge,
      logger: deps.logger,
    });
  // The PR may not name its ticket (a person edited the body): the ticket still closes, once.
  await closeWithComment(
    facts.forge,
    ref,
    `Closed by PR #${row?.prNumber ?? '?'}, merged as commit ${row?.mergedSha ?? 'unknown'}.`,
  );
  await deps.store.upsertRunIssue(ctx.run.id, name, ref.number, { state: 'closed' });
};

const stop = async (deps: FleetDeps, ctx: FleetCtx, state: 'done' | 'blocked' | 'paused', reason: string) => {
  ctx.run = await writeRun(deps.store, ctx.run.id, (fresh) => ({
    state,
    progress: { ...fresh.progress, reason },
  }));
  deps.logger.info({ runId: ctx.run.id, state, reason }, 'fleet stopped');
};

export const performFleet = async (deps: FleetDeps, ctx: FleetCtx, a: Action): Promise<void> => {
  switch (a.type) {
    case 'dispatch':
      return dispatch(deps, ctx, a);
    case 'resume': {
      const live = attemptsOf(ctx, a.issue).at(-1);
      if (live)
        await onAttemptHost(deps, { kind: 'resume', attemptId: live.id, reason: 'interrupted' }, [live]);
      return;
    }
    case 'open_pr':
      return prFor(deps, ctx, a.issue);
    case 'review':
      return review(deps, ctx, a);
    case 'merge':
      return mergeTicket(deps, ctx, a.issue, a.pr, attemptsOf(ctx, a.issue).at(-1), a.head);
    case 'pr_feedback': {
      const facts = ctx.repos.get(formatRepo(refOf(a.issue).repo).toLowerCase());
      if (!facts) return;
      const cfg = await loadRepoConfig(facts.forge, facts.repo);
      await performPrFeedback(
        deps,
        {
          forge: facts.forge,
          repo: facts.repo,
          run: ctx.run,
          attempts: ctx.attempts,
          rows: ctx.rows,
          maxFixAttempts: (cfg.result.ok ? cfg.result.config : defaultRepoConfig()).ci.maxFixAttempts,
          prFacts: ctx.prFacts,
        },
        a.issue,
        a.pr,
      );
      ctx.run = (await deps.store.getRun(ctx.run.id)) ?? ctx.run;
      return;
    }
    case 'close_issue':
      return closeTicket(deps, ctx, a.issue);
    case 'stop':
      return stop(deps, ctx, a.state, a.reason);
    default:
      // Milestone-only actions (plans, builds, ship, epics, notices) do not arise in a fleet; the
      // scoreboard carries the fleet's report.
      return;
  }
};
