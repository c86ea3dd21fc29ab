// reconcilePlanRun: a plan-blitz run's kind of the one pass loop (pass-loop.ts). The planner (kind
// `plan`: plan/plan-waves.ts) decides the waves, their landing and the stop; this file loads and
// performs: a member's step down its lane (plan/plan-member.ts decides it, member-steps.ts performs
// it), a wave started or landed, a report, the stop.
// Labels and comments on the tracker carry the plans; the run keeps the waves' landings.

import { blockerReport } from '../dashboard/blocker-reports.ts';
import { planDryRun } from '../dashboard/dry-run.ts';
import { renderPlanDashboard } from '../dashboard/plan-dashboard.ts';
import { refusedWriteViewOf } from '../forges/permission-view.ts';
import { type ReconcileHooks, readMilestone } from '../orchestrator/reconcile.ts';
import { memberReadOf } from '../plan/member-read.ts';
import { parkViewOf } from '../plan/park.ts';
import { environmentWait, type MemberAnswer, type MemberRead, type MergeRead } from '../plan/plan-member.ts';
import { currentWave, finishedKeys, tallyOf } from '../plan/plan-progress.ts';
import { planRunEnd } from '../plan/plan-waves.ts';
import type { Action, RunSnapshot } from '../plan/snapshot.ts';
import { isTerminalRunState } from '../plan/states.ts';
import { type IssueKey, issueKey } from '../plan/types.ts';
import { cloneUrlOf } from '../runner/worker-clone.ts';
import type { BudgetProbe } from '../runs/budget-probe.ts';
import { parkRun, unparkRun } from '../runs/environment-park-run.ts';
import { blockRun, unblockRun } from '../runs/hard-blocker-run.ts';
import { keepRefusedWrite } from '../runs/missing-permission.ts';
import { type PassKind, runPasses } from '../runs/pass-loop.ts';
import type { Announcer, Forges } from '../runs/ports.ts';
import { issuesShippedOf, reportOnce, tellOnce } from '../runs/run-notice.ts';
import { commonSnapshot, pacedLimit, paceReason, readRunRecords } from '../runs/run-pace.ts';
import { type HeldPass, keptBlockerOf, loadRunRepo, type RunRepo } from '../runs/run-repo.ts';
import { setRunState, stopRun as writeStop } from '../runs/run-state.ts';
import { keepWaitReason } from '../runs/wait-reason.ts';
import { runNoticeOf } from '../ship/run-notices.ts';
import type { RunRecord } from '../store/run-store.ts';
import { performMemberStep } from './member-steps.ts';
import { type PlanCtx, type PlanPorts, reloadPlan, savePlan } from './plan-context.ts';

export interface PlanReconcileHooks extends Pick<ReconcileHooks, 'trusted'> {
  /** Hands the rendered dashboard to the run's sticky-comment coalescer. */
  dashboardBody(runId: string, body: string): void;
}

/** What a plan run's pass uses of the orchestrator's ports: the steps' own and what loading reads. */
export type PlanRunPorts = PlanPorts & Forges & Announcer & { probe: BudgetProbe };

const advancing = new Set<Action['type']>(['start_wave', 'land_wave']);

export type PlanPass = (PlanCtx & { snap: RunSnapshot }) | HeldPass;

/**
 * A pass's reads; undefined when the run is gone or finished. A forge that refuses the bot or a config
 * that does not parse is read as the snapshot's hard blocker, as for a blitz (run-repo.ts).
 */
const load = async (
  deps: PlanRunPorts,
  hooks: PlanReconcileHooks,
  runId: string,
): Promise<PlanPass | undefined> => {
  const run = await deps.store.getRun(runId);
  if (!run || isTerminalRunState(run.state)) return undefined;
  return loadRunRepo(deps, run, 'plan', (r) => loadPlanRun(deps, hooks, run, r));
};

