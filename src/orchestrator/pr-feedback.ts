// The PR feedback loop's effects for one worker PR (blitz or fleet), over what ship/pr-feedback-forge.ts
// read and gated: resume the worker's own session with the feedback (CI failures with their log tails,
// a writer's comments, `/blitz tell` messages), put the queued `blitz` check on a new PR, and keep the
// loop's state in the run's progress (`prFeedback`), written only through run-writer.
import type { RepoConfig } from '../config/repo-config.ts';
import type { Forge, ProgressReport, RepoRef, ReportedInstead } from '../forges/types.ts';
import { createRedactor } from '../observability/redact.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import type { FeedbackReason } from '../runner/prompt.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { Clock, Log, Records, Settings, Workers } from '../runs/ports.ts';
import { writeProgress } from '../runs/run-writer.ts';
import { type CiVerdict, ciVerdict, describeCiVerdict } from '../ship/ci-verdict.ts';
import { buildCiFixReason, tellSection } from '../ship/feedback-prompt.ts';
import type { PrFacts } from '../ship/pr-facts.ts';
import {
  emptyFeedbackState,
  neverReported,
  ownCheckName,
  reportPrProgress,
} from '../ship/pr-feedback-forge.ts';
import type { FeedbackPart } from '../ship/pr-gate.ts';
import { queuedReport } from '../ship/pr-progress.ts';
import { runPageUrl } from '../ship/run-notices.ts';
import { tellStanding } from '../ship/tell-delivery.ts';
import type { PrFeedbackState, RunProgress } from '../store/run-store.ts';

const logTailBytes = 8000;

const reasonOf: Record<FeedbackPart, FeedbackReason> = { ci: 'ci_failed', review: 'review', tell: 'tell' };

export interface FeedbackTarget {
  forge: Forge;
  repo: RepoRef;
  pr: number;
  branch: string;
  attempt: AttemptRecord;
  maxFixAttempts: number;
  /** The branch the PR merges into: a resume that tells the session it moved merges it in first. */
  base?: string;
}

/**
 * Builds the resume text for the decision's parts and resumes the attempt's session where its worktree
 * is. Returns the state to keep (fix attempt spent, feedback marked as heard, the resume asked).
 */
export const resumeWithFeedback = async (
  deps: Workers,
  target: FeedbackTarget,
  facts: PrFacts,
  parts: FeedbackPart[],
): Promise<PrFeedbackState> => {
  const redact = createRedactor([]);
  const sections: string[] = [];
  let state = facts.state;
  if (parts.includes('ci') && facts.ci.kind === 'red') {
    const logs = new Map<string, string>();
    for (const c of facts.ci.failing)
      if (c.actionsJobId !== undefined && target.forge.jobLogTail) {
        const tail = await target.forge
          .jobLogTail(target.repo, c.actionsJobId, logTailBytes)
          .catch(() => undefined);
        if (tail) logs.set(c.externalId, tail);
      }
    sections.push(
      buildCiFixReason({
        failing: facts.ci.failing,
        logs,
        branch: target.branch,
        attempt: state.fixAttempts + 1,
        maxAttempts: target.maxFixAttempts,
        redact,
      }),
    );
    state = { ...state, fixAttempts: state.fixAttempts + 1 };
  }
  let commentIds: number[] = [];
  if (parts.includes('review') && facts.feedback) {
    sections.push(facts.feedback.text);
    commentIds = facts.feedback.commentIds;
    state = { ...state, reviewSince: facts.feedback.latestAt ?? state.reviewSince };
  }
  const waiting = tellStanding(state.tells, [target.attempt]).waiting;
  // The integration branch moved under the session (plan/base-change.ts): the runner merges it in first.
  const mergeBase =
    parts.includes('tell') && waiting.some((t) => t.kind === 'base_change') ? target.base : undefined;
  if (parts.includes('tell') && waiting.length > 0) {
    sections.push(tellSection(waiting));
    // Delivered ones go too: the session heard them.
    state = { ...state, tells: [] };
  }
  const reason = reasonOf[parts[0] ?? 'tell'];
  await onAttemptHost(
    deps,
    {
      kind: 'resume',
      attemptId: target.attempt.id,
      reason,
      conflictFiles: [],
      feedback: sections.join('\n\n'),
      ...(mergeBase ? { mergeBase } : {}),
    },
    [target.attempt],
  );
  return {
    ...state,
    asked: {
      attemptId: target.attempt.id,
      resumes: target.attempt.feedbackResumes ?? 0,
      head: facts.head,
      commentIds,
    },
  };
};

/**
 * Puts the queued `blitz` check on a PR the bot just opened (a failure to report is logged: the PR
 * stands, and the loop reports again on its next read).
 */
export const reportQueued = async (
  deps: Records & Log & Settings,
  target: { forge: Forge; repo: RepoRef; runId: string; key: string; head: string; sent?: boolean },
): Promise<void> => {
  try {
    const run = await deps.store.getRun(target.runId);
    const kept = run?.progress.prFeedback?.[target.key] ?? emptyFeedbackState();
    const reported = await reportPrProgress(
      { ...target, instead: keepReportedInstead(deps, target.runId) },
      { head: target.head, state: kept },
      queuedReport(runPageUrl(deps.config.publicUrl, target.runId)),
      // `sent`: the open carried this report already; only the state is kept.
      { first: neverReported(kept), sent: target.sent === true },
    );
    if (reported) await keepFeedbackState(deps, target.runId, target.key, reported, kept);
  } catch (err) {
    deps.logger.warn(
      { runId: target.runId, issue: target.key, err },
      'the blitz check could not be put on the PR',
    );
  }
};

