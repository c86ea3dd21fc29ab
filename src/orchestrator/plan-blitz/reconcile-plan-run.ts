// reconcilePlanRun: the plan-blitz run loop, level-triggered like reconcileRun. Each pass reads the
// milestone and the store; with a wave in flight it takes every member one step down its lane and
// lands the wave when all have landed; with none, it asks the planner (plan-wave.ts) for the next
// wave or the reason to stop. Labels and comments on the tracker carry the plans; the run keeps the
// waves' landings.
import { formatConfigErrors } from '../../config/repo-config.ts';
import { budgetOf } from '../../plan/budget.ts';
import { executionGate } from '../../plan/gates.ts';
import { buildGraph } from '../../plan/graph.ts';
import { enterRunning } from '../../plan/next-actions.ts';
import type { RunSnapshot, StopState } from '../../plan/snapshot.ts';
import type { RunState } from '../../plan/states.ts';
import { issueKey } from '../../plan/types.ts';
import type { BudgetProbe } from '../budget-probe.ts';
import { forgeOfRun, type Ports, type RunOptionsStored, refOf, repoRefOf } from '../context.ts';
import { cloneUrlOf } from '../dispatch-attempt.ts';
import { reportOnce } from '../perform.ts';
import { planInput } from '../plan-input.ts';
import { type ReconcileHooks, withoutUnrecordedApprovals } from '../reconcile.ts';
import { loadRepoConfig } from '../repo-settings.ts';
import { dispatchHeld, pacedLimit, paceReason } from '../run-pace.ts';
import { setRunState, stopRun as writeStop } from '../run-state.ts';
import { type PlanCtx, type PlanPorts, reloadPlan, savePlan } from './plan-context.ts';
import { renderPlanDashboard } from './plan-dashboard.ts';
import { planRunLabels, sizeOf } from './plan-labels.ts';
import { currentWave, finishedKeys, tallyOf } from './plan-state.ts';
import { advanceMember } from './plan-steps.ts';
import { decideWave, withExcluded } from './plan-wave.ts';

export interface PlanReconcileHooks extends Pick<ReconcileHooks, 'trusted'> {
  probe: BudgetProbe;
  /** Hands the rendered dashboard to the run's sticky-comment coalescer. */
  dashboardBody(runId: string, body: string): void;
}

/** What a plan run's pass uses of the orchestrator's ports: the steps' own and what loading reads. */
export type PlanRunPorts = PlanPorts & Ports<'cloneUrl' | 'forgePace' | 'forges' | 'machine'>;

const maxPasses = 12;
const live = (s: string) => s !== 'done' && s !== 'cancelled';
const num = (k: string) => `#${refOf(k).number}`;

