// Pure: the dashboard's input from what a reconcile read (run, planner snapshot, store rows,
// attempts) and the planner's report actions. Rendering itself is render.ts.

import { attemptCost, defaultPrices, formatCost, type PriceTable, sumCosts } from '../plan/cost.ts';
import { type EntryPark, type EntryParks, entryStateWords } from '../plan/entry-park.ts';
import { isEpic } from '../plan/epics.ts';
import { gateLine } from '../plan/gate-checks.ts';
import { integrationReviewLine } from '../plan/readiness.ts';
import type { Action, IntegrationReviewView, RunSnapshot } from '../plan/snapshot.ts';
import { attentionStateWords } from '../plan/state-words.ts';
import { hasLabel, issueKey, planLabels } from '../plan/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { tellStanding } from '../ship/tell-delivery.ts';
import { attentionOf } from '../status/attention.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { DashboardBlocker, DashboardInput, DashboardIssue, DashboardIssueState } from './types.ts';

/** The key of the issue an attempt worked on. */
const attemptKey = (a: Pick<AttemptRecord, 'issue'>): string =>
  issueKey(`${a.issue.repo.owner}/${a.issue.repo.name}`, a.issue.number);

const numberOf = (key: string): number => Number(key.slice(key.lastIndexOf('#') + 1));

