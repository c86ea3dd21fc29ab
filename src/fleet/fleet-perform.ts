// The fleet's effects of the planner's actions, each idempotent by checking the world first: a
// dispatch skips a ticket with a live worker; a PR that exists is found, not opened twice; the review
// leg edits its one comment; closing reads the issue's state first. Merges are in merge-ticket.ts.
import { defaultRepoConfig } from '../config/repo-config.ts';
import { markdownText } from '../dashboard/escape.ts';
import { formatRepo } from '../forges/types.ts';
import { dispatchIssue, performIssueWork, type RunKind } from '../orchestrator/perform.ts';
import { keepReviewVerdict } from '../orchestrator/pr-feedback.ts';
import { settleFailedReviewLeg } from '../orchestrator/review-leg-failed.ts';
import { issueAttempts } from '../plan/issue-progress.ts';
import { resumeCommandOf } from '../plan/resume-command.ts';
import type { Action } from '../plan/snapshot.ts';
import { verdictStateWords } from '../plan/state-words.ts';
import { refOf } from '../plan/types.ts';
import { createReviewLeg } from '../review/review-leg.ts';
import { closeRunIssue, keepCloseFailure } from '../runs/close-issue.ts';
import { closeOnMerge } from '../runs/close-on-merge.ts';
import { performPark } from '../runs/environment-park-run.ts';
import { blockRun, unblockRun } from '../runs/hard-blocker-run.ts';
import type { Announcer, Clock, Forges, Log, Records, Reviewers, Settings, Workers } from '../runs/ports.ts';
import { loadRepoConfig, repoCommandsOf } from '../runs/repo-settings.ts';
import { issuesShippedOf, tellOnce } from '../runs/run-notice.ts';
import { writeOutcome } from '../runs/run-writer.ts';
import { runNoticeOf } from '../ship/run-notices.ts';
import { type FleetCtx, fleetReviewPorts } from './fleet-context.ts';
import { updateFleet, updateTicket } from './fleet-state.ts';
import { mergeTicket } from './merge-ticket.ts';

const repoOf = (ctx: FleetCtx, key: string) => {
  const ref = refOf(key);
  const facts = ctx.repos.get(formatRepo(ref.repo).toLowerCase());
  if (!facts) throw new Error(`no forge for ${key}`);
  return { ref, facts, name: formatRepo(ref.repo) };
};

const fleetKind = (ctx: FleetCtx): RunKind => ({
  issue: (key) => ctx.tickets.get(key),
  site(key) {
    const { facts } = repoOf(ctx, key);
    return { forge: facts.forge, repo: facts.repo, base: facts.defaultBranch };
  },
  // Through the queue, to whichever runner serves fleet work for the ticket's repo.
  job: { branchStyle: 'fleet', runSlug: 'fleet' },
  async extras(key) {
    const { facts, name } = repoOf(ctx, key);
    const cfg = await loadRepoConfig(facts.forge, facts.repo);
    return {
      fences: ctx.busyFences.get(name.toLowerCase()) ?? [],
      ...(cfg.result.ok ? repoCommandsOf(cfg.result.config) : {}),
    };
  },
  prBody: (key, solved) =>
    `Fixes #${refOf(key).number}\n\nWorked by ${solved.rosterEntry} (${solved.tier}) in the ticket fleet on ${ctx.run.repo}#${ctx.run.triggerIssue ?? '?'}. It merges only when a person says \`/merge\`.`,
  async maxFixAttempts(key) {
    const { facts } = repoOf(ctx, key);
    const cfg = await loadRepoConfig(facts.forge, facts.repo);
    return (cfg.result.ok ? cfg.result.config : defaultRepoConfig()).ci.maxFixAttempts;
  },
});

const dispatch = async (
  deps: Records & Workers & Log & Settings,
  ctx: FleetCtx,
  a: Extract<Action, { type: 'dispatch' }>,
) => {
  if (!(await dispatchIssue(deps, ctx, fleetKind(ctx), a))) return;
  ctx.run = await updateFleet(deps.store, ctx.run.id, (p) => {
    if (!p.dispatched.includes(a.issue)) p.dispatched.push(a.issue);
  });
};

const review = async (
  deps: Records & Log & Settings & Reviewers,
  ctx: FleetCtx,
  a: Extract<Action, { type: 'review' }>,
) => {
  const { ref, facts, name } = repoOf(ctx, a.issue);
  const attempt = issueAttempts(ctx, a.issue).at(-1);
  const r = await createReviewLeg(fleetReviewPorts(deps))({
    forge: facts.forge,
    pr: { repo: facts.repo, number: a.pr },
    ...(attempt ? { attempt } : {}),
    runId: ctx.run.id,
  });
  const at = { repo: name, number: ref.number };
  if (r.verdict === undefined) {
    // The leg failed (logged) and posted nothing: the next pass asks again, up to a bound; then the PR
    // waits on a person's review alone, and the fleet's /merge notice says why it has no review.
    const missing = await settleFailedReviewLeg(
      deps,
      ctx,
      { key: a.issue, ...at, pr: a.pr },
      r.failure ?? 'the review leg failed',
    );
    if (missing !== undefined)
      await updateTicket(deps.store, ctx.run.id, a.issue, () => ({ reviewMissing: missing }));
    return;
  }
  await updateTicket(deps.store, ctx.run.id, a.issue, () => ({
    review: r.verdict,
    ...(r.verdict === 'no_review' ? { reviewMissing: r.failure ?? 'every reviewer failed' } : {}),
  }));
  await keepReviewVerdict(deps, ctx.run.id, a.issue, r.summary ?? verdictStateWords(r.verdict));
  await writeOutcome(deps.store, ctx.run.id, at, ctx.rows.get(a.issue), { kind: 'reviewPosted' });
};