const loadPlanRun = async (
  deps: PlanRunPorts,
  hooks: PlanReconcileHooks,
  run: RunRecord,
  { forge, repo, repoConfig, defaultBranch, options }: RunRepo,
): Promise<PlanCtx & { snap: RunSnapshot }> => {
  // The same approval gate as blitz: `blitz/approved` counts only as a writer added it, on that text.
  const { ms, input } = await readMilestone(hooks, forge, run);
  const { issues, external } = input;
  const { rows, attempts, machine, pace } = await readRunRecords(deps, run);
  const pc: PlanCtx = {
    deps,
    run,
    forge,
    repo,
    repoConfig,
    defaultBranch,
    cloneUrl: await cloneUrlOf(deps, forge, repo),
    issues: new Map(issues.map((i) => [issueKey(i.repo, i.number), i])),
    rows: new Map(rows.map((r) => [issueKey(r.repo, r.number), r])),
    attempts,
    plan: reloadPlan(run),
    problems: new Map(),
  };
  // Close to the forge's rate limit: fewer planning sessions, none while it is spent; the dashboard says so.
  const slowed = paceReason(pace);
  if (slowed) pc.slowed = slowed;
  const landed = pc.plan.waves.filter((w) => w.landed);
  const last = landed.at(-1);
  const wave = currentWave(pc.plan);
  // The pass's time: a member's environment backoff is waited out against it (plan-member.ts).
  const now = deps.clock.now().toISOString();
  const budget = await deps.probe(run.id);
  // A write refused for an App permission (a merge, a PR, an issue write) blocks it until the bot's
  // credential carries the permission, as a blitz's does (missing-permission.ts).
  const missingPermission = await refusedWriteViewOf(
    forge,
    repo,
    run.progress.refusedWrite,
    deps.clock.now(),
  );
  const snap: RunSnapshot = {
    ...commonSnapshot(deps, 'plan', options, {
      milestone: ms.milestone,
      issues,
      external,
      budget,
      machine,
      pace,
    }),
    // A wave paused by the budget probe's park waits for the reset the probe named and goes on by
    // itself once it allows work (plan/park.ts). A member's environment failure is its own lane's
    // (plan-member.ts): no attempt is read here.
    park: parkViewOf({ now, policy: deps.config.runner.environmentBackoff }, run, [], budget),
    ...(run.progress.hardBlocker ? { keptBlocker: keptBlockerOf(run.progress.hardBlocker) } : {}),
    ...(missingPermission ? { missingPermission } : {}),
    waves: { completed: landed.length, ...(last ? { last: tallyOf(last) } : {}) },
    planRun: {
      ...(pc.plan.targets ? { targets: pc.plan.targets } : {}),
      finished: [...finishedKeys(pc.plan)],
      ...(wave
        ? {
            wave: {
              members: wave.members,
              landed: Object.keys(wave.outcomes),
              facts: await Promise.all(wave.members.map((k) => memberRead(pc, k, now))),
            },
          }
        : {}),
      sessions: {
        limit: pacedLimit(Math.min(options.maxSessions, machine.limit), pace),
        running: pc.attempts.filter((a) => a.outcome === undefined).length,
        runnerRetries: deps.config.runner.retries,
      },
    },
  };
  return Object.assign(pc, { snap });
};

/**
 * The PR of an XS merge under way that has no recorded answer yet (the bot stopped between the merge
 * and its record), as the forge shows it now; its step decides what it means.
 */
const mergeUnderWay = async (
  pc: PlanCtx,
  answer: MemberAnswer | undefined,
): Promise<MergeRead | undefined> => {
  if (!answer?.merging || answer.shipped || answer.shipRefused) return undefined;
  const pr = await pc.forge.getPullRequest({ repo: pc.repo, number: answer.merging.pr });
  return {
    pr: answer.merging.pr,
    merged: pr.merged,
    ...(pr.mergeCommitSha ? { sha: pr.mergeCommitSha } : {}),
  };
};

/** What the pass read about one wave member, for its step: the store's and, for a merge under way, the forge's. */
const memberRead = async (pc: PlanCtx, key: IssueKey, now: string): Promise<MemberRead> => {
  const answer = currentWave(pc.plan)?.answers[key];
  const merge = pc.rows.get(key)?.state === 'shipping' ? await mergeUnderWay(pc, answer) : undefined;
  return memberReadOf(pc, key, now, answer, merge);
};

const report = (pc: PlanCtx, key: string, text: string) => reportOnce(pc.deps, pc, key, text);

/** Ends the run as `planRunEnd` keeps it, with the work left and the cycles left out on its dashboard. */
const stopPlanRun = async (
  pc: PlanCtx,
  { state, reason, remaining, cycles = [], cause }: Extract<Action, { type: 'stop' }>,
) => {
  if (remaining) pc.plan.remaining = remaining;
  pc.plan.cycles = cycles;
  await savePlan(pc);
  const end = planRunEnd(state, reason);
  pc.run = await writeStop(pc.deps, pc.run.id, end.state, end.reason, undefined, cause);
  const key = `plan-stop:${state}:${reason}`;
  const title = `plan-blitz: ${pc.run.milestoneTitle} ${end.headline}`;
  // A budget park's own notice and comment tell the people (environment-park-run.ts parkRun).
  if (end.state === 'paused') return report(pc, key, `**${title}**: ${reason}`);
  // A finished run's plans wait on the people's review, a stopped one on a person: either is said
  // once, to the notify targets when it needs a person, and on the planning issue (@mentioning the
  // starter when no target would tell them).
  const blocked = state === 'blocked';
  await tellOnce(
    pc.deps,
    pc,
    key,
    {
      title,
      sentence: reason,
      ...(blocked ? { next: 'Once a person has looked, a new `/plan-blitz` plans what is left.' } : {}),
    },
    blocked
      ? runNoticeOf(pc.run, 'blocked', reason, {
          issuesShipped: await issuesShippedOf(pc.deps, pc.run.id),
          ...(pc.deps.config.publicUrl ? { publicUrl: pc.deps.config.publicUrl } : {}),
        })
      : undefined,
  );
};