/** The review leg's verdict on a worker PR, kept for the `blitz` check's summary. */
export const keepReviewVerdict = async (
  deps: Records,
  runId: string,
  key: string,
  verdict: string,
): Promise<void> => {
  await writeProgress(deps.store, runId, (p) => {
    const state = p.prFeedback?.[key] ?? emptyFeedbackState();
    if (state.reviewVerdict === verdict) return undefined;
    return { prFeedback: { ...p.prFeedback, [key]: { ...state, reviewVerdict: verdict } } };
  });
};

/**
 * One more review leg on PR `pr` produced no review: answers how many have on that PR (a new PR, after a
 * bounce, counts afresh). Blitz and fleet keep the count here alike.
 */
export const countReviewLegFailure = async (
  deps: Records,
  runId: string,
  key: string,
  pr: number,
): Promise<number> => {
  let count = 0;
  await writeProgress(deps.store, runId, (p) => {
    const state = p.prFeedback?.[key] ?? emptyFeedbackState();
    const kept = state.reviewLegFailures;
    count = (kept?.pr === pr ? kept.count : 0) + 1;
    return { prFeedback: { ...p.prFeedback, [key]: { ...state, reviewLegFailures: { pr, count } } } };
  });
  return count;
};

/**
 * Keeps on the run whether the bot's reports go as commit statuses (the planner says so once): set when a
 * report went that way, cleared when one went as a check run again (the permission was accepted).
 */
export const keepReportedInstead =
  (deps: Records, runId: string) =>
  async (r: ReportedInstead | undefined): Promise<void> => {
    await writeProgress(deps.store, runId, (p) => {
      const kept = p.reportedInstead;
      if (!r) return kept ? { reportedInstead: undefined } : undefined;
      return JSON.stringify(kept) === JSON.stringify({ as: r.as, lacking: r.lacking })
        ? undefined
        : { reportedInstead: { as: r.as, lacking: r.lacking } };
    });
  };

/**
 * Keeps one issue's feedback state in the run's progress (only when it changed). `/blitz tell` and the
 * tell nudge write its messages meanwhile, and the review leg its verdict and failures: theirs are kept,
 * less the messages this state dropped against `loaded` (the state it started from) because a resume
 * carried them.
 */
export const keepFeedbackState = async (
  deps: Records,
  runId: string,
  key: string,
  state: PrFeedbackState,
  loaded?: PrFeedbackState,
): Promise<RunProgress> =>
  (
    await writeProgress(deps.store, runId, (p) => {
      const fresh = p.prFeedback?.[key];
      const kept = new Set((state.tells ?? []).map((t) => t.id));
      const dropped = new Set((loaded?.tells ?? []).filter((t) => !kept.has(t.id)).map((t) => t.id));
      const tells = ((fresh ? fresh.tells : state.tells) ?? []).filter((t) => !dropped.has(t.id));
      const { tells: _t, reviewVerdict: _v, reviewLegFailures: _f, ...rest } = state;
      const verdict = fresh?.reviewVerdict ?? state.reviewVerdict;
      const failures = fresh?.reviewLegFailures ?? state.reviewLegFailures;
      const next: PrFeedbackState = {
        ...rest,
        ...(tells.length > 0 ? { tells } : {}),
        ...(verdict !== undefined ? { reviewVerdict: verdict } : {}),
        ...(failures !== undefined ? { reviewLegFailures: failures } : {}),
      };
      return JSON.stringify(fresh) === JSON.stringify(next)
        ? undefined
        : { prFeedback: { ...p.prFeedback, [key]: next } };
    })
  ).progress;

/** `/blitz retry` on a PR the loop held: the hold is lifted and the CI fix attempts count afresh. */
export const releasePrHold = async (deps: Records, runId: string, key: string): Promise<void> => {
  await writeProgress(deps.store, runId, (p) => {
    const state = p.prFeedback?.[key];
    if (state?.held === undefined) return undefined;
    const { held: _held, reported: _reported, ...rest } = state;
    return { prFeedback: { ...p.prFeedback, [key]: { ...rest, fixAttempts: 0 } } };
  });
};

/** The key of the milestone PR's feedback state (its head and when first seen), beside the issues'. */
export const milestonePrKey = 'milestone-pr';

/**
 * The milestone PR's own CI before the deploy path merges it (the same `ci:` settings and verdict as
 * a worker PR's), and the bot's `blitz` check on its head carrying the readiness result.
 */
export const milestonePrCi = async (
  deps: Records & Clock,
  target: { forge: Forge; repo: RepoRef; runId: string; state: PrFeedbackState | undefined },
  head: string,
  ci: RepoConfig['ci'],
  readiness: ProgressReport,
): Promise<CiVerdict> => {
  const now = deps.clock.now();
  const kept = target.state ?? emptyFeedbackState();
  const state: PrFeedbackState =
    kept.head?.sha === head ? kept : { ...kept, head: { sha: head, seenAt: now.toISOString() } };
  const verdict =
    target.forge.listChecks === undefined
      ? ({ kind: 'no_ci', reason: 'never' } as const)
      : ciVerdict({
          checks: await target.forge.listChecks(target.repo, head),
          ci,
          pushedAt: Date.parse(state.head!.seenAt),
          now: now.getTime(),
          ownReporters: [target.forge.botLogin],
          ownCheckName,
        });
  const reported = await reportPrProgress(
    { ...target, instead: keepReportedInstead(deps, target.runId) },
    { head, state },
    {
      ...readiness,
      summary: `${readiness.summary}\n- CI: ${describeCiVerdict(verdict)}`,
    },
    // Never reported on in this run: no check of the bot's to look for (as on a new worker PR).
    { first: neverReported(kept) },
  );
  await keepFeedbackState(deps, target.runId, milestonePrKey, reported ?? state);
  return verdict;
};
