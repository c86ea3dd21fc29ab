// The run and run-issue state machines as transition tables: a transition not listed is refused
// with an AppError, so that a bug or a replayed event cannot move a run backwards silently.
import { AppError } from '../errors.ts';

export const runStates = [
  'planning',
  'running',
  'integrating',
  'gating',
  'shipping',
  'done',
  'paused',
  'blocked',
  'review_unclear',
  'cancelled',
] as const;
export type RunState = (typeof runStates)[number];

const active: RunState[] = ['planning', 'running', 'integrating', 'gating', 'shipping'];

const runNext: Record<RunState, readonly RunState[]> = {
  planning: ['running', 'done', 'paused', 'blocked', 'cancelled'],
  running: ['integrating', 'gating', 'paused', 'blocked', 'review_unclear', 'cancelled'],
  integrating: ['running', 'gating', 'paused', 'blocked', 'review_unclear', 'cancelled'],
  // A failed readiness gate sends the run back for another pass.
  gating: ['shipping', 'running', 'paused', 'blocked', 'review_unclear', 'cancelled'],
  shipping: ['done', 'blocked', 'cancelled'],
  // Resume returns to whichever active state the run was paused in.
  paused: [...active, 'cancelled'],
  // A person cleared the blocker and resumed.
  blocked: ['planning', 'running', 'cancelled'],
  // The integration review gave no usable verdict: `/blitz accept-review` or `/blitz review` goes on.
  review_unclear: ['running', 'paused', 'blocked', 'cancelled'],
  done: [],
  cancelled: [],
};

export const isTerminalRunState = (s: RunState): boolean => runNext[s].length === 0;

export const canTransitionRun = (from: RunState, to: RunState): boolean => runNext[from].includes(to);

export const transitionRun = (from: RunState, to: RunState): RunState => {
  if (!canTransitionRun(from, to))
    throw new AppError('conflict', `A run cannot go from ${from} to ${to}.`, { from, to, machine: 'run' });
  return to;
};

export const runIssueStates = [
  'blocked',
  'ready',
  'dispatched',
  'working',
  'pushed',
  'pr_open',
  'reviewed',
  'merged',
  'closed',
  'failed',
  'stalled',
  'bounced',
  'held',
] as const;
export type RunIssueState = (typeof runIssueStates)[number];

const issueNext: Record<RunIssueState, readonly RunIssueState[]> = {
  blocked: ['ready', 'held', 'closed'],
  // A new blocker edge can block a ready issue again.
  ready: ['dispatched', 'blocked', 'held', 'closed'],
  dispatched: ['working', 'pushed', 'failed', 'stalled'],
  working: ['pushed', 'failed', 'stalled'],
  pushed: ['pr_open', 'failed'],
  pr_open: ['reviewed', 'merged', 'bounced', 'failed'],
  reviewed: ['merged', 'bounced', 'failed'],
  // A build that fails after the merge bounces the issue back.
  merged: ['closed', 'bounced'],
  closed: [],
  failed: ['ready', 'blocked', 'held'],
  // A nudge or a resume puts a stalled worker back to work.
  stalled: ['working', 'pushed', 'failed', 'held'],
  bounced: ['ready', 'blocked', 'held'],
  held: ['ready', 'blocked', 'closed'],
};

/** States in which a worker holds a slot. */
export const inFlightIssueStates: readonly RunIssueState[] = ['dispatched', 'working'];
/** States between a pushed branch and a merge: the integration pipeline. */
export const integratingIssueStates: readonly RunIssueState[] = ['pushed', 'pr_open', 'reviewed'];

export const canTransitionIssue = (from: RunIssueState, to: RunIssueState): boolean =>
  issueNext[from].includes(to);

export const transitionIssue = (from: RunIssueState, to: RunIssueState): RunIssueState => {
  if (!canTransitionIssue(from, to))
    throw new AppError('conflict', `An issue of a run cannot go from ${from} to ${to}.`, {
      from,
      to,
      machine: 'issue',
    });
  return to;
};
