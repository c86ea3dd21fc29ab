// reconcileRun: a blitz run's kind of the one pass loop (pass-loop.ts): its load (the tracker and the
// store read into the planner's snapshot), its perform (perform.ts) and its dashboard. Every decision
// is the planner's (src/plan/); this file only reads and shows.

import { keptGraph } from '../dashboard/kept-graph.ts';
import type { DashboardInput } from '../dashboard/types.ts';
import { dashboardView } from '../dashboard/view.ts';
import type { AppPermission } from '../forges/app-permission.ts';
import { missingPermissionViewOf, refusedWriteViewOf } from '../forges/permission-view.ts';
import {
  type Forge,
  hasPermission,
  type IssueRef,
  type MilestoneSnapshot,
  repoRefOf,
} from '../forges/types.ts';
import { issueContentHash } from '../intake/content-hash.ts';
import type { ForgeEvent } from '../intake/events.ts';
import { modelNotesForRouting, readModelHints } from '../model-notes/notes.ts';
import { priceTableOf } from '../plan/cost.ts';
import { fleetTouchesRepo } from '../plan/fleet-progress.ts';
import { issueCapsOf } from '../plan/issue-caps.ts';
import { attemptKey, baseChangeViewOf, deriveProgress, inRunScope } from '../plan/issue-progress.ts';
import { mergeAfterFeedback } from '../plan/merge-after-feedback.ts';
import { parkViewOf } from '../plan/park.ts';
import { planInput } from '../plan/plan-input.ts';
import { holdUnplanned, unplannedLine } from '../plan/plan-labels.ts';
import { reviewViewOf } from '../plan/readiness.ts';
import { keptStopCause } from '../plan/run-reason.ts';
import type { Action, RunSnapshot } from '../plan/snapshot.ts';
import { isTerminalRunState } from '../plan/states.ts';
import { missingToolViewOf } from '../plan/tool-blocker.ts';
import { issueKey, planLabels } from '../plan/types.ts';
import { changedSinceDefault } from '../runner/integration-git.ts';
import { integrationGitOf } from '../runner/worker-clone.ts';
import { closeBatchOf } from '../runs/close-issue.ts';
import { forgeOfRun, type ReconcileCall, type RunCtx } from '../runs/context.ts';
import { keepRefusedWrite } from '../runs/missing-permission.ts';
import { runPasses } from '../runs/pass-loop.ts';
import type { Forges, Log, Records, Reviewers, Settings, StoreHealth, Workers } from '../runs/ports.ts';
import { commonSnapshot, paceReason, readRunRecords } from '../runs/run-pace.ts';
import { type ConfigRead, keptBlockerOf, loadRunRepo, type RunRepo } from '../runs/run-repo.ts';
import { foldResults, writeProgress } from '../runs/run-writer.ts';
import { keepWaitReason } from '../runs/wait-reason.ts';
import { withPrFeedback } from '../ship/feedback-view.ts';
import type { KeptPrReads } from '../ship/pr-reads-kept.ts';
import { keepOpenedPulls, readsPerCall, workerStamps } from '../ship/pr-reads-per-call.ts';
import type { RunRecord } from '../store/run-store.ts';
import { unfiledFindings } from './file-findings.ts';
import { gateBlockerViewOf } from './gate-blocker-run.ts';
import { sweepClosedWorkspaces } from './issue-cleanup.ts';
import { type PassCtx, type PerformPorts, perform } from './perform.ts';
import { gatePullRequests } from './pr-feedback-step.ts';

const advancing = new Set<Action['type']>([
  'open_pr',
  'review',
  'merge',
  'close_issue',
  'close_epic',
  'run_build',
  'run_smoke',
  'regate',
  'ship',
  'bounce',
]);

export interface ReconcileHooks {
  trusted(forge: Forge, repo: string, author: string): Promise<boolean>;
  dashboard(runId: string, view: DashboardInput): void;
  /** Runs whose closed issues' workspaces this process swept already (once per run, at start). */
  sweptRuns?: Set<string>;
  /** PR feedback reads kept past the call while a PR only waits (pr-reads-kept.ts). */
  keptPrReads?: KeptPrReads;
}

