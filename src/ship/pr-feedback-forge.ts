// What the PR feedback loop reads from and writes to the forge for one worker PR (blitz or fleet):
// the head's checks, people's reviews and review comments and their authors' permission, judged by
// the pure `prGate` into the pass's `PrFacts`; the bot's own `blitz` check on the head; and, once a
// resume carried a writer's comments, the answer on each thread with the commit that addressed it.
// The state kept between passes (`PrFeedbackState`) is the orchestrator's to write (pr-feedback.ts).
import type { RepoConfig } from '../config/repo-config.ts';
import type { Forge, Permission, ProgressReport, RepoRef, ReportedInstead } from '../forges/types.ts';
import { createRedactor } from '../observability/redact.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { PrFeedbackState } from '../store/run-store.ts';
import { ciVerdict } from './ci-verdict.ts';
import { addressedReply, buildReviewFeedbackReason } from './feedback-prompt.ts';
import type { PrFacts } from './pr-facts.ts';
import { prGate } from './pr-gate.ts';
import { workerPhase } from './pr-progress.ts';
import { reviewGate } from './review-gate.ts';
import { tellStanding } from './tell-delivery.ts';

/** The bot's own check (GitHub check run, Gitea commit status). */
export const ownCheckName = 'blitz';
export const emptyFeedbackState = (): PrFeedbackState => ({ fixAttempts: 0 });

/** Never reported on for this issue: its PR is new, and there is no check of the bot's to look for. */
export const neverReported = (kept: PrFeedbackState | undefined): boolean =>
  kept?.reported === undefined && kept?.head === undefined;

export interface PrReadInput {
  forge: Forge;
  repo: RepoRef;
  pr: number;
  /** The worker's branch (named in the resume text). */
  branch: string;
  /** The head sha when the caller already read the PR. */
  head?: string;
  state: PrFeedbackState | undefined;
  /** The attempt that wrote the PR (its latest). */
  attempt: AttemptRecord | undefined;
  ci: RepoConfig['ci'];
  now: Date;
  /** Whether a login has write permission (cached by the caller); a failed lookup is false. */
  writer(login: string): Promise<boolean>;
}

export const readPrFacts = async (input: PrReadInput): Promise<PrFacts> => {
  const { forge, repo } = input;
  const ref = { repo, number: input.pr };
  // One read where the forge has it (GitHub: one GraphQL query; Gitea: the PR, its status, its reviews).
  const read = forge.readPullFeedback ? await forge.readPullFeedback(ref) : undefined;
  const head = read?.pull.head.sha ?? input.head ?? (await forge.getPullRequest(ref)).head.sha;
  const now = input.now.getTime();
  const kept = input.state ?? emptyFeedbackState();
  // A new head starts its settle window now; one pushed while the PR was held (a person's fix) lifts
  // the hold, so that head is judged afresh.
  const { held: _held, ...unheld } = kept;
  const state: PrFeedbackState =
    kept.head?.sha === head ? kept : { ...unheld, head: { sha: head, seenAt: input.now.toISOString() } };
  const checks = read?.checks ?? (await forge.listChecks?.(repo, head)) ?? [];
  const ci =
    forge.listChecks === undefined
      ? ({ kind: 'no_ci', reason: 'never' } as const)
      : ciVerdict({
          checks,
          ci: input.ci,
          pushedAt: Date.parse(state.head!.seenAt),
          now,
          ownReporters: [forge.botLogin],
          ownCheckName,
        });
  const reviews = read?.reviews ?? (await forge.listReviews?.(ref)) ?? [];
  const comments = read?.comments ?? (await forge.listReviewComments?.(ref)) ?? [];
  const permissions = new Map<string, Permission>();
  for (const login of new Set([...reviews, ...comments].map((x) => x.author.toLowerCase())))
    permissions.set(login, (await input.writer(login)) ? 'write' : 'none');
  const review = reviewGate({ reviews, headSha: head, permissions, botLogin: forge.botLogin });
  const feedback = buildReviewFeedbackReason({
    reviews,
    comments,
    permissions,
    botLogin: forge.botLogin,
    ...(state.reviewSince ? { since: state.reviewSince } : {}),
    branch: input.branch,
    redact: createRedactor([]),
  });
  const worker = workerPhase(input.attempt, state.asked);
  const waiting = tellStanding(state.tells, input.attempt ? [input.attempt] : []).waiting;
  const decision = prGate({
    ci,
    review,
    newReview: feedback !== undefined,
    tells: waiting.length,
    ownTells: waiting.filter((t) => t.kind === 'base_change').length,
    worker,
    fixAttempts: state.fixAttempts,
    maxFixAttempts: input.ci.maxFixAttempts,
    ...(state.held ? { held: state.held } : {}),
  });
  return {
    head,
    ...(read ? { pull: read.pull } : {}),
    ...(read?.conversationComments !== undefined ? { conversationComments: read.conversationComments } : {}),
    state,
    ci,
    review,
    checks,
    ...(feedback ? { feedback } : {}),
    worker,
    decision,
  };
};

/**
 * Once the asked resume is carried out and the session ended: each comment it carried is answered on
 * its thread with the head that addressed it (when the worker pushed one), once.
 */
export const answerThreads = async (
  target: { forge: Forge; repo: RepoRef; pr: number },
  facts: PrFacts,
): Promise<PrFeedbackState | undefined> => {
  const { asked } = facts.state;
  if (!asked || facts.worker !== 'idle') return undefined;
  const replied = new Set(facts.state.replied ?? []);
  if (facts.head !== asked.head && target.forge.replyToReviewComment)
    for (const id of asked.commentIds) {
      if (replied.has(id)) continue;
      await target.forge.replyToReviewComment(
        { repo: target.repo, number: target.pr },
        id,
        addressedReply(facts.head),
      );
      replied.add(id);
    }
  const { asked: _done, ...rest } = facts.state;
  return { ...rest, replied: [...replied] };
};

/** What the feedback state keeps of the last report written on a head (`reported`). */
export const reportedKey = (head: string, report: ProgressReport): string =>
  `${head} ${report.state} ${report.title}`;

/**
 * Writes the bot's check on the head when what it says changed; returns the state to keep. `instead` is
 * told how a sent report went: another way (a commit status, for lack of a check-run permission), or as asked.
 */
export const reportPrProgress = async (
  target: { forge: Forge; repo: RepoRef; instead?: (r: ReportedInstead | undefined) => Promise<void> },
  facts: Pick<PrFacts, 'head' | 'state'>,
  report: ProgressReport,
  opts: { first?: boolean; sent?: boolean } = {},
): Promise<PrFeedbackState | undefined> => {
  if (!target.forge.reportProgress) return undefined;
  const key = reportedKey(facts.head, report);
  if (facts.state.reported === key) return undefined;
  const { sent, ...forgeOpts } = opts;
  const took = sent
    ? undefined
    : await target.forge.reportProgress(target.repo, facts.head, report, forgeOpts);
  if (!sent) await target.instead?.(took);
  return { ...facts.state, reported: key };
};
