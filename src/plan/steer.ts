// What a person's steering command (`/blitz retry | skip | unhold | tell #n`, `/blitz review`,
// `/blitz accept-review`) does to a run, decided from plain facts: the effect for the executor to
// apply, and the one reply the person gets either way. A command that cannot apply changes nothing
// and says why, and what would work instead.
import type { IssueCaps } from './issue-caps.ts';
import { isModelFailure } from './routing.ts';
import { capCheckOf, defaultMaxAttemptsPerIssue } from './run-context.ts';
import type { IssueProgress } from './snapshot.ts';
import { issueStateWords, runStateWords, verdictStateWords } from './state-words.ts';
import type { RunIssueState, RunState } from './states.ts';

/**
 * `pr`: the PR feedback loop held the issue's pull request (CI red after its fix attempts, CI timed out);
 * `cap`: the issue spent its per-issue cap (tokens, attempts or sessions).
 */
export type HoldKind = 'label' | 'failures' | 'stalled' | 'untrusted' | 'triage' | 'pr' | 'cap';

export interface SteerIssueFacts {
  /** `#12` as the person wrote it, for the reply. */
  ref: string;
  /** Absent: the issue is not part of this run. */
  state?: RunIssueState;
  /** The issue is closed on the tracker. */
  closed: boolean;
  /** Why it is held, when it is. */
  hold?: HoldKind;
  /** A person skipped it earlier in this run. */
  skipped: boolean;
  /** A worker process of this issue is running now. */
  workerRunning: boolean;
}

/** What the tracker, the run and the ledger say about an issue, for the hold it is under. */
export interface HoldInput {
  /** The issue carries the hold label. */
  labelHeld: boolean;
  /** The PR feedback loop held its PR (CI red after its fix attempts, CI timed out). */
  prHeld: boolean;
  /** Its progress as the planner derives it; absent when it has none in this run. */
  progress?: IssueProgress;
  workerRunning: boolean;
  issueCaps?: IssueCaps;
  /** The run's `maxAttemptsPerIssue`, when it set one. */
  maxAttemptsPerIssue?: number;
}

/**
 * The hold an issue is under, as the planner holds it: the label, a held PR, a stall, its per-issue cap
 * spent since the last retry (plan/run-context.ts), or the failures limit (seed 001: 3 by default).
 */
export const holdOf = (i: HoldInput): HoldKind | undefined => {
  if (i.labelHeld) return 'label';
  if (i.prHeld) return 'pr';
  const p = i.progress;
  if (!p) return undefined;
  if (p.state === 'stalled') return 'stalled';
  const caps = i.issueCaps ? { issueCaps: i.issueCaps } : {};
  if (!i.workerRunning && capCheckOf(caps, p)?.level === 'over') return 'cap';
  if (p.state !== 'failed' && p.state !== 'bounced') return undefined;
  const max = i.maxAttemptsPerIssue ?? i.issueCaps?.maxAttempts ?? defaultMaxAttemptsPerIssue;
  const failures = p.attempts.slice(p.countFrom ?? 0).filter((a) => isModelFailure(a));
  // A pass bounced after its work was solved counts like a failed attempt (plan/issue-progress.ts).
  return failures.length + (p.bounces ?? 0) >= max ? 'failures' : undefined;
};

export type ReviewVerdict = 'clean' | 'minor' | 'blocking' | 'unclear';

export interface SteerFacts {
  runState: RunState;
  /** The run's latest integration review; absent when none has run yet. */
  review?: { verdict: ReviewVerdict } | { running: true };
}

export type SteerCommand =
  | { name: 'blitz-issue'; action: 'retry' | 'skip' | 'unhold'; issue: SteerIssueFacts }
  | { name: 'blitz-tell'; issue: SteerIssueFacts; message: string }
  | { name: 'blitz-review'; action: 'review' | 'accept-review' };

export type SteerEffect =
  /** Clear the issue's failure count and hold, and make it ready for a fresh attempt. */
  | { type: 'retry'; issue: string }
  /** Leave the issue out of this run (open on the tracker); cancel its worker when one runs. */
  | { type: 'skip'; issue: string; cancelWorker: boolean }
  /** Take a skipped issue back into the run. */
  | { type: 'unskip'; issue: string }
  /** Lift the hold; `removeLabel` when it was the hold label. */
  | { type: 'unhold'; issue: string; removeLabel: boolean }
  /** Give the worker the message: by a nudge now, or at its next resume or attempt. */
  | { type: 'tell'; issue: string; message: string; deliver: 'nudge' | 'next_attempt' }
  | { type: 'rerun_review' }
  | { type: 'accept_review' };

export type SteerDecision = { ok: true; effect: SteerEffect; reply: string } | { ok: false; reply: string };

const refuse = (reply: string): SteerDecision => ({ ok: false, reply });
const finished: RunState[] = ['done', 'cancelled'];

/** Why the issue cannot be steered at all, or undefined. */
const notSteerable = (issue: SteerIssueFacts): string | undefined => {
  if (issue.state === undefined) return `${issue.ref} is not part of this run, so nothing changed.`;
  if (issue.closed || issue.state === 'closed') return `${issue.ref} is already closed, so nothing changed.`;
  return undefined;
};