/** What a reconcile pass uses: the executor's ports, and the store's health for the dashboard. */
export type ReconcilePorts = PerformPorts & StoreHealth;

/** What one reconcileRun call reads once for all its passes (the repo config does not change mid-call). */
interface CallCache extends ReconcileCall {
  cfg?: ConfigRead;
  /** The PR feedback loop's reads of this call (pr-reads-per-call.ts). */
  prReads?: Map<string, Promise<unknown>>;
}

/**
 * Reads everything one pass needs; undefined when the run is gone or finished. A forge that refuses the
 * bot or a config that does not parse is read as the snapshot's hard blocker (run-repo.ts).
 */
const load = async (
  deps: ReconcilePorts,
  hooks: ReconcileHooks,
  runId: string,
  cache: CallCache,
): Promise<PassCtx | undefined> => {
  // What background gates recorded since the last pass joins the run first (under the run lock).
  await foldResults(deps.store, runId);
  const run = await deps.store.getRun(runId);
  if (!run || isTerminalRunState(run.state)) return undefined;
  // A PR a pass opens is not read back by the next pass's feedback read (pr-reads-per-call.ts).
  cache.prReads ??= new Map();
  const prReads = cache.prReads;
  return loadRunRepo(deps, run, 'blitz', (r) => loadRun(deps, hooks, run, cache, r), {
    cache,
    wrap: (forge) => keepOpenedPulls(forge, prReads),
  });
};

