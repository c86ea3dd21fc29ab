// Pure: what the store and the attempt ledger say about each issue of a run, turned into the
// planner's IssueProgress. State is derived from facts (a PR number, a merge sha, the latest
// attempt's outcome), never kept as an edge-triggered flag, so a restart or a replayed event lands
// in the same place.
import type { BaseChange, BaseChangeView } from './base-change.ts';
import { type ChargeableAttempt, issueUsage } from './issue-caps.ts';
import type { AttemptRecord as PlanAttempt } from './routing.ts';
import type { IssueProgress } from './snapshot.ts';
import type { RunIssueState } from './states.ts';
import type { Tier } from './tier.ts';
import { type IssueKey, issueKey } from './types.ts';

/** What the planner reads of one attempt in the ledger (runner/types.ts `AttemptRecord` is one). */
export interface LedgerAttempt extends ChargeableAttempt {
  id: string;
  issue: { repo: { owner: string; name: string }; number: number };
  rosterEntry: string;
  tier: Tier;
  /** `retry`: the runner's own retry number of the attempt (0: the first try). */
  job: { retry: number };
  /** Calls the tool refused, with the allowlist rule that would let each run. */
  permissionDenials?: readonly { tool: string; rule?: string }[];
}

/** What the planner reads of an issue's row in the run (store/run-store.ts `RunIssueRecord` is one). */
export interface RunIssueRow {
  repo: string;
  number: number;
  state?: string;
  prNumber?: number;
  mergedSha?: string;
  reviewPosted?: boolean;
  skipped?: boolean;
  /** Attempts up to this id belong to an earlier pass (a bounce or a new phase). */
  bouncedAfter?: string;
  /** A person's retry: failures count after this attempt id (`-`: from the start). */
  retriedAfter?: string;
  /** Merge conflicts sent back to this pass's session (plan/merge-conflict.ts). */
  conflictResumes?: number;
}

type AttemptRecord = LedgerAttempt;
type RunIssueRecord = RunIssueRow;

export const attemptKey = (a: Pick<LedgerAttempt, 'issue'>): string =>
  issueKey(`${a.issue.repo.owner}/${a.issue.repo.name}`, a.issue.number);

/**
 * Attempts of one issue that count for its current pass (those recorded after a bounce), in ledger
 * order (the order they were recorded: both ledgers keep it, whatever the clocks said).
 */
export const currentAttempts = <A extends { id: string }>(
  attempts: readonly A[],
  row: Pick<RunIssueRow, 'bouncedAfter'> | undefined,
): A[] => {
  if (row?.bouncedAfter === undefined) return [...attempts];
  const at = attempts.findIndex((a) => a.id === row.bouncedAfter);
  return attempts.slice(at + 1);
};

/** The attempts of one issue of a pass that count now (its current pass or phase). */
export const issueAttempts = <A extends LedgerAttempt>(
  ctx: { attempts: readonly A[]; rows: ReadonlyMap<string, Pick<RunIssueRow, 'bouncedAfter'>> },
  key: string,
): A[] =>
  currentAttempts(
    ctx.attempts.filter((a) => attemptKey(a) === key),
    ctx.rows.get(key),
  );

/** The attempts after `id` (a retry's mark); all of them when `id` is not among them (`-`: none yet). */
const after = (attempts: readonly AttemptRecord[], id: string | undefined): AttemptRecord[] => {
  const at = id === undefined ? -1 : attempts.findIndex((a) => a.id === id);
  return attempts.slice(at + 1);
};

/** The attempt a worker is on now, if any: no outcome yet. */
export const liveAttempt = <A extends { outcome?: unknown }>(attempts: readonly A[]): A | undefined =>
  attempts.find((a) => a.outcome === undefined);

export interface ProgressInput {
  rows: readonly RunIssueRecord[];
  attempts: readonly AttemptRecord[];
  /** Keys of the issues the tracker still shows open. */
  open: ReadonlySet<string>;
  /** The runner retries an unsolved attempt by itself this many times: such an issue is still working. */
  runnerRetries: number;
}

const stateOf = (
  row: RunIssueRecord | undefined,
  current: AttemptRecord[],
  input: ProgressInput,
  key: string,
): RunIssueState | undefined => {
  if (row?.mergedSha !== undefined) return input.open.has(key) ? 'merged' : 'closed';
  if (row?.prNumber !== undefined) return row.reviewPosted ? 'reviewed' : 'pr_open';
  const latest = current[current.length - 1];
  // A person's retry (or unhold) starts the issue afresh: ready for a new attempt until one starts.
  if (row?.retriedAfter !== undefined && after(current, row.retriedAfter).length === 0)
    return latest?.outcome === undefined && latest !== undefined ? 'working' : 'ready';
  if (latest) {
    if (latest.outcome === undefined) return 'working';
    if (latest.outcome === 'solved') return 'pushed';
    if (latest.outcome === 'stalled') return 'stalled';
    if (latest.outcome === 'unsolved' && latest.job.retry < input.runnerRetries) return 'working';
    return 'failed';
  }
  if (row?.bouncedAfter !== undefined) return 'bounced';
  if (row?.state === 'dispatched') return 'dispatched';
  // An epic the run closed: no attempt, no PR, only the row.
  if (row?.state === 'closed') return 'closed';
  // Skipped before it ever ran: the row says so, and the planner leaves it out.
  if (row?.skipped) return 'ready';
  return undefined;
};

