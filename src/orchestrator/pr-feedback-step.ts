// The PR feedback loop inside a pass. Before the planner: `gatePullRequests` reads each open worker PR
// of the run (checks, reviews, comments) and puts the gate's answer on the issue's progress
// (`prGate`), so the planner merges only what the gate lets through and asks for a `pr_feedback`
// action for every gated PR. The executor's `performPrFeedback` then does what the answer says:
// answer threads a finished resume addressed, resume the session with the feedback, hold with a
// notice naming `/blitz retry`, report the bot's `blitz` check on the head, and keep the state.
import type { RepoConfig } from '../config/repo-config.ts';
import { type AppPermission, missingPermissionOf } from '../forges/app-permission.ts';
import type { Forge, ProgressReport, RepoRef } from '../forges/types.ts';
import { attemptKey, currentAttempts } from '../plan/issue-progress.ts';
import type { IssueProgress } from '../plan/snapshot.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { Announcer, Clock, Log, Records, Settings, Workers } from '../runs/ports.ts';
import { sendRunNotice } from '../runs/run-notice.ts';
import type { PrFacts } from '../ship/pr-facts.ts';
import { answerThreads, readPrFacts, reportedKey, reportPrProgress } from '../ship/pr-feedback-forge.ts';
import { holdSentence, progressReport } from '../ship/pr-progress.ts';
import { runNoticeOf, runPageUrl } from '../ship/run-notices.ts';
import type { PrFeedbackState, RunIssueRecord, RunRecord } from '../store/run-store.ts';
import { keepFeedbackState, keepReportedInstead, resumeWithFeedback } from './pr-feedback.ts';

export interface PrGateScope {
  forge: Forge;
  repo: RepoRef;
  run: RunRecord;
  attempts: readonly AttemptRecord[];
  rows: ReadonlyMap<string, RunIssueRecord>;
  ci: RepoConfig['ci'];
  /** Whether a login has write permission on the repository (the run's cached trust check). */
  writer(login: string): Promise<boolean>;
  /** Told of an App permission a read was refused for (forges/app-permission.ts): the run blocks on it. */
  lacking?(permission: AppPermission): void;
  /** Told of each PR's facts (pr-reads-kept.ts: a read whose answer only waits is served again). */
  settled?(pr: number, facts: PrFacts): void;
}

const latestAttempt = (scope: Pick<PrGateScope, 'attempts' | 'rows'>, key: string) =>
  currentAttempts(
    scope.attempts.filter((a) => attemptKey(a) === key),
    scope.rows.get(key),
  ).at(-1);

/**
 * Reads the facts of every open, unmerged worker PR of the run. A PR whose facts cannot be read this
 * pass gets no entry: its progress says `wait` (fail closed: never merged unread).
 */
export const gatePullRequests = async (
  deps: Clock & Log,
  scope: PrGateScope,
  progress: readonly IssueProgress[],
): Promise<Map<string, PrFacts>> => {
  const facts = new Map<string, PrFacts>();
  for (const p of progress) {
    if (!p.pr || p.pr.merged) continue;
    const attempt = latestAttempt(scope, p.key);
    try {
      const read = await readPrFacts({
        forge: scope.forge,
        repo: scope.repo,
        pr: p.pr.number,
        branch: attempt?.branch ?? scope.rows.get(p.key)?.branch ?? '',
        state: scope.run.progress.prFeedback?.[p.key],
        attempt,
        ci: scope.ci,
        now: deps.clock.now(),
        writer: scope.writer,
      });
      facts.set(p.key, read);
      scope.settled?.(p.pr.number, read);
    } catch (err) {
      const permission = missingPermissionOf(err);
      if (permission) scope.lacking?.(permission);
      deps.logger.warn(
        { runId: scope.run.id, issue: p.key, err },
        'PR checks and reviews unreadable this pass',
      );
    }
  }
  return facts;
};

export interface PrFeedbackCtx extends Omit<PrGateScope, 'ci' | 'writer'> {
  prFacts: ReadonlyMap<string, PrFacts>;
  maxFixAttempts: number;
  /** The branch the PR merges into (blitz: the integration branch): a base-change tell merges it in. */
  base?: string;
  /**
   * A merge of `head` follows in this pass on a forge whose merge carries the bot's report: a report
   * that completes the check (`success`) is handed to `take` for it, not sent on its own.
   */
  carry?: { head: string; take(report: ProgressReport): void };
}

/** The executor's half: what the gate's answer for one PR means, done once, its state kept. */
export const performPrFeedback = async (
  deps: Records & Workers & Announcer & Log & Settings,
  ctx: PrFeedbackCtx,
  key: string,
  pr: number,
): Promise<PrFeedbackState | undefined> => {
  const facts = ctx.prFacts.get(key);
  if (!facts) return undefined;
  let current: PrFacts = facts;
  const keep = (state: PrFeedbackState | undefined) => {
    if (state) current = { ...current, state };
  };
  const target = { forge: ctx.forge, repo: ctx.repo, pr };
  keep(await answerThreads(target, current));
  const d = current.decision;
  const attempt = latestAttempt(ctx, key);
  if (d.kind === 'resume' && attempt) {
    keep(
      await resumeWithFeedback(
        deps,
        {
          ...target,
          branch: attempt.branch,
          attempt,
          maxFixAttempts: ctx.maxFixAttempts,
          ...(ctx.base ? { base: ctx.base } : {}),
        },
        current,
        d.parts,
      ),
    );
    deps.logger.info({ runId: ctx.run.id, issue: key, parts: d.parts }, 'worker resumed with PR feedback');
  }
  if (d.kind === 'hold' && current.state.held === undefined) {
    const issue = Number(key.slice(key.lastIndexOf('#') + 1));
    const sentence = holdSentence(ctx.repo, issue, d.why);
    keep({ ...current.state, held: d.why });
    await ctx.forge.createComment({ repo: ctx.repo, number: pr }, sentence);
    await sendRunNotice(
      deps,
      runNoticeOf(ctx.run, 'needs_person', sentence, {
        issue,
        ...(deps.config.publicUrl ? { publicUrl: deps.config.publicUrl } : {}),
      }),
    );
  }
  const after: PrFacts = d.kind === 'resume' ? { ...current, worker: 'resume_pending' } : current;
  const report = progressReport(after, runPageUrl(deps.config.publicUrl, ctx.run.id));
  if (
    report.state === 'success' &&
    ctx.carry?.head === after.head &&
    after.state.reported !== reportedKey(after.head, report)
  )
    ctx.carry.take(report);
  else
    keep(
      await reportPrProgress({ ...target, instead: keepReportedInstead(deps, ctx.run.id) }, after, report),
    );
  await keepFeedbackState(deps, ctx.run.id, key, current.state, facts.state);
  return current.state;
};