const loadRun = async (
  deps: ReconcilePorts,
  hooks: ReconcileHooks,
  run: RunRecord,
  cache: CallCache,
  { forge, repo, repoConfig, defaultBranch, options }: RunRepo,
): Promise<RunCtx> => {
  const { ms, input } = await readMilestone(hooks, forge, run);
  const { external } = input;
  // Seed 002: M/L work needs an approved plan first; it is held (and said so) while the rest runs.
  const issues = holdUnplanned(input.issues);
  const { rows, attempts, machine, pace } = await readRunRecords(deps, run);
  const rowsByKey = new Map(rows.map((r) => [issueKey(r.repo, r.number), r]));
  const open = new Set(issues.map((i) => issueKey(i.repo, i.number)));
  if (hooks.sweptRuns && !hooks.sweptRuns.has(run.id)) {
    hooks.sweptRuns.add(run.id);
    await sweepClosedWorkspaces(deps, { run, forge, repo, attempts, rows: rowsByKey }, ms.issues);
  }
  const { progress, abandoned } = inRunScope(
    deriveProgress({ rows, attempts, open, runnerRetries: deps.config.runner.retries }),
    open,
  );
  const fresh = (await deps.store.getRun(run.id)) ?? run;
  // The PR feedback loop: each open worker PR's CI and people's reviews, for the planner's merge gate.
  const stamps = workerStamps(progress, attempts);
  let lacking: AppPermission | undefined;
  const stampOf = (ref: IssueRef) => stamps.get(ref.number) ?? '';
  // Read again for a PR whose worker started, resumed or ended since the call read it.
  const callReads = readsPerCall(forge, cache.prReads ?? new Map(), stampOf);
  const prFacts = await gatePullRequests(
    deps,
    {
      forge: hooks.keptPrReads?.over(callReads, stampOf) ?? callReads,
      repo,
      run: fresh,
      attempts,
      rows: rowsByKey,
      ci: repoConfig.ci,
      writer: (login) => hooks.trusted(forge, run.repo, login),
      lacking: (permission) => {
        lacking ??= permission;
      },
      settled: (pr, facts) => hooks.keptPrReads?.settled({ repo, number: pr }, facts),
    },
    progress,
  );
  const p = fresh.progress;
  // A read refused this pass, else a write refused before that still stands (missing-permission.ts).
  const missingPermission = lacking
    ? await missingPermissionViewOf(forge, repo, lacking)
    : await refusedWriteViewOf(forge, repo, p.refusedWrite, deps.clock.now());
  const caps = issueCapsOf(deps.config.runner, deps.config.prices);
  const at = { now: deps.clock.now().toISOString(), policy: deps.config.runner.environmentBackoff };
  const missingTool = missingToolViewOf(at, attempts);
  const baseChanges = baseChangeViewOf(
    p,
    { attempts, rows: rowsByKey },
    progress.map((x) => x.key),
  );
  const wantsChanged = repoConfig.ship.deploy !== undefined && p.smoke === 'passed' && p.ship === undefined;
  const snap: RunSnapshot = {
    ...commonSnapshot(deps, 'blitz', options, {
      milestone: ms.milestone,
      issues,
      external,
      progress: withPrFeedback(progress, prFacts, p.prFeedback, { attempts, rows: rowsByKey }),
      // The last answer; the planner asks for a fresh one (once per reconcileRun call) before a wave.
      budget: cache.budget ?? p.budget,
      // Close to the forge's rate limit: fewer sessions; the dashboard says why. (Spent: the planner holds
      // the dispatches instead, `forgeSpent`, so it does not read it as a park that waits for a person.)
      machine,
      pace,
    }),
    ...(repoConfig.ship.deploy ? { deployCommand: repoConfig.ship.deploy } : {}),
    changedFiles: wantsChanged
      ? await changedSinceDefault(await integrationGitOf(deps, { forge, repo, run }), defaultBranch).catch(
          () => [],
        )
      : [],
    ...(abandoned.length > 0 ? { abandoned } : {}),
    ...(p.closeFailures ? { closeFailures: p.closeFailures } : {}),
    budgetStale: cache.budget === undefined,
    // The review module picks the integration reviewers: without one there is no review and no gate.
    ...(deps.review ? { integrationReview: reviewViewOf(p) } : {}),
    unfiledFindings: unfiledFindings(attempts, p.posted ?? [], run.triggerIssue !== undefined),
    ...(baseChanges ? { baseChanges } : {}),
    ...(p.reviewFindings?.length
      ? { reviewFindings: p.reviewFindings.map((n) => issueKey(run.repo, n)) }
      : {}),
    build: p.build ?? { status: 'none', covers: [], failures: 0 },
    ...(p.gateBlocker ? { gateBlocker: gateBlockerViewOf(fresh, issues)! } : {}),
    ...(p.hardBlocker ? { keptBlocker: keptBlockerOf(p.hardBlocker) } : {}),
    ...(keptStopCause(p) ? { stopCause: keptStopCause(p) } : {}),
    ...(missingTool ? { missingTool } : {}),
    ...(missingPermission ? { missingPermission } : {}),
    ...(p.reportedInstead ? { reportedInstead: p.reportedInstead } : {}),
    park: parkViewOf(at, fresh, attempts, cache.budget),
    buildConfigured: repoConfig.build !== undefined,
    requireChecks:
      options.requireChecks === true || repoConfig.ship.requireChecks || deps.config.ship.requireChecks,
    ...(caps ? { issueCaps: caps } : {}),
    smoke: p.smoke ?? 'none',
    smokeGate: {
      configured: repoConfig.smoke !== undefined,
      failures: p.smokeGate?.failures ?? 0,
      maxFailures: repoConfig.smokeAttempts,
      ...(p.smokeGate?.sha ? { sha: p.smokeGate.sha } : {}),
      ...(p.smokeGate?.notConfigured ? { passedUnconfigured: true } : {}),
    },
    ship: p.ship?.status ?? 'none',
    ...(p.ship?.status === 'passed'
      ? {
          shipped: {
            ...(p.ship.url ? { url: p.ship.url } : {}),
            ...(p.ship.unchecked ? { unchecked: p.ship.unchecked } : {}),
          },
        }
      : {}),
    ...(p.integrationHead ? { integrationHead: p.integrationHead } : {}),
    // What earlier runs taught about the roster (seed 001 "Model notes"): routing avoids those tiers.
    notes: modelNotesForRouting(
      await readModelHints(deps.config.modelNotesPath).catch((err: unknown) => {
        deps.logger.warn({ runId: run.id, err }, 'model notes unreadable; routing without them');
        return new Map();
      }),
    ),
  };
  return {
    call: cache,
    run: fresh,
    forge,
    repo,
    repoConfig,
    defaultBranch,
    snap,
    rows: rowsByKey,
    attempts,
    prFacts,
    issues: new Map(issues.map((i) => [issueKey(i.repo, i.number), i])),
    lapsedApprovals: ms.lapsed,
  };
};

