// Whether a worker's open PR may merge now, and if not, what happens instead: the PR feedback loop's
// one decision, pure. It reads the head's CI verdict (ci-verdict.ts), the people's review gate
// (review-gate.ts), whether a writer gave feedback the session has not seen, `/blitz tell` messages
// and the bot's own tells waiting, where the worker is, and the fix attempts spent. Nothing merges
// red, nothing merges while a writer's changes-requested review stands on the head, and every stop
// names its way out.
import type { CiVerdict } from './ci-verdict.ts';
import type { ReviewGate } from './review-gate.ts';

/** Where the worker that wrote the PR is. */
export type WorkerPhase =
  /** Its session is running (a resume is being worked on). */
  | 'live'
  /** The bot asked for a resume that the runner has not carried out yet (a queued job). */
  | 'resume_pending'
  /** Its session ended: it can be resumed. */
  | 'idle';

export type FeedbackPart = 'review' | 'tell' | 'ci';

export interface PrGateInput {
  ci: CiVerdict;
  review: ReviewGate;
  /** A writer reviewed or commented since the session last heard (text the caller built). */
  newReview: boolean;
  /** Messages waiting for the session: people's `/blitz tell`s and the bot's own. */
  tells: number;
  /**
   * How many of `tells` are the bot's own (plan/base-change.ts: the integration branch changed files
   * under the PR): no person wrote those.
   */
  ownTells?: number;
  worker: WorkerPhase;
  /** CI fix resumes spent on this PR, and how many are allowed (`ci.maxFixAttempts`). */
  fixAttempts: number;
  maxFixAttempts: number;
  /** Set once the PR was held (fix attempts spent, CI timed out): it stays until `/blitz retry`. */
  held?: string;
}

export type PrGateDecision =
  | { kind: 'merge'; why: string }
  /** `on: 'ci'`: only the repository's CI is awaited (nothing else stands in the way). */
  | { kind: 'wait'; why: string; recheckAt?: number; on?: 'ci' }
  /** Resume the worker's own session with these parts of feedback, the first one naming the reason. */
  | { kind: 'resume'; parts: FeedbackPart[]; why: string }
  /** Stop on this PR: a notification names `/blitz retry`. */
  | { kind: 'hold'; why: string };

const merging = (ci: CiVerdict): string =>
  ci.kind === 'no_ci'
    ? ci.reason === 'never'
      ? 'CI not awaited (ci.wait: never)'
      : 'no CI check appeared within the settle window'
    : `CI green (${ci.kind === 'green' ? ci.passed.length : 0} check(s))`;

export const prGate = (input: PrGateInput): PrGateDecision => {
  const { ci, review } = input;
  if (input.held !== undefined) return { kind: 'wait', why: `held: ${input.held}` };
  if (input.worker === 'live') return { kind: 'wait', why: 'the worker is addressing feedback' };
  if (input.worker === 'resume_pending')
    return { kind: 'wait', why: 'the worker is about to be resumed with feedback' };

  const red = ci.kind === 'red';
  const canFix = red && input.fixAttempts < input.maxFixAttempts;
  const parts: FeedbackPart[] = [
    ...(input.newReview ? (['review'] as const) : []),
    ...(input.tells > 0 ? (['tell'] as const) : []),
    ...(canFix ? (['ci'] as const) : []),
  ];
  // CI first when it is part of it: it names the resume reason (and spends a fix attempt).
  if (parts.includes('ci'))
    return {
      kind: 'resume',
      parts: ['ci', ...parts.filter((p) => p !== 'ci')],
      why: `CI red; fix attempt ${input.fixAttempts + 1} of ${input.maxFixAttempts}`,
    };
  if (parts.length > 0)
    return {
      kind: 'resume',
      parts,
      why:
        parts[0] === 'review'
          ? 'a writer asked for changes'
          : (input.ownTells ?? 0) >= input.tells
            ? 'the integration branch changed files this PR changes'
            : 'a writer sent a message',
    };
  if (red)
    return {
      kind: 'hold',
      why: `CI stayed red after ${input.fixAttempts} fix attempt(s): ${ci.failing.map((c) => c.name).join(', ')}`,
    };
  if (review.kind === 'changes_requested')
    return {
      kind: 'wait',
      why: `changes requested by ${review.by.map((r) => r.author).join(', ')} on the current head`,
    };
  if (ci.kind === 'timed_out')
    return {
      kind: 'hold',
      why: ci.waitingFor.length
        ? `CI timed out waiting for ${ci.waitingFor.join(', ')}`
        : 'CI timed out: no check appeared',
    };
  if (ci.kind === 'pending')
    return {
      kind: 'wait',
      why: ci.waitingFor.length ? `waiting for CI: ${ci.waitingFor.join(', ')}` : 'waiting for CI to start',
      recheckAt: ci.recheckAt,
      on: 'ci',
    };
  return { kind: 'merge', why: merging(ci) };
};