const load = async (deps: PlanRunPorts, hooks: PlanReconcileHooks, runId: string) => {
  const run = await deps.store.getRun(runId);
  if (!run || !live(run.state)) return undefined;
  const repo = repoRefOf(run.repo);
  const forge = await forgeOfRun(deps, run, repo);
  const cfg = await loadRepoConfig(forge, repo);
  if (!cfg.result.ok)
    return { broken: formatConfigErrors(cfg.result.errors, cfg.path), run, forge, repo } as const;
  // The same approval gate as blitz: `blitz/approved` counts only as a writer added it, on that text.
  const ms = withoutUnrecordedApprovals(
    await forge.loadMilestone(repo, run.milestoneNumber),
    run.progress.approvals ?? {},
  );
  const authors = new Map<string, boolean>();
  for (const i of ms.issues)
    if (!authors.has(i.author)) authors.set(i.author, await hooks.trusted(forge, run.repo, i.author));
  const { issues, external } = planInput(ms, (a) => authors.get(a) ?? false);
  const pc: PlanCtx = {
    deps,
    run,
    forge,
    repo,
    repoConfig: cfg.result.config,
    defaultBranch: cfg.defaultBranch,
    cloneUrl: await cloneUrlOf(deps, forge, repo),
    issues: new Map(issues.map((i) => [issueKey(i.repo, i.number), i])),
    rows: new Map((await deps.store.listRunIssues(run.id)).map((r) => [issueKey(r.repo, r.number), r])),
    attempts: await deps.ledger.listByRun(run.id),
    plan: reloadPlan(run),
    slots: { free: 0 },
    executionOpen: new Set(),
    problems: new Map(),
  };
  const graph = buildGraph(issues, external);
  for (const k of pc.issues.keys()) if (executionGate(graph, k).open) pc.executionOpen.add(k);
  const options = run.options as RunOptionsStored;
  const machine = deps.machine?.() ?? deps.runner.limit();
  const running = pc.attempts.filter((a) => a.outcome === undefined).length;
  // Close to the forge's rate limit: fewer planning sessions, none while it is spent; the dashboard says so.
  const pace = deps.forgePace?.(run);
  const limit = pacedLimit(Math.min(options.maxSessions, machine.limit), pace);
  pc.slots.free = dispatchHeld(pace) ? 0 : Math.max(0, limit - running);
  const slowed = paceReason(pace);
  if (slowed) pc.slowed = slowed;
  const budget = await hooks.probe(run.id);
  const snap: RunSnapshot = {
    kind: 'plan',
    options,
    milestoneTitle: ms.milestone.title,
    milestoneDescription: ms.milestone.description,
    changedFiles: [],
    issues,
    external,
    progress: [],
    budget: budgetOf(budget, options.maxSessions),
    machine: { limit: machine.limit, contended: machine.contended },
    build: { status: 'none', covers: [], failures: 0 },
    smoke: 'none',
    ship: 'none',
    roster: deps.config.roster,
  };
  return { broken: undefined, pc, snap } as const;
};

/** Not candidates of this run: not targeted, already execution-ready, or landed in an earlier wave. */
const excluded = (pc: PlanCtx): Set<string> => {
  const out = finishedKeys(pc.plan);
  const targets = pc.plan.targets ? new Set(pc.plan.targets) : undefined;
  for (const [k, i] of pc.issues) {
    if (targets && !targets.has(k)) out.add(k);
    if (i.labels.some((l) => l.name.toLowerCase() === planRunLabels.ready)) out.add(k);
  }
  return out;
};

const report = (pc: PlanCtx, key: string, text: string) => reportOnce(pc.deps, pc, key, text);

/**
 * Ends the run. A plan run is never resumed (its waves are reported, not chained), so every stop but a
 * budget park leaves it done and frees the milestone for the next `/plan-blitz`; what blocked it is in
 * the reason and in the comment.
 */
const stopRun = async (pc: PlanCtx, state: StopState, reason: string) => {
  await savePlan(pc);
  const word =
    state === 'blocked' ? 'stopped (a person has to look)' : state === 'paused' ? 'paused' : 'finished';
  const full = state === 'blocked' ? `blocked: ${reason}` : reason;
  pc.run = await writeStop(pc.deps, pc.run.id, state === 'paused' ? 'paused' : 'done', full);
  await report(
    pc,
    `plan-stop:${state}:${reason}`,
    `**plan-blitz: ${pc.run.milestoneTitle} ${word}**: ${reason}`,
  );
};