/** Merged and the ticket still open: close what the PR names (the ticket among them), once. */
const closeTicket = async (deps: Records & Log, ctx: FleetCtx, key: string) => {
  const { ref, facts } = repoOf(ctx, key);
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
  await closeRunIssue(
    deps.store,
    ctx.run.id,
    facts.forge,
    ref,
    `Closed by PR #${row?.prNumber ?? '?'}, merged as commit ${row?.mergedSha ?? 'unknown'}.`,
    { row },
  );
};

/**
 * A held ticket (its attempt failed, its worker stalled, its cap reached) is told once: to the notify
 * targets, and on the fleet's issue (@mentioning the starter when no target would tell them). A fleet
 * has no `/blitz retry`, so no command is named; a cap warning asks nothing of anyone and is left out.
 */
const tellHeldTicket = async (
  deps: Records & Announcer & Log & Settings,
  ctx: FleetCtx,
  a: Extract<Action, { type: 'issue_notice' }>,
) => {
  if (a.event !== 'failed' && a.event !== 'needs_person') return;
  await tellOnce(
    deps,
    ctx,
    a.key,
    // The ticket's full key in the title: its `#n` alone would link to the fleet's own repository.
    { title: `ticket fleet${a.issue ? `: ${a.issue}` : ''}`, sentence: markdownText(a.message, 600) },
    runNoticeOf(ctx.run, a.event, a.message, {
      ...(a.issue !== undefined ? { issue: refOf(a.issue).number } : {}),
      issuesShipped: await issuesShippedOf(deps, ctx.run.id),
      ...(deps.config.publicUrl ? { publicUrl: deps.config.publicUrl } : {}),
    }),
  );
};

/**
 * The planner's run notice (plan/stop.ts, plan/next-actions.ts): a fleet stopped blocked or finished, or
 * its PRs waiting on a person's `/merge`, is told once per notice, as a blitz's is: to the notify targets,
 * and on the fleet's issue (@mentioning the starter when no target would tell them), naming what continues.
 */
const tellFleet = async (
  deps: Records & Announcer & Log & Settings,
  ctx: FleetCtx,
  a: Extract<Action, { type: 'notify' }>,
) => {
  if (a.level === 'info') return;
  const event = a.level === 'ready' ? 'shipped' : a.level === 'waiting' ? 'needs_person' : 'blocked';
  const command = a.command ?? (a.level === 'blocked' ? resumeCommandOf('fleet') : undefined);
  const next =
    a.level === 'waiting'
      ? `Review each PR, then say \`${command}\` on it.`
      : command
        ? `Fix the cause, then \`${command}\`.`
        : undefined;
  await tellOnce(
    deps,
    ctx,
    `notify:${a.level}:${a.title}:${a.message}`,
    { title: a.title, sentence: a.message, ...(next ? { next } : {}) },
    runNoticeOf(ctx.run, event, a.message, {
      issuesShipped: await issuesShippedOf(deps, ctx.run.id),
      ...(command ? { command } : {}),
      ...(deps.config.publicUrl ? { publicUrl: deps.config.publicUrl } : {}),
    }),
  );
};

export const performFleet = async (
  deps: Records & Workers & Forges & Announcer & Clock & Log & Settings & Reviewers,
  ctx: FleetCtx,
  a: Action,
): Promise<void> => {
  // The fleet's park is the blitz's (plan/park.ts): an outage parks the roster entry, or the fleet.
  if (await performPark(deps, ctx, a)) return;
  if (await performIssueWork(deps, ctx, fleetKind(ctx), a)) return;
  switch (a.type) {
    case 'dispatch':
      return dispatch(deps, ctx, a);
    case 'review':
      return review(deps, ctx, a);
    case 'merge':
      return mergeTicket(deps, ctx, a.issue, a.pr, issueAttempts(ctx, a.issue).at(-1), a.head);
    case 'close_issue':
      return closeTicket(deps, ctx, a.issue).catch((err: unknown) =>
        keepCloseFailure(deps, ctx, a.issue, err),
      );
    // An App permission the fleet cannot do without (plan/permission-block.ts): blocked as a blitz is,
    // lifted by the first pass whose reads get through.
    case 'block':
      return blockRun(deps, ctx.run.id, a);
    case 'unblock':
      return unblockRun(deps, ctx.run.id);
    case 'issue_notice':
      return tellHeldTicket(deps, ctx, a);
    case 'notify':
      return tellFleet(deps, ctx, a);
    default:
      // Milestone-only actions (plans, builds, ship, epics, notices) do not arise in a fleet; the
      // scoreboard carries the fleet's report.
      return;
  }
};
