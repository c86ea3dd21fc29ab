// The derived view nextActions works from: the graph, each issue's run progress, and the
// classification that follows from both. Built once per call, in key order, so that the order of
// the snapshot's arrays never matters.
import { AppError } from '../errors.ts';
import type { Classified, RunHoldKind } from './classify.ts';
import { classify } from './classify.ts';
import type { PlanGraph } from './graph.ts';
import { buildGraph, compareKeys } from './graph.ts';
import { type CapCheck, checkCaps, checkRunCost, usageCost } from './issue-caps.ts';
import { isModelFailure } from './routing.ts';
import type { IssueProgress, RunSnapshot } from './snapshot.ts';
import type { RunIssueState } from './states.ts';
import { inFlightIssueStates, integratingIssueStates } from './states.ts';
import { triageTicket } from './triage.ts';
import type { IssueKey } from './types.ts';
import { issueRef, keyOf } from './types.ts';

export interface RunContext {
  snap: RunSnapshot;
  graph: PlanGraph;
  progress: Map<IssueKey, IssueProgress>;
  classified: Classified;
  /** Workers holding a slot, sorted. */
  workers: IssueKey[];
  /** Pushed, PR open or reviewed, not yet merged, sorted. */
  integrating: IssueKey[];
  /** Merged into the integration branch, issue still open, sorted. */
  merged: IssueKey[];
  /** The run's cost cap (`runner.maxCostPerRun`) against what its issues spent; absent without one. */
  runCap?: RunCostCap;
}

export interface RunCostCap extends CapCheck {
  /** The held issue that spent most since its retry: its `/blitz retry` gives that back to the run. */
  retry?: IssueKey;
  /** Retries so far across the run's issues: a new allowance makes a new warning or hold. */
  allowance: number;
  /** Issues the cap holds now (none at 80 %, or when every issue left is running or done). */
  holds: number;
}

export const defaultMaxAttemptsPerIssue = 3;
export const defaultMaxBuildAttempts = 3;

/** `#12` for the sentences about an issue. */
export { issueRef };

/** The issue's spending against the run's per-issue caps; undefined when the run has none. */
export const capCheckOf = (snap: Pick<RunSnapshot, 'issueCaps'>, p: IssueProgress): CapCheck | undefined =>
  snap.issueCaps && p.usage ? checkCaps(p.usage, snap.issueCaps, issueRef(p.key)) : undefined;

/**
 * What the run's issues spent since each one's last retry against `maxRunCost`; `retryable` are the
 * issues a `/blitz retry` can take (held, not running, not done).
 */
const runCostCap = (
  snap: Pick<RunSnapshot, 'issueCaps'>,
  progress: ReadonlyMap<IssueKey, IssueProgress>,
  retryable: (k: IssueKey) => boolean,
): RunCostCap | undefined => {
  const cap = snap.issueCaps?.maxRunCost;
  if (!cap) return undefined;
  const prices = snap.issueCaps?.prices ?? {};
  let used = 0;
  let allowance = 0;
  let retry: { key: IssueKey; micros: number } | undefined;
  for (const [k, p] of progress) {
    const micros = p.usage ? usageCost(p.usage, prices) : 0;
    used += micros;
    allowance += p.countFrom ?? 0;
    if (micros > 0 && retryable(k) && (!retry || micros > retry.micros)) retry = { key: k, micros };
  }
  const check = checkRunCost(used, cap, retry ? issueRef(retry.key) : undefined);
  return { ...check, ...(retry ? { retry: retry.key } : {}), allowance, holds: 0 };
};

const duplicates = (keys: readonly IssueKey[]): IssueKey[] => {
  const seen = new Set<IssueKey>();
  const dup = new Set<IssueKey>();
  for (const k of keys) (seen.has(k) ? dup : seen).add(k);
  return [...dup].sort(compareKeys);
};

const has = (states: readonly RunIssueState[], s: RunIssueState): boolean => states.includes(s);

/** Why an issue is held after its failures: failed attempts, and passes bounced after their work was solved. */
export const gaveUpReason = (max: number, failures: number, bounces: number): string =>
  bounces === 0
    ? `${max} attempts failed; a person has to look`
    : `${max} tries did not land (${[
        failures > 0 ? `${failures} failed` : '',
        `${bounces} bounced after a refused merge or a red build`,
      ]
        .filter(Boolean)
        .join(', ')}); a person has to look`;