/** Decides the next wave, or stops the run. True when a wave started. */
const nextWave = async (pc: PlanCtx, snap: RunSnapshot): Promise<boolean> => {
  const done = pc.plan.waves.filter((w) => w.landed);
  const last = done.at(-1);
  const d = decideWave(
    withExcluded(
      { ...snap, waves: { completed: done.length, ...(last ? { last: tallyOf(last) } : {}) } },
      excluded(pc),
    ),
  );
  pc.plan.cycles = d.cycles;
  for (const c of d.cycles)
    await report(
      pc,
      `cycle:${c.join(',')}`,
      `plan-blitz: these issues block each other in a cycle and will not be planned until a person cuts it: ${c.map(num).join(', ')}.`,
    );
  for (const u of d.unknownBlockers)
    await report(
      pc,
      `unknown:${u.blocker}:${u.namedBy.join(',')}`,
      `plan-blitz: ${u.namedBy.map(num).join(', ')} ${u.namedBy.length === 1 ? 'is' : 'are'} blocked by ${u.blocker}, which does not exist or cannot be read; not planned (fail closed).`,
    );
  const options = pc.run.options as RunOptionsStored;
  if (options.dryRun) {
    const members = d.next.kind === 'wave' ? d.next.members : [];
    const lines = [
      `**plan-blitz dry run: ${pc.run.milestoneTitle}** — nothing was started.`,
      '',
      `First wave (${members.length}):`,
      ...members.map(
        (k) => `- ${num(k)}: lane ${sizeOf(pc.issues.get(k)!) ?? 'unsized (the planner sizes it first)'}`,
      ),
      ...(members.length === 0 ? ['- nothing can be planned now'] : []),
      '',
      'Held:',
      ...(d.held.length ? d.held.map((h) => `- ${num(h.key)}: ${h.reason}`) : ['- nothing']),
      '',
      'Waiting:',
      ...(d.waiting.length ? d.waiting.map((w) => `- ${w}`) : ['- nothing']),
    ];
    await report(pc, 'plan-dry-run', lines.join('\n'));
    await stopRun(pc, 'done', 'dry run: the first wave is posted, nothing ran');
    return false;
  }
  if (d.next.kind === 'stop') {
    const { state, reason } = d.next;
    // Seed 002: the next wave at a stop is reported as the remaining work, never chained.
    pc.plan.remaining = [
      ...d.candidates.map((k) => `${num(k)} can be planned by another \`/plan-blitz\``),
      ...d.waiting,
    ];
    const cycle = [
      ...(d.cycles.length
        ? [`cycle not planned: ${d.cycles.map((c) => c.map(num).join(' ↔ ')).join(', ')}`]
        : []),
      ...d.unknownBlockers.map(
        (u) => `${u.namedBy.map(num).join(', ')} not planned: blocker ${u.blocker} cannot be read`,
      ),
    ]
      .map((x) => `; ${x}`)
      .join('');
    await stopRun(pc, cycle && state === 'done' ? 'blocked' : state, `${reason}${cycle}`);
    return false;
  }
  pc.plan.waves.push({
    index: pc.plan.waves.length + 1,
    members: d.next.members,
    held: d.held,
    outcomes: {},
    landed: false,
  });
  await savePlan(pc);
  pc.deps.logger.info(
    { runId: pc.run.id, wave: pc.plan.waves.length, members: d.next.members },
    'plan wave started',
  );
  return true;
};

/** One reconcile of a plan run; the caller holds the run's lock (across replicas on Postgres). */
export const reconcilePlanRun = async (
  deps: PlanRunPorts,
  hooks: PlanReconcileHooks,
  runId: string,
): Promise<void> => {
  for (let pass = 0; pass < maxPasses; pass++) {
    const loaded = await load(deps, hooks, runId);
    if (!loaded) return;
    if (loaded.broken !== undefined) {
      const { run, forge, repo } = loaded;
      if (run.triggerIssue !== undefined)
        await forge.createComment({ repo, number: run.triggerIssue }, loaded.broken).catch(() => undefined);
      await writeStop(deps, run.id, 'blocked', 'the repo config does not parse');
      return;
    }
    const { pc, snap } = loaded;
    if (pc.run.state === 'paused') return hooks.dashboardBody(runId, renderPlanDashboard(pc));
    for (const a of enterRunning(pc.run.state as RunState)) pc.run = await setRunState(deps, pc.run.id, a);
    let moved = false;
    const wave = currentWave(pc.plan);
    if (wave) {
      for (const key of wave.members) {
        try {
          await advanceMember(pc, key);
        } catch (err) {
          deps.logger.error({ runId, issue: key, err }, 'plan step failed; the next reconcile retries it');
          pc.problems.set(key, err instanceof Error ? err.message : String(err));
        }
      }
      if (wave.members.every((k) => wave.outcomes[k])) {
        wave.landed = true;
        await savePlan(pc);
        moved = true;
      }
    } else moved = await nextWave(pc, snap);
    hooks.dashboardBody(runId, renderPlanDashboard(pc));
    if (!moved || !live(pc.run.state)) return;
  }
};