/**
 * Passes that ended in a bounce, among `counted` (the attempts since the person's last retry): the
 * solved sessions up to the row's `bouncedAfter`. A pass's solved work is one session (a feedback
 * resume continues it), and a pass only ends early in a bounce, so each session there is one bounce.
 */
const bouncesOf = (counted: readonly AttemptRecord[], row: RunIssueRecord | undefined): number => {
  if (row?.bouncedAfter === undefined) return 0;
  const end = counted.findIndex((a) => a.id === row.bouncedAfter);
  const sessions = new Set(
    counted
      .slice(0, end + 1)
      .filter((a) => a.outcome === 'solved')
      .map((a) => a.sessionId ?? a.id),
  );
  return sessions.size;
};

/**
 * The allowlist rules a stalled attempt was stopped for (the tool refused commands it needed), or
 * undefined when its end was not a refusal.
 */
const refusedRules = (a: AttemptRecord): string[] | undefined =>
  a.outcome === 'stalled' && a.permissionDenials?.length
    ? a.permissionDenials.map((d) => d.rule ?? d.tool)
    : undefined;

export const deriveProgress = (input: ProgressInput): IssueProgress[] => {
  const byKey = new Map<string, AttemptRecord[]>();
  for (const a of input.attempts) {
    const k = attemptKey(a);
    byKey.set(k, [...(byKey.get(k) ?? []), a]);
  }
  const rows = new Map(input.rows.map((r) => [issueKey(r.repo, r.number), r]));
  const keys = new Set([...rows.keys(), ...byKey.keys()]);
  const out: IssueProgress[] = [];
  for (const key of [...keys].sort()) {
    const row = rows.get(key);
    const all = byKey.get(key) ?? [];
    const current = currentAttempts(all, row);
    const state = stateOf(row, current, input, key);
    if (state === undefined) continue;
    const history: PlanAttempt[] = all.map((a) => ({
      entry: a.rosterEntry,
      tier: a.tier,
      ...(a.outcome ? { outcome: a.outcome } : {}),
      ...(refusedRules(a) ? { refused: refusedRules(a) } : {}),
    }));
    // Failures count from the person's last retry on (issue-caps and the 3-failure hold alike).
    const retriedAt = row?.retriedAfter === undefined ? -1 : all.findIndex((a) => a.id === row.retriedAfter);
    const bounces = bouncesOf(all.slice(retriedAt + 1), row);
    out.push({
      key,
      state,
      attempts: history,
      ...(retriedAt >= 0 ? { countFrom: retriedAt + 1 } : {}),
      ...(bounces > 0 ? { bounces } : {}),
      ...(row?.conflictResumes ? { conflictResumes: row.conflictResumes } : {}),
      usage: issueUsage(all.slice(retriedAt + 1)),
      ...(row?.skipped ? { skipped: true } : {}),
      branchPushed: current[current.length - 1]?.outcome === 'solved',
      ...(row?.prNumber !== undefined
        ? { pr: { number: row.prNumber, merged: row.mergedSha !== undefined } }
        : {}),
      reviewPosted: row?.reviewPosted ?? false,
    });
  }
  return out;
};

/**
 * What the planner sees of a run's issues: an issue that left the milestone or was closed by hand
 * while a worker was on it is no longer the run's business, so only open issues and finished ones
 * count; a worker still on such an issue is `abandoned` and is stopped (issue 18), not left to push.
 */
export const inRunScope = (
  derived: readonly IssueProgress[],
  open: ReadonlySet<string>,
): { progress: IssueProgress[]; abandoned: string[] } => ({
  progress: derived.filter((p) => open.has(p.key) || p.state === 'closed'),
  abandoned: derived.filter((p) => !open.has(p.key) && p.state === 'working').map((p) => p.key),
});

/** The planner's view of the merges under work in progress: the kept merges, what each issue was compared with, when its work began. */
export const baseChangeViewOf = (
  progress: {
    baseChanges?: readonly BaseChange[];
    baseChecked?: Readonly<Record<IssueKey, readonly string[]>>;
  },
  ctx: {
    attempts: readonly (LedgerAttempt & { launchedAt: string })[];
    rows: ReadonlyMap<string, Pick<RunIssueRow, 'bouncedAfter'>>;
  },
  keys: readonly IssueKey[],
): BaseChangeView | undefined => {
  if (!progress.baseChanges?.length) return undefined;
  const since: Record<IssueKey, string> = {};
  for (const k of keys) {
    const first = issueAttempts(ctx, k)[0];
    if (first) since[k] = first.launchedAt;
  }
  return { changes: progress.baseChanges, checked: progress.baseChecked ?? {}, since };
};