/** Applies one of the planner's actions to a plan run; true when a member's step moved the run. */
const performPlan = async (deps: PlanRunPorts, p: PlanPass, a: Action): Promise<unknown> => {
  if (a.type === 'block') return blockRun(deps, p.run.id, a);
  if (a.type === 'unblock') return unblockRun(deps, p.run.id);
  if (a.type === 'park') {
    p.run = await parkRun(deps, p.run, a);
    return;
  }
  if (a.type === 'unpark') {
    p.run = await unparkRun(deps, p.run, a.reason);
    return;
  }
  // Nothing else is planned on a held pass.
  if ('held' in p) return;
  const pc = p;
  switch (a.type) {
    case 'set_state':
      pc.run = await setRunState(pc.deps, pc.run.id, a);
      return;
    case 'report_cycle':
    case 'report_unknown_blocker': {
      const r = blockerReport('plan', a);
      return report(pc, r.key, r.text);
    }
    case 'post_plan':
      await report(pc, 'plan-dry-run', planDryRun(pc.run.milestoneTitle, pc.issues, a));
      return;
    case 'start_wave':
      pc.plan.cycles = a.cycles;
      pc.plan.waves.push({
        index: pc.plan.waves.length + 1,
        members: a.members,
        held: a.held,
        outcomes: {},
        answers: {},
        landed: false,
      });
      await savePlan(pc);
      pc.deps.logger.info(
        { runId: pc.run.id, wave: pc.plan.waves.length, members: a.members },
        'plan wave started',
      );
      return;
    case 'advance_member':
      // A member that landed may have been the wave's last: the next pass lands it. A failed step is
      // shown on the dashboard (silence is not success); the loop logs it and the next pass retries.
      return performMemberStep(pc, a).catch((err: unknown) => {
        pc.problems.set(a.issue, err instanceof Error ? err.message : String(err));
        throw err;
      });
    case 'land_wave': {
      const wave = currentWave(pc.plan);
      if (wave) wave.landed = true;
      return savePlan(pc);
    }
    case 'stop':
      return stopPlanRun(pc, a);
    case 'notify':
      // The stop that follows says it, in a plan run's own words (stopPlanRun).
      return;
    default:
      pc.deps.logger.warn({ runId: pc.run.id, action: a.type }, 'action not performed for a plan run');
      return;
  }
};

/** The plan run's kind of the pass loop (its load, perform, dashboard and why a member waits). */
export const planPasses = (
  deps: PlanRunPorts,
  hooks: PlanReconcileHooks,
  runId: string,
): PassKind<PlanPass> => ({
  load: () => load(deps, hooks, runId),
  perform: (p, a) => performPlan(deps, p, a),
  advancing,
  // A held pass has nothing to show; the first pass that reads the repo again does.
  publish: async (p) => {
    if ('held' in p) return;
    const waiting = new Map<IssueKey, string>();
    for (const m of p.snap.planRun?.wave?.facts ?? []) {
      const wait = environmentWait(m);
      if (wait) waiting.set(m.key, wait);
    }
    hooks.dashboardBody(runId, renderPlanDashboard({ ...p, waiting }));
  },
  // Why a member waits (a step that failed) stays on its row for the status pages, as for a blitz.
  ended: async (p, a, err) => {
    // A write refused for an App permission: kept, so the next load blocks the run on it.
    await keepRefusedWrite(deps, p.run.id, err);
    if (!('held' in p)) await keepWaitReason(deps.store, { runId: p.run.id, rows: p.rows }, a, err);
  },
});

/** One reconcile of a plan run, the pass loop with the plan run's kind; the caller holds the run's lock. */
export const reconcilePlanRun = (
  deps: PlanRunPorts,
  hooks: PlanReconcileHooks,
  runId: string,
): Promise<void> => runPasses<PlanPass>(deps, planPasses(deps, hooks, runId));