/**
 * `blitz/approved` only counts when a person with write permission was seen adding it (the label on
 * its own can be added by anyone with triage rights), and only for the title and body it was added to.
 * A label without a recorded approval, such as one added before the run started, is read as absent; so
 * is one whose issue was edited since (`lapsed`): a writer re-adds it.
 */
export const withoutUnrecordedApprovals = (
  ms: MilestoneSnapshot,
  approvals: NonNullable<RunRecord['progress']['approvals']>,
): MilestoneSnapshot & { lapsed: Set<string> } => {
  const lapsed = new Set<string>();
  const issues = ms.issues.map((i) => {
    const key = issueKey(`${i.ref.repo.owner}/${i.ref.repo.name}`, i.ref.number);
    const approval = approvals[key];
    if (approval === undefined)
      return { ...i, labels: i.labels.filter((l) => l.name !== planLabels.approved) };
    if (typeof approval !== 'string' && approval.hash === issueContentHash(i.title, i.body)) return i;
    lapsed.add(key);
    return { ...i, labels: i.labels.filter((l) => l.name !== planLabels.approved) };
  });
  return { ...ms, issues, lapsed };
};

/** A milestone run's issues as the planner reads them (blitz and plan runs alike): approvals kept, authors' trust looked up. */
export const readMilestone = async (hooks: Pick<ReconcileHooks, 'trusted'>, forge: Forge, run: RunRecord) => {
  const ms = withoutUnrecordedApprovals(
    await forge.loadMilestone(repoRefOf(run.repo), run.milestoneNumber),
    run.progress.approvals ?? {},
  );
  const authors = new Map<string, boolean>();
  for (const i of ms.issues)
    if (!authors.has(i.author)) authors.set(i.author, await hooks.trusted(forge, run.repo, i.author));
  return { ms, input: planInput(ms, (a) => authors.get(a) ?? false) };
};

/**
 * Records who added `blitz/approved`, and the text they approved, on the live blitz and plan runs of the
 * repo and the fleets with a ticket there, when that person has write permission; anyone else's label
 * changes nothing. Runs under the run lock (a reconcile writes progress).
 */
export const recordApproval = async (deps: Records & Forges & Log, event: ForgeEvent): Promise<void> => {
  if (event.kind !== 'label-added' || event.label !== planLabels.approved) return;
  const repoName = `${event.repo.owner}/${event.repo.name}`;
  const runs = (await deps.store.listLiveRuns()).filter(
    (r) =>
      r.forge === event.forge &&
      (((r.kind === 'blitz' || r.kind === 'plan') && r.repo === repoName) || fleetTouchesRepo(r, repoName)),
  );
  if (runs.length === 0) return;
  const forge = await forgeOfRun(deps, event, event.repo);
  // A lookup that fails (an outage) throws: the approval is not taken for an unauthorised one, the
  // delivery is tried again (handleEvent).
  const permission = await forge.getPermission(event.repo, event.sender.login);
  if (event.sender.type !== 'User' || !hasPermission(permission, 'write')) {
    deps.logger.info(
      { repo: repoName, issue: event.issueNumber },
      'blitz/approved added without write permission; not counted',
    );
    return;
  }
  // The text as the label webhook showed it; read now only when the webhook did not carry it.
  const hash: string =
    event.contentHash ??
    (await forge
      .getIssue({ repo: event.repo, number: event.issueNumber })
      .then((i) => issueContentHash(i.title, i.body)));
  const key = issueKey(repoName, event.issueNumber);
  const approval = { by: event.sender.login, hash };
  for (const r of runs)
    await deps.store.withRunLock(r.id, async () => {
      if (!(await deps.store.getRun(r.id))) return;
      await writeProgress(deps.store, r.id, (p) =>
        JSON.stringify(p.approvals?.[key]) === JSON.stringify(approval)
          ? undefined
          : { approvals: { ...p.approvals, [key]: approval } },
      );
    });
};