export const buildRunContext = (snap: RunSnapshot): RunContext => {
  const graph = buildGraph(snap.issues, snap.external);
  // The graph holds each key once: as many keys as issues means no issue is listed twice.
  const dupIssues = graph.keys.length === snap.issues.length ? [] : duplicates(snap.issues.map(keyOf));
  const dupProgress = duplicates(snap.progress.map((p) => p.key));
  if (dupIssues.length > 0 || dupProgress.length > 0)
    throw new AppError(
      'bad_request',
      `The run snapshot lists an issue twice: ${[...dupIssues, ...dupProgress].join(', ')}.`,
      {
        duplicates: [...dupIssues, ...dupProgress],
      },
    );
  const progress = new Map<IssueKey, IssueProgress>();
  for (const p of [...snap.progress].sort((a, b) => compareKeys(a.key, b.key))) progress.set(p.key, p);

  // `runner.maxAttemptsPerIssue`, where set, is also the failure hold's count (the cap holds first).
  const maxAttempts =
    snap.options.maxAttemptsPerIssue ?? snap.issueCaps?.maxAttempts ?? defaultMaxAttemptsPerIssue;
  const running = new Set<IssueKey>();
  const done = new Set<IssueKey>();
  const runHolds = new Map<IssueKey, { kind: RunHoldKind; reason: string }>();
  const workers: IssueKey[] = [];
  const integrating: IssueKey[] = [];
  const merged: IssueKey[] = [];
  for (const [k, p] of progress) {
    const open = graph.issues.get(k)?.state === 'open';
    const pushedWorker = has(inFlightIssueStates, p.state) && p.branchPushed;
    if (p.state === 'merged' || p.state === 'closed' || p.pr?.merged) {
      done.add(k);
      if (open && p.state !== 'closed') merged.push(k);
    } else if (p.skipped) {
      // Skipped by a person: out of this run like a finished issue, though open on the tracker.
      done.add(k);
    } else if (has(integratingIssueStates, p.state) || pushedWorker) {
      running.add(k);
      integrating.push(k);
    } else if (has(inFlightIssueStates, p.state)) {
      running.add(k);
      workers.push(k);
    } else if (p.state === 'stalled') {
      const refused = p.attempts.at(-1)?.refused;
      runHolds.set(k, {
        kind: 'stalled',
        reason: refused
          ? `its tool refused commands the worker needed; a person has to allow ${refused.join(', ')}`
          : 'its worker stalled and a person has been asked to look',
      });
    } else {
      const cap = capCheckOf(snap, p);
      const failures = p.attempts.slice(p.countFrom ?? 0).filter((a) => isModelFailure(a)).length;
      const bounces = p.bounces ?? 0;
      // Its allowance is spent: no further attempt until a person gives it a new one (`/blitz retry`).
      if (cap?.level === 'over')
        runHolds.set(k, { kind: 'capped', reason: `it reached its per-issue cap (${cap.detail})` });
      else if (failures + bounces >= maxAttempts)
        runHolds.set(k, { kind: 'gave_up', reason: gaveUpReason(maxAttempts, failures, bounces) });
    }
  }
  // The run's own blocker issue (plan/gate-blocker.ts) is for a person: never planned, never dispatched.
  if (snap.gateBlocker?.issue !== undefined) done.add(snap.gateBlocker.issue);
  // The run's cost cap: at it, nothing more starts (a running attempt finishes), each issue held as
  // its own cap holds it, and a retry of one that spent gives its spend back to the run.
  const runCap = runCostCap(snap, progress, (k) => !running.has(k) && !done.has(k));
  if (runCap?.level === 'over')
    for (const k of graph.keys)
      if (!running.has(k) && !done.has(k) && !runHolds.has(k) && graph.issues.get(k)?.state === 'open') {
        runHolds.set(k, { kind: 'capped', reason: `the run reached its cost cap (${runCap.detail})` });
        runCap.holds++;
      }
  if (snap.kind === 'fleet')
    for (const [k, issue] of graph.issues) {
      if (progress.has(k) || runHolds.has(k)) continue;
      const t = triageTicket(issue);
      if (!t.run) runHolds.set(k, { kind: 'triage', reason: `skipped by triage: ${t.reason}` });
    }
  const classified = classify(graph, {
    running,
    done,
    runHolds,
    gate: snap.kind === 'plan' ? 'planning' : 'execution',
  });
  return { snap, graph, progress, classified, workers, integrating, merged, ...(runCap ? { runCap } : {}) };
};
