// `/plan-blitz [M1 | #ids…] [--waves N] [--dry-run]` becomes a plan run. Sweep mode takes a milestone
// (none: the lowest-numbered open one with open issues); targeted mode takes issues and reports every
// target it could not match — a dropped target is worse than a refusal. Nothing starts when no
// target matches, or a run is already live on the milestone.
import type { Command, TicketRef } from '../commands/schema.ts';
import { isAppError } from '../errors.ts';
import type { Forge, IssueRef, Milestone, RepoRef } from '../forges/types.ts';
import {
  commandFor,
  createRunOf,
  failedStart,
  milestoneOrAnswer,
  placeOf,
  repoConfigOrAnswer,
} from '../orchestrator/start-run.ts';
import type { PlanProgress } from '../plan/plan-progress.ts';
import { maxWaveSize } from '../plan/plan-waves.ts';
import type { RunOptionsStored } from '../plan/run-options.ts';
import { issueKey, issueRef } from '../plan/types.ts';
import { slugify } from '../runner/branch-names.ts';
import type { Forges, Log, Records, Settings } from '../runs/ports.ts';
import { setDashboardComment } from '../runs/run-writer.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';

export interface PlanStartHooks {
  reconcileSoon(runId: string): void;
  /** Runs a change to a run between its reconcile passes, never during one. */
  serialized<T>(runId: string, fn: () => Promise<T>): Promise<T>;
  /** Posts the dashboard now; returns its comment id. */
  postDashboard(run: RunRecord, forge: Forge): Promise<number | undefined>;
}

type PlanCommand = Extract<Command, { name: 'plan-blitz' }>;
export type Unmatched = { ref: string; reason: string };

const refText = (r: TicketRef, here: RepoRef): string =>
  (r.owner ?? here.owner) === here.owner && (r.repo ?? here.name) === here.name
    ? `#${r.number}`
    : `${r.owner ?? here.owner}/${r.repo ?? here.name}#${r.number}`;

/** Each target matched to an open issue of one milestone, or named with why it could not be. */
export const matchTargets = async (
  forge: Forge,
  here: RepoRef,
  refs: readonly TicketRef[],
): Promise<{
  milestone?: { number: number; title: string };
  matched: IssueRef[];
  unmatched: Unmatched[];
}> => {
  const matched: IssueRef[] = [];
  const unmatched: Unmatched[] = [];
  let milestone: { number: number; title: string } | undefined;
  for (const r of refs) {
    const text = refText(r, here);
    if ((r.owner ?? here.owner) !== here.owner || (r.repo ?? here.name) !== here.name || r.host) {
      unmatched.push({ ref: text, reason: 'not an issue of this repository' });
      continue;
    }
    const ref = { repo: here, number: r.number };
    let issue: Awaited<ReturnType<Forge['getIssue']>>;
    try {
      issue = await forge.getIssue(ref);
    } catch (err) {
      if (!isAppError(err, 'not_found')) throw err;
      unmatched.push({ ref: text, reason: 'no such issue' });
      continue;
    }
    if (issue.isPullRequest) unmatched.push({ ref: text, reason: 'a pull request, not an issue' });
    else if (issue.state !== 'open') unmatched.push({ ref: text, reason: 'closed' });
    else if (!issue.milestone) unmatched.push({ ref: text, reason: 'in no milestone' });
    else if (milestone && issue.milestone.number !== milestone.number)
      unmatched.push({ ref: text, reason: `in milestone ${issue.milestone.title}, not ${milestone.title}` });
    else if (matched.some((m) => m.number === r.number)) continue;
    else {
      milestone = issue.milestone;
      matched.push(ref);
    }
  }
  return { ...(milestone ? { milestone } : {}), matched, unmatched };
};

export const createPlanIntentHandler = (deps: Records & Forges & Log & Settings, hooks: PlanStartHooks) => {
  return async (intent: Intent, cmd: PlanCommand): Promise<'started' | 'answered' | 'refused'> => {
    const { repo, forge, answer } = await placeOf(deps, intent);
    const cfg = await repoConfigOrAnswer(forge, repo, answer);
    if (!cfg) return 'refused';
    let milestone: Pick<Milestone, 'number' | 'title'> | undefined;
    const plan: Partial<PlanProgress> = {};
    if (cmd.refs.length > 0) {
      const t = await matchTargets(forge, repo, cmd.refs);
      const list = t.unmatched.map((u) => `- ${u.ref}: ${u.reason}`).join('\n');
      if (!t.milestone) {
        await answer(
          `plan-blitz: no target could be matched, so nothing was started.\n\nUnmatched:\n${list}`,
        );
        return 'refused';
      }
      milestone = t.milestone;
      plan.targets = t.matched.map((m) => issueKey(intent.repo, m.number));
      plan.unmatched = t.unmatched;
    } else {
      milestone = await milestoneOrAnswer(forge, repo, cmd.milestone, 'plan-blitz', answer);
      if (!milestone) return 'refused';
    }
    const slug = `plan-${slugify(milestone.title, 24) || `m${milestone.number}`}`;
    const options: RunOptionsStored = {
      maxSessions: Math.min(maxWaveSize, cfg.config.maxSessions ?? deps.config.runner.maxSessions),
      dryRun: cmd.dryRun,
      maxWaves: cmd.waves,
      sender: intent.sender,
    };
    const created = await createRunOf(deps, intent, {
      kind: 'plan',
      milestoneNumber: milestone.number,
      milestoneTitle: milestone.title,
      slug,
      options,
      // A plan run has no integration branch: XS work merges straight into the default branch.
      integrationBranch: cfg.defaultBranch,
      // Created with its targets: a pass that comes first never plans the whole milestone instead.
      progress: { planBlitz: plan },
    });
    if (!created.created) {
      await answer(
        `A run on **${created.live.milestoneTitle}** is already live${created.live.triggerIssue !== undefined ? ` (see #${created.live.triggerIssue})` : ''}; nothing new was started.`,
      );
      return 'answered';
    }
    const run = created.run;
    // The command is taken now: whatever fails below, a later tick never turns it into a second run.
    await deps.store.claimIntent(intent.id, 'started');
    try {
      if (plan.unmatched?.length)
        await answer(
          `plan-blitz: planning ${plan.targets!.map(issueRef).join(', ')} of **${milestone.title}**. These targets were not matched and will not be planned:\n${plan.unmatched.map((u) => `- ${u.ref}: ${u.reason}`).join('\n')}`,
        );
      const commentId = await hooks.postDashboard(run, forge);
      if (commentId !== undefined) await setDashboardComment(deps.store, run.id, commentId);
    } catch (err) {
      const again = cmd.refs.length
        ? `/plan-blitz ${cmd.refs.map((r) => refText(r, repo)).join(' ')}`
        : commandFor('/plan-blitz', milestone.title);
      await failedStart(deps, hooks, run, err, answer, again);
      return 'refused';
    }
    deps.logger.info(
      { runId: run.id, repo: run.repo, milestone: run.milestoneTitle, targets: plan.targets?.length },
      'plan run started',
    );
    hooks.reconcileSoon(run.id);
    return 'started';
  };
};
