// What the PR feedback loop (pr-feedback-forge.ts) read about one open worker PR in a pass: the
// planner's merge gate reads its decision. A type alone, so that the orchestrator's context names it
// without importing the loop.
import type { CheckInfo, PullRequest } from '../forges/types.ts';
import type { PrFeedbackState } from '../store/run-store.ts';
import type { CiVerdict } from './ci-verdict.ts';
import type { ReviewFeedback } from './feedback-prompt.ts';
import type { PrGateDecision, WorkerPhase } from './pr-gate.ts';
import type { ReviewGate } from './review-gate.ts';

export interface PrFacts {
  head: string;
  /** The PR as this read saw it, where the forge read it with its feedback (merge uses it, unread again). */
  pull?: PullRequest;
  /** How many comments the PR's conversation held at this read, where the forge counts them. */
  conversationComments?: number;
  /** The head's state as kept after this read (a new head starts its settle window now). */
  state: PrFeedbackState;
  ci: CiVerdict;
  review: ReviewGate;
  checks: CheckInfo[];
  feedback?: ReviewFeedback;
  worker: WorkerPhase;
  decision: PrGateDecision;
}