/** Keeps the graph the dashboard drew in the run's progress (only when it changed), for the status page. */
const keepGraph = async (deps: Records, ctx: RunCtx, view: DashboardInput): Promise<void> => {
  ctx.run = await writeProgress(deps.store, ctx.run.id, (p) => {
    const graph = keptGraph(view.issues, p.graph);
    return JSON.stringify(graph) === JSON.stringify(p.graph ?? null) ? undefined : { graph };
  });
};

/** The dashboard of a pass; a pass the forge refused has nothing to show (the next that gets through does). */
/** The dashboard's line when workers run in no sandbox (the log and `doctor` say why and what to do). */
export const noSandboxLine =
  "workers run in no sandbox on this host: a worker can read every file its user can and reach the whole network (see the bot's log or `blitz-bot doctor`)";

const publish = async (
  deps: Records & Workers & Forges & Log & Settings & Reviewers & StoreHealth,
  hooks: ReconcileHooks,
  ctx: PassCtx,
  actions: readonly Action[],
) => {
  if ('held' in ctx) return;
  ctx.run = (await deps.store.getRun(ctx.run.id)) ?? ctx.run;
  const closed = ctx.snap.progress
    .filter((p) => !ctx.issues.has(p.key))
    .map((p) => {
      // Titles of closed issues come from the worker's job; an epic has none (it never had a worker).
      const title =
        ctx.attempts.find((a) => attemptKey(a) === p.key)?.job.title ?? 'epic (closed with its children)';
      return { number: Number(p.key.slice(p.key.lastIndexOf('#') + 1)), title };
    });
  const view = dashboardView({
    run: ctx.run,
    snap: ctx.snap,
    attempts: ctx.attempts,
    actions,
    closed,
    reviewAvailable: deps.review !== undefined,
    lapsedApprovals: ctx.lapsedApprovals,
    unplanned: unplannedLine(ctx.issues.values()),
    prices: priceTableOf(deps.config.prices),
    // As the run stands after the pass (a review this pass has its verdict shown now).
    ...(deps.review ? { integrationReview: reviewViewOf(ctx.run.progress) } : {}),
  });
  const slowed = paceReason(deps.forgePace?.(ctx.run));
  const unboxed =
    deps.runner.jail?.kind === 'none' ? { warnings: [...(view.warnings ?? []), noSandboxLine] } : {};
  const outage = deps.storeOutage?.();
  hooks.dashboard(ctx.run.id, {
    ...view,
    ...unboxed,
    ...(slowed ? { forgePace: slowed } : {}),
    ...(outage ? { storeOutage: outage } : {}),
  });
  await keepGraph(deps, ctx, view).catch((err: unknown) =>
    deps.logger.warn({ runId: ctx.run.id, err }, 'run graph not kept; the next reconcile retries'),
  );
};

/** One reconcile of a blitz run: the pass loop with the blitz's load, perform and dashboard. */
export const reconcileRun = (deps: ReconcilePorts, hooks: ReconcileHooks, runId: string): Promise<void> => {
  const cache: CallCache = {};
  return runPasses(deps, {
    load: () => load(deps, hooks, runId, cache),
    planned: (ctx, actions) => {
      if ('held' in ctx) return;
      ctx.mergeNext = mergeAfterFeedback(actions);
      ctx.closes = closeBatchOf(actions);
    },
    perform: (ctx, a) => perform(deps, ctx, a),
    advancing,
    publish: (ctx, actions) => publish(deps, hooks, ctx, actions),
    ended: async (ctx, a, err) => {
      // A write refused for an App permission: kept, so the next load blocks the run on it.
      await keepRefusedWrite(deps, ctx.run.id, err);
      if (!('held' in ctx)) await keepWaitReason(deps.store, { runId: ctx.run.id, rows: ctx.rows }, a, err);
    },
  });
};
