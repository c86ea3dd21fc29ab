// Reads everything one fleet pass needs: each ticket as the tracker shows it (in whichever repo it
// lives), the run's rows and attempts, and which repos another live run is working in; and builds
// the planner's snapshot of kind `fleet` (pilot first, then waves, busy repos last).

import { defaultRepoConfig } from '../config/repo-config.ts';
import { isAppError } from '../errors.ts';
import type { AppPermission } from '../forges/app-permission.ts';
import { missingPermissionViewOf, refusedWriteViewOf } from '../forges/permission-view.ts';
import { formatRepo, type Issue, repoRefOf } from '../forges/types.ts';
import { issueContentHash } from '../intake/content-hash.ts';
import { gatePullRequests } from '../orchestrator/pr-feedback-step.ts';
import { extractFences } from '../plan/fences.ts';
import { fleetOptionsOf, fleetProgressOf, ticketKey, ticketOf } from '../plan/fleet-progress.ts';
import { attemptKey, deriveProgress } from '../plan/issue-progress.ts';
import { parkViewOf } from '../plan/park.ts';
import { toTicketIssue } from '../plan/plan-input.ts';
import { keptStopCause } from '../plan/run-reason.ts';
import type { IssueProgress, RunSnapshot } from '../plan/snapshot.ts';
import { isTerminalRunState } from '../plan/states.ts';
import { issueKey, type PlanIssue } from '../plan/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { BudgetProbe } from '../runs/budget-probe.ts';
import { forgeOfRun } from '../runs/context.ts';
import type { Clock, Forges, Log, Records, Settings, Workers } from '../runs/ports.ts';
import { loadRepoConfig } from '../runs/repo-settings.ts';
import { commonSnapshot, readRunRecords } from '../runs/run-pace.ts';
import { keptBlockerOf } from '../runs/run-repo.ts';
import { withPrFeedback } from '../ship/feedback-view.ts';
import type { PrFacts } from '../ship/pr-facts.ts';
import type { RunIssueRecord, RunRecord } from '../store/run-store.ts';
import type { FleetCtx, FleetHooks, RepoFacts } from './fleet-context.ts';

const inFlight = new Set(['dispatched', 'working', 'pushed', 'pr_open', 'reviewed']);

/**
 * Whether a ticket may run unattended: an approval recorded for its current title and body (a writer
 * named it in `/ticket-fleet`, or added `blitz/approved`), else its author's write permission. An
 * approval whose text changed since is `lapsed`: held until a writer approves again.
 */
const ticketTrust = async (
  hooks: FleetHooks,
  f: RepoFacts,
  key: string,
  issue: Issue,
  approvals: NonNullable<RunRecord['progress']['approvals']>,
): Promise<{ trusted: boolean; lapsed: boolean }> => {
  const approval = approvals[key];
  if (typeof approval === 'object' && approval.hash === issueContentHash(issue.title, issue.body))
    return { trusted: true, lapsed: false };
  if (await hooks.trusted(f.forge, formatRepo(f.repo), issue.author)) return { trusted: true, lapsed: false };
  return { trusted: false, lapsed: approval !== undefined };
};

export const repoFactsCache = (deps: Forges, run: Pick<RunRecord, 'forge' | 'installationId'>) => {
  const cache = new Map<string, Promise<RepoFacts>>();
  return (name: string): Promise<RepoFacts> => {
    const key = name.toLowerCase();
    let hit = cache.get(key);
    if (!hit) {
      hit = (async () => {
        const repo = repoRefOf(name);
        const forge = await forgeOfRun(deps, run, repo);
        return { forge, repo, defaultBranch: await forge.getDefaultBranch(repo) };
      })();
      cache.set(key, hit);
    }
    return hit;
  };
};

