// The one mapping from a state name to the words a person reads (comments, the dashboard, replies,
// notifications): `review_unclear`, `pr_open` or `environment_failure` are names for code, the API and
// the logs, never for a sentence. Every text for people that names a state goes through here.
import type { NoticeEvent } from '../ship/notice.ts';
import type { AttentionState } from '../status/attention.ts';
import type { AttemptOutcome } from './routing.ts';
import type { IntegrationReviewVerdict, RunIssueState, RunState } from './states.ts';

const runWords: Record<RunState, string> = {
  planning: 'planning',
  running: 'running',
  integrating: 'integrating',
  gating: 'checking readiness',
  shipping: 'shipping',
  done: 'finished',
  paused: 'paused',
  blocked: 'blocked',
  review_unclear: 'waiting on an unclear integration review',
  cancelled: 'cancelled',
};

const issueWords: Record<RunIssueState, string> = {
  blocked: 'blocked',
  ready: 'ready',
  dispatched: 'dispatched',
  working: 'working',
  pushed: 'pushed',
  pr_open: 'PR open',
  reviewed: 'reviewed',
  merged: 'merged',
  closed: 'closed',
  failed: 'failed',
  stalled: 'stalled',
  bounced: 'bounced',
  held: 'held',
};

const attentionTable: Record<AttentionState, string> = {
  parked: 'parked',
  blocked: 'blocked',
  needs_person: 'needs a person',
  review_unclear: 'integration review unclear',
};

const outcomeWords: Record<AttemptOutcome, string> = {
  solved: 'solved',
  unsolved: 'unsolved',
  environment_failure: 'an environment failure',
  stalled: 'stalled',
  cancelled: 'cancelled',
};

const verdictWords: Record<IntegrationReviewVerdict, string> = {
  clean: 'clean',
  minor: 'minor',
  blocking: 'blocking',
  unclear: 'unclear',
  no_review: 'no review',
};

const eventTable: Record<NoticeEvent, string> = {
  started: 'started',
  parked: 'parked',
  blocked: 'blocked',
  needs_person: 'needs a person',
  shipped: 'shipped',
  failed: 'failed',
  review_unclear: 'integration review unclear',
  warning: 'warning',
  test: 'test',
};

/** A name the tables do not know (a newer state, stored data) in words all the same: never snake_case. */
const fallback = (name: string): string => name.replace(/_/g, ' ');

const wordsOf =
  <K extends string>(table: Record<K, string>) =>
  (name: K | string): string =>
    Object.hasOwn(table, name) ? table[name as K] : fallback(String(name));

/** A run's state: `done` → "finished", `review_unclear` → "waiting on an unclear integration review". */
export const runStateWords = wordsOf(runWords);
/** An issue's state in a run: `pr_open` → "PR open". */
export const issueStateWords = wordsOf(issueWords);
/** What a run waits on a person for: `needs_person` → "needs a person". */
export const attentionStateWords = wordsOf(attentionTable);
/** How an attempt ended: `environment_failure` → "an environment failure". */
export const outcomeStateWords = wordsOf(outcomeWords);
/** What an integration review said: `no_review` → "no review". */
export const verdictStateWords = wordsOf(verdictWords);

/**
 * A state name from any of the run, issue and attention tables, for a place that shows them alike (the
 * status page's badges): `pr_open` → "PR open", `review_unclear` → "waiting on an unclear integration review".
 */
export const anyStateWords = (name: string): string =>
  Object.hasOwn(runWords, name)
    ? runWords[name as RunState]
    : Object.hasOwn(issueWords, name)
      ? issueWords[name as RunIssueState]
      : attentionStateWords(name);

/** A notification's event: `needs_person` → "needs a person". */
export const noticeEventWords = wordsOf(eventTable);

/** Every table, for the test that renders each name and finds no snake_case left. */
export const stateWordTables = {
  run: runWords,
  issue: issueWords,
  attention: attentionTable,
  outcome: outcomeWords,
  verdict: verdictWords,
  event: eventTable,
} as const;
