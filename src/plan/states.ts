// The run state machine as a transition table (a terminal state has no way out; a hard blocker asks it
// whether the run may block now) and the list of run-issue states that progress, dashboard and store share.

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

/** Where every run starts. */
export const firstRunState = 'planning' satisfies RunState;

/** The states a run works in; a paused run remembers which one it left (`pausedFrom`). */
export const activeRunStates: readonly RunState[] = [
  'planning',
  'running',
  'integrating',
  'gating',
  'shipping',
];

const runNext: Record<RunState, readonly RunState[]> = {
  planning: ['running', 'done', 'paused', 'blocked', 'cancelled'],
  // A plan run ends from here (planRunEnd), and so does a fleet, which has no integration or gate; a
  // blitz with no smoke check to gate ships from here.
  running: ['integrating', 'gating', 'shipping', 'done', 'paused', 'blocked', 'review_unclear', 'cancelled'],
  integrating: ['running', 'gating', 'paused', 'blocked', 'review_unclear', 'cancelled'],
  // A failed readiness gate sends the run back for another pass.
  gating: ['shipping', 'running', 'paused', 'blocked', 'review_unclear', 'cancelled'],
  // A person pauses a shipping run like any working one; a regate that meets an unclear review waits.
  shipping: ['done', 'paused', 'blocked', 'review_unclear', 'cancelled'],
  // Resume returns to whichever active state the run was paused in.
  paused: [...activeRunStates, 'cancelled'],
  // A person cleared the blocker and resumed. Never paused: a pause would hide what continues it.
  blocked: ['planning', 'running', 'cancelled'],
  // The integration review gave no usable verdict: `/blitz accept-review` or `/blitz review` goes on.
  review_unclear: ['running', 'paused', 'blocked', 'cancelled'],
  done: [],
  cancelled: [],
};

export const isTerminalRunState = (s: RunState): boolean => runNext[s].length === 0;

export const canTransitionRun = (from: RunState, to: RunState): boolean => runNext[from].includes(to);

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

/**
 * What a plan run's member row holds instead (plan/plan-member.ts): the phase it is in, then how it
 * landed (`ready` and `closed` are in the list above).
 */
export const planIssueStates = [
  'sizing',
  'planning',
  'fixing',
  'coding',
  'reviewing',
  'shipping',
  'approved',
  'pivoted',
  'refused',
  'parked',
] as const;

/** Every state an issue row of any run kind holds: the one list the run writer and the store check. */
export const issueRowStates = [...runIssueStates, ...planIssueStates] as const;
export type IssueRowState = (typeof issueRowStates)[number];

export const isIssueRowState = (s: string): s is IssueRowState =>
  (issueRowStates as readonly string[]).includes(s);

/** The row states before a merge: the issue's way into the integration branch (or the XS lane's). */
const beforeMerge: readonly IssueRowState[] = [
  'ready',
  'dispatched',
  'working',
  'pushed',
  'pr_open',
  'reviewed',
  'shipping',
];

/**
 * The issue-row moves that go back (every other move is allowed): a merged row never re-enters the
 * pipeline before its merge (a bounce reverts the merge first), and a closed row is neither reopened
 * into it nor merged again. plan/issue-outcomes.ts keeps the state where an outcome would take one.
 */
const issueRowNoWayBack: Partial<Record<IssueRowState, readonly IssueRowState[]>> = {
  merged: beforeMerge,
  closed: [...beforeMerge, 'merged'],
};

export const canTransitionIssue = (from: IssueRowState, to: IssueRowState): boolean =>
  !(issueRowNoWayBack[from] ?? []).includes(to);

/** States in which a worker holds a slot. */
export const inFlightIssueStates: readonly RunIssueState[] = ['dispatched', 'working'];
/** States between a pushed branch and a merge: the integration pipeline. */
export const integratingIssueStates: readonly RunIssueState[] = ['pushed', 'pr_open', 'reviewed'];

/** What the integration review of a run's merged work concluded (snapshot.ts keeps the last one). */
export type IntegrationReviewVerdict = 'clean' | 'minor' | 'blocking' | 'unclear' | 'no_review';

/** Which kind of step wrote a run's `progress.reason` (plan/run-reason.ts). */
export type RunReasonKind = 'stop' | 'park' | 'hard_blocker' | 'review_unclear' | 'start_failed';