/** Other live runs' in-flight issues in the repos of this fleet: their repos go last, their files are fenced. */
const busyWork = async (
  deps: Records,
  run: RunRecord,
  repos: Set<string>,
  facts: ReturnType<typeof repoFactsCache>,
) => {
  const fences = new Map<string, { path: string; ownerIssue: number }[]>();
  for (const other of await deps.store.listLiveRuns()) {
    if (other.id === run.id || other.forge !== run.forge) continue;
    const rows = (await deps.store.listRunIssues(other.id)).filter((r) => inFlight.has(r.state));
    const touched = new Set([other.repo.toLowerCase(), ...rows.map((r) => r.repo.toLowerCase())]);
    for (const repo of repos) {
      if (!touched.has(repo)) continue;
      const list = fences.get(repo) ?? [];
      for (const r of rows.filter((x) => x.repo.toLowerCase() === repo)) {
        const issue = await (await facts(r.repo)).forge
          .getIssue({ repo: repoRefOf(r.repo), number: r.number })
          .catch(() => undefined);
        for (const path of extractFences(issue?.body ?? '')) list.push({ path, ownerIssue: r.number });
      }
      fences.set(repo, list);
    }
  }
  return fences;
};

/** Undefined when the run is gone, not a fleet, or (unless `ended` is set) finished. */
export const loadFleet = async (
  deps: Records & Workers & Forges & Clock & Log & Settings & { probe: BudgetProbe },
  hooks: FleetHooks,
  runId: string,
  ended = false,
): Promise<FleetCtx | undefined> => {
  const run = await deps.store.getRun(runId);
  if (run?.kind !== 'fleet' || (!ended && isTerminalRunState(run.state))) return undefined;
  const options = fleetOptionsOf(run);
  const fleet = fleetProgressOf(run);
  const facts = repoFactsCache(deps, run);
  const own = await facts(run.repo);
  const tickets = new Map<string, PlanIssue>();
  const repos = new Map<string, Awaited<ReturnType<typeof facts>>>();
  const lapsedApprovals = new Set<string>();
  for (const t of options.tickets) {
    try {
      const f = await facts(t.repo);
      repos.set(t.repo.toLowerCase(), f);
      const issue = await f.forge.getIssue({ repo: f.repo, number: t.number });
      const trust = await ticketTrust(hooks, f, ticketKey(t), issue, run.progress.approvals ?? {});
      if (trust.lapsed) lapsedApprovals.add(ticketKey(t));
      tickets.set(ticketKey(t), toTicketIssue(issue, trust.trusted));
    } catch (err) {
      // A ticket that became unreadable mid-run is left out of this pass (and off the scoreboard).
      if (!isAppError(err, 'not_found') && !isAppError(err, 'forbidden')) throw err;
      deps.logger.warn({ runId, ticket: ticketKey(t), err }, 'ticket unreadable this pass');
    }
  }
  const { rows, attempts, machine, pace } = await readRunRecords(deps, run);
  const open = new Set([...tickets].filter(([, i]) => i.state === 'open').map(([k]) => k));
  const derived = deriveProgress({ rows, attempts, open, runnerRetries: deps.config.runner.retries });
  const asked: IssueProgress[] = derived.map((p) => {
    const t = ticketOf(fleet, p.key);
    return {
      ...p,
      ...(t.mergeRequestedBy ? { mergeRequested: true } : {}),
      ...(t.reviewMissing !== undefined ? { reviewMissing: t.reviewMissing } : {}),
    };
  });
  // The PR feedback loop: each ticket PR's CI and writers' reviews, per repository (issue 21).
  // A read refused for an App permission the fleet cannot do without blocks it, as it blocks a blitz
  // (plan/permission-block.ts); the first pass whose reads get through lifts it.
  let lacking: { facts: RepoFacts; permission: AppPermission } | undefined;
  const prFacts = ended
    ? new Map()
    : await gateTicketPulls(deps, hooks, run, repos, rows, attempts, asked, (facts, permission) => {
        lacking ??= { facts, permission };
      });
  // Else a write refused before (a merge), on the repository it was refused on, while it stands.
  const refused = run.progress.refusedWrite;
  const refusedAt = refused?.repo ? await facts(refused.repo).catch(() => own) : own;
  const missingPermission = lacking
    ? await missingPermissionViewOf(lacking.facts.forge, lacking.facts.repo, lacking.permission)
    : await refusedWriteViewOf(refusedAt.forge, refusedAt.repo, refused, deps.clock.now());
  const rowsByKey = new Map(rows.map((r) => [issueKey(r.repo, r.number), r]));
  const progress = withPrFeedback(asked, prFacts, run.progress.prFeedback, {
    attempts,
    rows: rowsByKey,
  });
  const busyFences = await busyWork(deps, run, new Set(repos.keys()), facts);
  const budget = await deps.probe(run.id);
  const now = deps.clock.now().toISOString();
  const snap: RunSnapshot = {
    ...commonSnapshot(
      deps,
      'fleet',
      { maxSessions: options.maxSessions, dryRun: false, maxAttemptsPerIssue: 1 },
      {
        milestone: { title: 'ticket fleet', description: '' },
        // The planner sees only tickets with a row, an attempt, or still open (a closed untouched one is done).
        issues: [...tickets.values()].filter(
          (i) => i.state === 'open' || derived.some((p) => p.key === issueKey(i.repo, i.number)),
        ),
        progress: progress.filter((p) => tickets.has(p.key)),
        budget,
        // Close to the forge's rate limit: fewer sessions; spent, the planner holds new ones (`forgeSpent`).
        machine,
        pace,
      },
    ),
    ...(keptStopCause(run.progress) ? { stopCause: keptStopCause(run.progress) } : {}),
    ...(missingPermission ? { missingPermission } : {}),
    ...(run.progress.hardBlocker ? { keptBlocker: keptBlockerOf(run.progress.hardBlocker) } : {}),
    ...(run.progress.closeFailures ? { closeFailures: run.progress.closeFailures } : {}),
    // An outage parks the fleet (or only the roster entry that met it) as it parks a blitz: no relaunch
    // of every ticket on every pass (plan/park.ts).
    park: parkViewOf(
      { now, policy: deps.config.runner.environmentBackoff },
      run,
      attempts.filter((a) => tickets.has(attemptKey(a))),
      budget,
    ),
    // Named as the planner's issues name their repo (fleetOrder compares the two).
    busyRepos: [...new Set([...tickets.values()].map((i) => i.repo))].filter((r) =>
      busyFences.has(r.toLowerCase()),
    ),
  };
  return {
    run,
    options,
    fleet,
    forge: own.forge,
    repos,
    tickets,
    snap,
    rows: rowsByKey,
    attempts: attempts.filter((a) => tickets.has(attemptKey(a))),
    busyFences,
    lapsedApprovals,
    prFacts,
    ...(pace ? { pace } : {}),
  };
};

