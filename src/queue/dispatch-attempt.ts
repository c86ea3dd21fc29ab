// The one dispatch path of every run kind: an attempt goes to the job queue with the write that
// records it (dispatcher.ts), unless the ledger, read again now, shows the issue already has a live
// worker (another replica, or a pass that raced this one): no twin is ever started.
import type { Logger } from '../observability/logger.ts';
import { attemptKey, liveAttempt } from '../plan/issue-progress.ts';
import type { IssueKey } from '../plan/types.ts';
import type { AttemptLedger } from '../runner/types.ts';
import type { AttemptJob, Dispatcher, DispatchWrites } from './dispatcher.ts';

export interface DispatchPorts {
  ledger: Pick<AttemptLedger, 'listByRun'>;
  dispatcher: Pick<Dispatcher, 'attempt'>;
  logger: Logger;
}

export interface AttemptOrder {
  runId: string;
  issue: IssueKey;
  /** The issue's dispatch count with this one (the queue's twin key is `run:issue:attemptNo`). */
  attemptNo: number;
  /** Builds the job; called only once no live worker holds the issue. */
  job: () => Promise<AttemptJob>;
  /** The run's record of the dispatch, written with the job (one transaction on PostgreSQL). */
  record: (w: DispatchWrites) => Promise<unknown>;
}

/** Sends the attempt with its record; false when nothing was sent (a live worker, or a twin dispatch). */
export const dispatchAttempt = async (deps: DispatchPorts, o: AttemptOrder): Promise<boolean> => {
  const fresh = (await deps.ledger.listByRun(o.runId)).filter((x) => attemptKey(x) === o.issue);
  if (liveAttempt(fresh)) return false;
  const job = await o.job();
  if (!(await deps.dispatcher.attempt(job, o.attemptNo, o.record))) return false;
  deps.logger.info(
    { runId: o.runId, issue: o.issue, entry: job.entry.name, attempt: o.attemptNo, runSlug: job.runSlug },
    'issue dispatched',
  );
  return true;
};