const retry = (issue: SteerIssueFacts): SteerDecision => {
  if (issue.skipped) {
    return {
      ok: true,
      effect: { type: 'unskip', issue: issue.ref },
      reply: `Taking ${issue.ref} back into the run: it is dispatched again when its blockers allow.`,
    };
  }
  if (issue.workerRunning || issue.state === 'dispatched' || issue.state === 'working') {
    return refuse(
      `${issue.ref} has a worker running now, so nothing changed; \`/blitz tell ${issue.ref} <message>\` reaches it.`,
    );
  }
  if (issue.hold === 'label') {
    return refuse(
      `${issue.ref} is held by its \`hold\` label, so nothing changed; \`/blitz unhold ${issue.ref}\` lifts it.`,
    );
  }
  if (issue.hold === 'untrusted') {
    return refuse(
      `${issue.ref} waits for approval (its author has no write access), so nothing changed; add the \`blitz/approved\` label to run it.`,
    );
  }
  const retryable: RunIssueState[] = ['failed', 'stalled', 'bounced', 'held'];
  if (!retryable.includes(issue.state!)) {
    return refuse(
      `${issue.ref} is ${issueStateWords(issue.state!)}, not failed or held, so nothing changed.`,
    );
  }
  return {
    ok: true,
    effect: { type: 'retry', issue: issue.ref },
    reply:
      issue.hold === 'pr'
        ? `Retrying ${issue.ref}: the hold on its pull request is lifted and its worker gets another round on the PR's CI and reviews, its fix attempts counted afresh.`
        : issue.hold === 'cap'
          ? `Retrying ${issue.ref}: it gets a new allowance under its per-issue cap and a fresh attempt starts with the next wave.`
          : `Retrying ${issue.ref}: its failure count is cleared and a fresh attempt starts with the next wave.`,
  };
};

const skip = (issue: SteerIssueFacts): SteerDecision => {
  if (issue.skipped)
    return refuse(`${issue.ref} is already skipped; \`/blitz retry ${issue.ref}\` takes it back.`);
  const running = issue.workerRunning || issue.state === 'dispatched' || issue.state === 'working';
  if (issue.state === 'merged') return refuse(`${issue.ref} is already merged, so nothing changed.`);
  return {
    ok: true,
    effect: { type: 'skip', issue: issue.ref, cancelWorker: running },
    reply: `Skipping ${issue.ref}${running ? ' (its worker is stopped)' : ''}: it stays open and is left out of this run; \`/blitz retry ${issue.ref}\` takes it back.`,
  };
};

const unhold = (issue: SteerIssueFacts): SteerDecision => {
  if (issue.hold === undefined) return refuse(`${issue.ref} is not held, so nothing changed.`);
  if (issue.hold === 'pr') {
    return refuse(
      `${issue.ref} is held by its pull request's feedback loop, so nothing changed; push a fix to its branch or say \`/blitz retry ${issue.ref}\` to give its worker another round.`,
    );
  }
  if (issue.hold === 'untrusted') {
    return refuse(
      `${issue.ref} waits for approval, not a hold: add the \`blitz/approved\` label to let it run.`,
    );
  }
  return {
    ok: true,
    effect: { type: 'unhold', issue: issue.ref, removeLabel: issue.hold === 'label' },
    reply:
      issue.hold === 'label'
        ? `Lifted the hold on ${issue.ref}: the \`hold\` label is removed and it runs when its blockers allow.`
        : `Lifted the hold on ${issue.ref}: it gets a fresh attempt with the next wave.`,
  };
};

const tell = (issue: SteerIssueFacts, message: string): SteerDecision => {
  const running = issue.workerRunning || issue.state === 'dispatched' || issue.state === 'working';
  return {
    ok: true,
    effect: { type: 'tell', issue: issue.ref, message, deliver: running ? 'nudge' : 'next_attempt' },
    reply: running
      ? `Passing your message to the worker of ${issue.ref} now, by a nudge.`
      : `Noted for ${issue.ref}: its worker gets your message at its next resume or attempt.`,
  };
};

const review = (facts: SteerFacts, action: 'review' | 'accept-review'): SteerDecision => {
  const r = facts.review;
  if (r && 'running' in r) return refuse('The integration review is running now; its verdict comes next.');
  if (action === 'review') {
    return {
      ok: true,
      effect: { type: 'rerun_review' },
      reply: 'Running the integration review again on the integration branch as it is now.',
    };
  }
  if (!r) return refuse('No integration review has run yet, so there is nothing to accept.');
  if (r.verdict !== 'unclear') {
    return refuse(
      `The latest integration review is ${verdictStateWords(r.verdict)}, not unclear, so there is nothing to accept; \`/blitz review\` runs it again.`,
    );
  }
  return {
    ok: true,
    effect: { type: 'accept_review' },
    reply: 'Accepted the unclear integration review: the run goes on to the readiness gate.',
  };
};

export const decideSteer = (command: SteerCommand, facts: SteerFacts): SteerDecision => {
  if (finished.includes(facts.runState)) {
    return refuse(
      `This run is ${runStateWords(facts.runState)}, so nothing changed; start a new one with \`/blitz\`.`,
    );
  }
  if (command.name === 'blitz-review') return review(facts, command.action);
  const why = notSteerable(command.issue);
  if (why) return refuse(why);
  if (command.name === 'blitz-tell') return tell(command.issue, command.message);
  if (command.action === 'retry') return retry(command.issue);
  if (command.action === 'skip') return skip(command.issue);
  return unhold(command.issue);
};