/** `gatePullRequests` for each repository the fleet's PRs are in, with that repository's `ci:` settings. */
const gateTicketPulls = async (
  deps: Clock & Log,
  hooks: FleetHooks,
  run: RunRecord,
  repos: ReadonlyMap<string, RepoFacts>,
  rows: readonly RunIssueRecord[],
  attempts: readonly AttemptRecord[],
  progress: readonly IssueProgress[],
  lacking: (facts: RepoFacts, permission: AppPermission) => void,
): Promise<Map<string, PrFacts>> => {
  const out = new Map<string, PrFacts>();
  const rowsByKey = new Map(rows.map((r) => [issueKey(r.repo, r.number), r]));
  for (const f of repos.values()) {
    const name = formatRepo(f.repo);
    const mine = progress.filter(
      (p) => p.pr && !p.pr.merged && p.key.toLowerCase().startsWith(`${name.toLowerCase()}#`),
    );
    if (mine.length === 0) continue;
    const cfg = await loadRepoConfig(f.forge, f.repo);
    const ci = cfg.result.ok ? cfg.result.config.ci : defaultRepoConfig().ci;
    const facts = await gatePullRequests(
      deps,
      {
        forge: f.forge,
        repo: f.repo,
        run,
        attempts,
        rows: rowsByKey,
        ci,
        writer: (login) => hooks.trusted(f.forge, name, login),
        lacking: (permission) => lacking(f, permission),
      },
      mine,
    );
    for (const [k, v] of facts) out.set(k, v);
  }
  return out;
};