export const dashboardView = (input: {
  run: RunRecord;
  snap: RunSnapshot;
  attempts: readonly AttemptRecord[];
  actions: readonly Action[];
  /** Issues of the run the tracker shows closed now (they left the open list). */
  closed: { number: number; title: string }[];
  reviewAvailable: boolean;
  /** Issues whose approval lapsed (edited after a writer approved them). */
  lapsedApprovals: ReadonlySet<string>;
  /** Plan-blitz: the line naming M/L issues held until their plan is approved. */
  unplanned?: string;
  /** The integration review as the run stands; absent when no review module is wired. */
  integrationReview?: IntegrationReviewView;
  /** What prices the attempts (plan/cost.ts); default the built-in table. */
  prices?: PriceTable;
}): DashboardInput => {
  const { run, snap } = input;
  const prices = input.prices ?? defaultPrices;
  const costOf = (attempts: readonly AttemptRecord[]) =>
    formatCost(sumCosts(attempts.map((a) => attemptCost(prices, a))));
  const progress = new Map(snap.progress.map((p) => [p.key, p]));
  // The planner's issue notices that name a state for the dashboard (a per-issue cap held or near).
  const notes = input.actions.flatMap((a) => (a.type === 'issue_notice' && a.dashboard ? [a] : []));
  const heldByPlanner = new Map(notes.filter((n) => n.dashboard === 'held').map((n) => [n.issue, n.message]));
  // Issues the planner holds for a person this pass (its `failed` / `needs_person` notices, level-triggered).
  const forPerson = new Set(
    input.actions.flatMap((a) =>
      a.type === 'issue_notice' && a.issue && (a.event === 'failed' || a.event === 'needs_person')
        ? [a.issue]
        : [],
    ),
  );
  const byIssue = new Map<string, AttemptRecord[]>();
  for (const a of input.attempts) byIssue.set(attemptKey(a), [...(byIssue.get(attemptKey(a)) ?? []), a]);
  const inRun = new Set(snap.issues.map((i) => issueKey(i.repo, i.number)));
  const externalState = new Map(snap.external.map((b) => [b.key, b.state]));
  const rows: DashboardIssue[] = [];
  const awaiting: DashboardInput['awaitingApproval'] = [];
  for (const i of snap.issues) {
    const key = issueKey(i.repo, i.number);
    const p = progress.get(key);
    const attempts = byIssue.get(key) ?? [];
    const latest = attempts[attempts.length - 1];
    const epic = isEpic(i, i.children.length);
    const untrusted = !i.authorTrusted && !hasLabel(i, planLabels.approved);
    if (untrusted)
      awaiting.push({
        number: i.number,
        title: i.title,
        ...(input.lapsedApprovals.has(key) ? { lapsed: true } : {}),
      });
    const blockers = i.blockedBy.filter((b) => inRun.has(b) || b.startsWith(`${run.repo}#`)).map(numberOf);
    const open = i.blockedBy.some((b) => inRun.has(b) || externalState.get(b) !== 'closed');
    const state: DashboardIssueState = heldByPlanner.has(key)
      ? 'held'
      : (p?.state ??
        (untrusted || i.labels.some((l) => l.name === 'hold') ? 'held' : open ? 'blocked' : 'ready'));
    const tokens = attempts.reduce((n, a) => n + a.tokens.input + a.tokens.output, 0);
    // Told messages that no session has heard (src/ship/tell-delivery.ts): never dropped silently.
    const waiting = tellStanding(run.progress.prFeedback?.[key]?.tells, attempts);
    const messagesWaiting = waiting.waiting.length + waiting.inFlight.length;
    rows.push({
      number: i.number,
      title: i.title,
      state: epic && state === 'ready' ? 'blocked' : state,
      ...(epic ? { epic } : {}),
      ...(p?.skipped ? { skipped: true as const } : {}),
      ...(forPerson.has(key) && !p?.skipped ? { needsPerson: true as const } : {}),
      ...(latest
        ? { rosterEntry: latest.rosterEntry, ...(latest.model ? { model: latest.model } : {}) }
        : {}),
      ...(p?.pr ? { prNumber: p.pr.number } : {}),
      attempts: attempts.length,
      ...(tokens > 0 ? { tokens } : {}),
      ...(attempts.length > 0 ? { cost: costOf(attempts) } : {}),
      blockedBy: blockers,
      ...(messagesWaiting > 0 ? { messagesWaiting } : {}),
      ...(p?.conflictResumes ? { conflictTries: p.conflictResumes } : {}),
      ...(p?.state === 'stalled' && p.attempts.at(-1)?.refused
        ? { refused: p.attempts.at(-1)?.refused }
        : {}),
    });
  }
  for (const c of input.closed) {
    const attempts = byIssue.get(issueKey(run.repo, c.number)) ?? [];
    const p = progress.get(issueKey(run.repo, c.number));
    rows.push({
      number: c.number,
      title: c.title,
      state: 'closed',
      ...(attempts.length === 0 ? { epic: true } : {}),
      attempts: attempts.length,
      ...(p?.pr ? { prNumber: p.pr.number } : {}),
      ...(attempts.at(-1) ? { rosterEntry: attempts.at(-1)!.rosterEntry } : {}),
      ...(p?.conflictResumes ? { conflictTries: p.conflictResumes } : {}),
      blockedBy: [],
    });
  }
  const blockers: DashboardBlocker[] = [];
  for (const a of input.actions) {
    if (a.type === 'report_cycle') blockers.push({ kind: 'cycle', issues: a.members.map(numberOf) });
    if (a.type === 'report_unknown_blocker')
      for (const by of a.namedBy)
        blockers.push({ kind: 'unknown_blocker', issue: numberOf(by), blocker: a.blocker });
  }
  const pr = run.progress;
  const budget = pr.budget;
  const readinessUnmet: string[] = input.unplanned ? [input.unplanned] : [];
  if (!input.reviewAvailable)
    readinessUnmet.push(
      'review legs: not available (no review module wired); PRs are merged without a review comment',
    );
  else if (pr.reviewUnavailable)
    readinessUnmet.push(
      'review legs: at least one PR got no review (its review leg kept failing); it merges without one',
    );
  if (pr.build?.status === 'failed') readinessUnmet.push(`build failed on ${run.integrationBranch}`);
  const review = integrationReviewLine(input.integrationReview);
  if (review) readinessUnmet.push(review);
  // A check with no command is said to be so, never counted as green (plan/gate-checks.ts).
  const checks =
    snap.kind === 'blitz'
      ? {
          build: {
            status: snap.build.status,
            configured: snap.buildConfigured !== false,
            ...(snap.build.sha ? { sha: snap.build.sha } : {}),
          },
          smoke: {
            status: snap.smoke,
            configured: snap.smokeGate?.configured !== false,
            ...(snap.smokeGate?.sha ? { sha: snap.smokeGate.sha } : {}),
          },
        }
      : undefined;
  if (checks && !checks.build.configured) readinessUnmet.push(gateLine('build', checks.build));
  if (checks && !checks.smoke.configured) readinessUnmet.push(gateLine('smoke', checks.smoke));
  if (snap.smokeGate && snap.smokeGate.failures > 0)
    readinessUnmet.push(
      `smoke: red ${snap.smokeGate.failures} time(s) in a row (allowance ${snap.smokeGate.maxFailures}); each red pass is filed as a finding and worked`,
    );
  // An issue the planner holds says why, in its own sentence (with the command that continues).
  for (const message of heldByPlanner.values()) readinessUnmet.push(message);
  // The named state the run waits in, its reason and what to type (as the status page says it).
  const waiting = attentionOf(run, rows);
  if (waiting)
    readinessUnmet.push(
      `waiting for a person (${attentionStateWords(waiting.state)}): ${waiting.reason} → ${waiting.command}`,
    );
  // A finished run is finished: nothing on it is "not ready yet"; what ran is in `checks`.
  const finished = run.state === 'done' || run.state === 'cancelled';
  const ran = checks && (pr.build !== undefined || finished) ? { checks } : {};
  // Planner warnings, then the remote runners lost while they held this run's work.
  const warnings = [
    ...notes.filter((n) => n.dashboard === 'warning').map((n) => n.message),
    ...(pr.lostRunners ?? []).map((l) => l.sentence),
  ];
  const entries = entryStates(snap, pr.entryParks);
  return {
    runId: run.id,
    milestone: run.milestoneTitle,
    runState: run.state,
    wave: (pr.wave ?? 0) + 1,
    integrationBranch: run.integrationBranch,
    issues: rows.sort((a, b) => a.number - b.number),
    ...(input.attempts.length > 0 ? { cost: costOf(input.attempts) } : {}),
    awaitingApproval: awaiting,
    blockers,
    ...(budget ? { budget } : {}),
    notifyFailures: pr.notifyFailures ?? [],
    readinessUnmet: finished ? [] : readinessUnmet,
    ...ran,
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(entries ? { entries } : {}),
    ...(pr.ship?.path && pr.ship.status === 'passed'
      ? {
          ship: {
            path: pr.ship.path,
            ...(pr.ship.url ? { url: pr.ship.url } : {}),
            ...(pr.ship.unchecked ? { unchecked: pr.ship.unchecked } : {}),
            ...(pr.ship.pr ? { pr: pr.ship.pr } : {}),
            reasons: pr.ship.reasons ?? [],
          },
        }
      : {}),
  };
};

/**
 * The author entries of the run's kind with their state, when there is more than one (failover is
 * possible) or one is parked; undefined otherwise (a one-entry roster's dashboard says nothing more).
 */
const entryStates = (
  snap: Pick<RunSnapshot, 'kind' | 'roster'>,
  parks: EntryParks | undefined,
): { name: string; state: string }[] | undefined => {
  const role = snap.kind;
  // A snapshot made without a roster (a status read, a test) shows no entries.
  const authors = (snap.roster ?? []).filter((e) => e.roles.includes(role));
  const byEntry = new Map<string, EntryPark>();
  for (const park of Object.values(parks ?? {})) for (const name of park.entries) byEntry.set(name, park);
  if (authors.length < 2 && byEntry.size === 0) return undefined;
  const names = [...new Set([...authors.map((e) => e.name), ...byEntry.keys()])];
  return names.map((name) => ({ name, state: entryStateWords(byEntry.get(name)) }));
};
