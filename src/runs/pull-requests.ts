// The one way a worker's pushed branch becomes a PR, for every run kind: the PR this run already
// knows by number (it may be merged and closed by now), else the open one with that head, else a new
// one titled after the issue; then the issue's row records it. And the one way a run merges a PR
// (mergeStep).

import { mkdir } from 'node:fs/promises';
import { isAppError } from '../errors.ts';
import {
  type Forge,
  formatRepo,
  type MergeMethod,
  type OpenedPullRequest,
  type ProgressReport,
  type PullRequest,
  type RepoRef,
} from '../forges/types.ts';
import { type MergeRefusal, refusalOf } from '../plan/merge-conflict.ts';
import { type IssueKey, refOf } from '../plan/types.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import { remoteBranchSha } from '../runner/git.ts';
import type { AttemptRecord } from '../runner/types.ts';
import { cloneUrlOf } from '../runner/worker-clone.ts';
import type { RunIssueRecord, RunStore } from '../store/run-store.ts';
import type { Log, Settings, Workers } from './ports.ts';
import { writeOutcome } from './run-writer.ts';

export interface PrOrder {
  runId: string;
  issue: IssueKey;
  /** The issue's title now (the attempt's job carries the one it was dispatched with). */
  title: string | undefined;
  forge: Forge;
  repo: RepoRef;
  base: string;
  solved: AttemptRecord;
  body: string;
  /** The PR number the run recorded earlier, if any. */
  known?: number | undefined;
  /** Where the PR goes: the run's integration branch, or the default branch (a plan run's XS ships). */
  lane: 'integration' | 'xs';
  /** The issue's row as the run read it (the fold decides its state from it), if it has one. */
  row?: Pick<RunIssueRecord, 'state'> | undefined;
  /** The bot's first report on the head, sent with the open where the forge can (`opensWithProgress`). */
  progress?: { sha: string; report: ProgressReport } | undefined;
}

/**
 * The worker branch's tip on the forge as the bot's own `git ls-remote` sees it (never what a runner
 * or a worker reports); undefined when git cannot tell (the caller reports apart from the open).
 */
export const pushedHead = async (
  deps: Workers & Log & Settings,
  at: { forge: Forge; repo: RepoRef; branch: string },
): Promise<string | undefined> => {
  try {
    const url = await cloneUrlOf(deps, at.forge, at.repo);
    const ctx = await deps.runner.gitContext(at.repo);
    const cwd = deps.config.runner.workspace;
    await mkdir(cwd, { recursive: true });
    return (await remoteBranchSha(cwd, at.branch, ctx, url)) ?? undefined;
  } catch (err) {
    deps.logger.warn({ repo: formatRepo(at.repo), branch: at.branch, err }, 'the pushed head was not read');
    return undefined;
  }
};

export const openPr = async (
  deps: { store: Pick<RunStore, 'upsertRunIssue'> },
  o: PrOrder,
): Promise<{ pr: OpenedPullRequest; row: RunIssueRecord }> => {
  const ref = refOf(o.issue);
  // Not known: opened at once; the forge answers with the open PR from that head if there is one.
  const found =
    o.known !== undefined ? await o.forge.getPullRequest({ repo: o.repo, number: o.known }) : undefined;
  const pr =
    found ??
    (await o.forge.openPullRequest(
      o.repo,
      {
        head: o.solved.branch,
        base: o.base,
        title: `#${ref.number}: ${o.title ?? o.solved.job.title}`,
        body: o.body,
      },
      o.progress ? { progress: o.progress } : undefined,
    ));
  const at = { repo: formatRepo(ref.repo), number: ref.number };
  const row = await writeOutcome(deps.store, o.runId, at, o.row, {
    kind: 'prOpened',
    number: pr.ref.number,
    branch: o.solved.branch,
    lane: o.lane,
  });
  return { pr, row };
};

/** A merge's answer: merged (at this sha when the forge said), or refused, with the PR read after. */
export type MergeAnswer =
  | { kind: 'merged'; sha?: string }
  | { kind: 'mergeRefused'; refusal: MergeRefusal; why: string; now: PullRequest };

/**
 * The one merge step of every run kind: the PR merged at the head it was read with, unless it is
 * merged already. A PR the forge will not merge now (unmergeable, conflicting, its head or base
 * moved) is read again and comes back refused with the forge's reason, never as a throw. Each run
 * kind decides what the answer means.
 */
export const mergeStep = async (
  forge: Pick<Forge, 'mergePullRequest' | 'getPullRequest'>,
  pr: PullRequest,
  o: {
    method: MergeMethod;
    title: string;
    readBack?: boolean;
    /** The bot's report on the head, written with the merge (a forge with `mergesWithProgress`). */
    progress?: { sha: string; report: ProgressReport };
  },
): Promise<MergeAnswer> => {
  const merged = (sha: string | undefined): MergeAnswer => ({
    kind: 'merged',
    ...(sha !== undefined ? { sha } : {}),
  });
  if (pr.merged) return merged(pr.mergeCommitSha);
  try {
    const opts = {
      method: o.method,
      expectedHeadSha: pr.head.sha,
      title: o.title,
      ...(o.readBack === false ? { readBack: false } : {}),
      ...(o.progress ? { progress: o.progress } : {}),
    };
    return merged((await forge.mergePullRequest(pr.ref, opts)).sha);
  } catch (err) {
    // `conflict`: the head moved since it was read; `unmergeable`: the forge will not merge it as it is.
    const code = isAppError(err, 'unmergeable')
      ? 'unmergeable'
      : isAppError(err, 'conflict')
        ? 'conflict'
        : undefined;
    if (!code || !isAppError(err)) throw err;
    const now = await forge.getPullRequest(pr.ref);
    return { kind: 'mergeRefused', refusal: refusalOf(code, err.message, now), why: err.message, now };
  }
};

/** After a merge the attempt's worktree and the merged branch go; a failure only leaves them behind. */
export const cleanUpMerged = async (
  deps: Workers & Log,
  forge: Pick<Forge, 'deleteBranch'>,
  o: { repo: RepoRef; pr: PullRequest; attempt: AttemptRecord | undefined; log: Record<string, unknown> },
): Promise<void> => {
  const { repo, pr, attempt } = o;
  try {
    const job = {
      kind: 'cleanup' as const,
      repo,
      mergedInto: pr.base.ref,
      attemptIds: [],
      mergedHeads: [pr.head.sha],
    };
    if (attempt) await onAttemptHost(deps, job, [attempt]);
    await forge.deleteBranch(repo, pr.head.ref);
  } catch (err) {
    deps.logger.warn({ ...o.log, err }, 'merged branch not cleaned up');
  }
};
