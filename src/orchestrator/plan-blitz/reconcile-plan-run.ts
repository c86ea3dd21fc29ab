// reconcilePlanRun: a plan-blitz run's kind of the one pass loop (pass-loop.ts). The planner (kind
// `plan`: plan/plan-waves.ts) decides the waves, their landing and the stop; this file loads and
// performs: a member's step down its lane (plan/plan-member.ts decides it, member-steps.ts performs
// it), a wave started or landed, a report, the stop.
// Labels and comments on the tracker carry the plans; the run keeps the waves' landings.
import { formatConfigErrors } from '../../config/repo-config.ts';
import { blockerReport } from '../../dashboard/blocker-reports.ts';
import { planDryRun } from '../../dashboard/dry-run.ts';
import { renderPlanDashboard } from '../../dashboard/plan-dashboard.ts';
import { issueAttempts } from '../../plan/issue-progress.ts';
import { sizeOf } from '../../plan/plan-labels.ts';
import type { MemberRead } from '../../plan/plan-member.ts';
import { currentWave, finishedKeys, tallyOf } from '../../plan/plan-progress.ts';
import { planRunEnd } from '../../plan/plan-waves.ts';
import type { Action, RunSnapshot } from '../../plan/snapshot.ts';
import { type IssueKey, issueKey } from '../../plan/types.ts';
import type { BudgetProbe } from '../budget-probe.ts';
import { forgeOfRun, type Ports, type RunOptionsStored, repoRefOf } from '../context.ts';
import { cloneUrlOf } from '../dispatch-attempt.ts';
import { live, runPasses } from '../pass-loop.ts';
import { reportOnce } from '../perform.ts';
import { type ReconcileHooks, readMilestone } from '../reconcile.ts';
import { loadRepoConfig } from '../repo-settings.ts';
import { commonSnapshot, pacedLimit, paceReason, readRunRecords } from '../run-pace.ts';
import { setRunState, stopRun as writeStop } from '../run-state.ts';
import { performMemberStep } from './member-steps.ts';
import { attemptsOfIssue, type PlanCtx, type PlanPorts, reloadPlan, savePlan } from './plan-context.ts';

export interface PlanReconcileHooks extends Pick<ReconcileHooks, 'trusted'> {
  /** Hands the rendered dashboard to the run's sticky-comment coalescer. */
  dashboardBody(runId: string, body: string): void;
}

/** What a plan run's pass uses of the orchestrator's ports: the steps' own and what loading reads. */
export type PlanRunPorts = PlanPorts &
  Ports<'cloneUrl' | 'forgePace' | 'forges' | 'machine'> & { probe: BudgetProbe };

const advancing = new Set<Action['type']>(['start_wave', 'land_wave']);

