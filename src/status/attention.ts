// The named state a run waits in for a person (issue 18), for the API, the status pages and the
// terminal: which one, why in one sentence, and the command that continues. A run that needs nobody
// has none. Read from the run's state and progress and its issues' rows, so a page cannot disagree
// with the dashboard about what to type.

import { resumeCommandOf } from '../plan/resume-command.ts';

export const attentionStates = ['parked', 'blocked', 'needs_person', 'review_unclear'] as const;
export type AttentionState = (typeof attentionStates)[number];

export interface Attention {
  state: AttentionState;
  /** One sentence. */
  reason: string;
  /** What a writer types to go on. */
  command: string;
}

/** What attentionOf reads of a run (a RunRecord or a RunSummary's source). */
export interface AttentionRun {
  /** The run's kind: a fleet and a plan run resume by their own command (default blitz). */
  kind?: 'blitz' | 'fleet' | 'plan';
  state: string;
  progress: {
    reason?: string;
    /** The stop's own command when `/blitz resume` would not continue it (a held issue's retry). */
    continueWith?: string;
    hardBlocker?: unknown;
    budget?: { status: string; park?: boolean };
    /** An environment or budget park (runs/environment-park-run.ts). */
    park?: { resetAt?: string };
  };
}

/** A run issue row as far as a hold goes. */
export interface AttentionIssue {
  number: number;
  state: string;
  lastError?: string;
}

const firstSentence = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
};

export const attentionOf = (run: AttentionRun, issues: readonly AttentionIssue[] = []): Attention | null => {
  const reason = run.progress.reason ? firstSentence(run.progress.reason) : undefined;
  const resume = resumeCommandOf(run.kind ?? 'blitz');
  if (run.state === 'review_unclear')
    return {
      state: 'review_unclear',
      reason: reason ?? 'the integration review gave no usable verdict',
      command: '/blitz accept-review (or /blitz review to run it again)',
    };
  // A run blocked because its issues gave up goes on with their `/blitz retry #n`, not a resume (which
  // would only stop it again); a forge that refuses the bot blocks it later with no such command.
  if (run.state === 'blocked')
    return {
      state: 'blocked',
      reason: reason ?? 'the run is blocked',
      command: (!run.progress.hardBlocker && run.progress.continueWith) || resume,
    };
  if (run.state === 'paused' && run.progress.park)
    return {
      state: 'parked',
      reason: reason ?? 'the run is parked until the model endpoint answers',
      command: resume,
    };
  if (run.state === 'paused' && run.progress.budget?.status === 'ok' && run.progress.budget.park)
    return {
      state: 'parked',
      reason: reason ?? 'the budget probe says park',
      command: resume,
    };
  if (run.state === 'done' || run.state === 'cancelled') return null;
  const held = issues.filter((i) => i.state === 'held').sort((a, b) => a.number - b.number);
  const first = held[0];
  if (first)
    return {
      state: 'needs_person',
      reason: `#${first.number} is held${first.lastError ? `: ${firstSentence(first.lastError)}` : ''}${held.length > 1 ? ` (and ${held.length - 1} more held)` : ''}`,
      command: `/blitz retry #${first.number}`,
    };
  return null;
};