/** A pass's reads; undefined when the run is gone or finished, or stopped now on a config that does not parse. */
const load = async (
  deps: PlanRunPorts,
  hooks: PlanReconcileHooks,
  runId: string,
): Promise<(PlanCtx & { snap: RunSnapshot }) | undefined> => {
  const run = await deps.store.getRun(runId);
  if (!run || !live(run.state)) return undefined;
  const repo = repoRefOf(run.repo);
  const forge = await forgeOfRun(deps, run, repo);
  const cfg = await loadRepoConfig(forge, repo);
  if (!cfg.result.ok) {
    // Said once per set of errors, and stopped once: a blocked run is still looked at every tick.
    const text = formatConfigErrors(cfg.result.errors, cfg.path);
    await reportOnce(deps, { run, forge, repo }, `config:${JSON.stringify(cfg.result.errors)}`, text).catch(
      (err: unknown) => deps.logger.warn({ runId: run.id, err }, 'config errors not posted'),
    );
    const reason = 'the repo config does not parse';
    if (run.state !== 'blocked' || run.progress.reason !== reason)
      await writeStop(deps, run.id, 'blocked', reason);
    return undefined;
  }
  // The same approval gate as blitz: `blitz/approved` counts only as a writer added it, on that text.
  const { ms, input } = await readMilestone(hooks, forge, run);
  const { issues, external } = input;
  const { rows, attempts, machine, pace } = await readRunRecords(deps, run);
  const pc: PlanCtx = {
    deps,
    run,
    forge,
    repo,
    repoConfig: cfg.result.config,
    defaultBranch: cfg.defaultBranch,
    cloneUrl: await cloneUrlOf(deps, forge, repo),
    issues: new Map(issues.map((i) => [issueKey(i.repo, i.number), i])),
    rows: new Map(rows.map((r) => [issueKey(r.repo, r.number), r])),
    attempts,
    plan: reloadPlan(run),
    problems: new Map(),
  };
  const options = run.options as RunOptionsStored;
  // Close to the forge's rate limit: fewer planning sessions, none while it is spent; the dashboard says so.
  const slowed = paceReason(pace);
  if (slowed) pc.slowed = slowed;
  const landed = pc.plan.waves.filter((w) => w.landed);
  const last = landed.at(-1);
  const wave = currentWave(pc.plan);
  const snap: RunSnapshot = {
    ...commonSnapshot(deps, 'plan', options, {
      milestone: ms.milestone,
      issues,
      external,
      budget: await deps.probe(run.id),
      machine,
      pace,
    }),
    waves: { completed: landed.length, ...(last ? { last: tallyOf(last) } : {}) },
    planRun: {
      ...(pc.plan.targets ? { targets: pc.plan.targets } : {}),
      finished: [...finishedKeys(pc.plan)],
      ...(wave
        ? {
            wave: {
              members: wave.members,
              landed: Object.keys(wave.outcomes),
              facts: wave.members.map((k) => memberRead(pc, k)),
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

/** What the pass read about one wave member, for its step (plan/plan-member.ts). */
const memberRead = (pc: PlanCtx, key: IssueKey): MemberRead => {
  const issue = pc.issues.get(key);
  const row = pc.rows.get(key);
  const size = issue && sizeOf(issue);
  const state = row?.state ?? 'queued';
  const answer = currentWave(pc.plan)?.answers[key];
  return {
    key,
    open: issue !== undefined,
    ...(size ? { size } : {}),
    state,
    attempts: issueAttempts(pc, key).map((a) => ({
      id: a.id,
      retry: a.job.retry,
      ...(a.outcome ? { outcome: a.outcome } : {}),
      ...(a.failureSummary ? { failureSummary: a.failureSummary } : {}),
    })),
    dispatches: row?.attempts ?? 0,
    firstTries: attemptsOfIssue(pc, key).filter((a) => a.job.retry === 0).length,
    ...(state === 'fixing' && row?.lastError !== undefined ? { findings: row.lastError } : {}),
    ...(answer ? { answer } : {}),
  };
};

const report = (pc: PlanCtx, key: string, text: string) => reportOnce(pc.deps, pc, key, text);

/** Ends the run as `planRunEnd` keeps it, with the work left and the cycles left out on its dashboard. */
const stopPlanRun = async (
  pc: PlanCtx,
  { state, reason, remaining, cycles = [] }: Extract<Action, { type: 'stop' }>,
) => {
  if (remaining) pc.plan.remaining = remaining;
  pc.plan.cycles = cycles;
  await savePlan(pc);
  const end = planRunEnd(state, reason);
  pc.run = await writeStop(pc.deps, pc.run.id, end.state, end.reason);
  await report(
    pc,
    `plan-stop:${state}:${reason}`,
    `**plan-blitz: ${pc.run.milestoneTitle} ${end.headline}**: ${reason}`,
  );
};

/** Applies one of the planner's actions to a plan run; true when a member's step moved the run. */
const performPlan = async (pc: PlanCtx, a: Action): Promise<unknown> => {
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
    default:
      pc.deps.logger.warn({ runId: pc.run.id, action: a.type }, 'action not performed for a plan run');
      return;
  }
};

/** One reconcile of a plan run, the pass loop with the plan run's kind; the caller holds the run's lock. */
export const reconcilePlanRun = (
  deps: PlanRunPorts,
  hooks: PlanReconcileHooks,
  runId: string,
): Promise<void> =>
  runPasses<PlanCtx & { snap: RunSnapshot }>(deps, {
    load: () => load(deps, hooks, runId),
    perform: performPlan,
    advancing,
    publish: async (pc) => hooks.dashboardBody(runId, renderPlanDashboard(pc)),
  });
