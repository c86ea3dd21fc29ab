// Retries go back to the queue (issue 14): an attempt that ended unsolved, the bot's own or a remote
// runner's, is retried as a new attempt job on the issue's queue, so any runner (the bot's own
// consumer or a remote one) may claim it. The job is the bot's stored job for that attempt with the
// retry count raised and the failure fed back: nothing a runner reported chooses what runs or where.
import type { Logger } from '../observability/logger.ts';
import type { Dispatcher } from '../queue/dispatcher.ts';
import type { AttemptJob, AttemptLedger, AttemptRecord } from '../runner/types.ts';
import { writeOutcome } from '../runs/run-writer.ts';

export interface RequeueDeps {
  dispatcher: Pick<Dispatcher, 'attempt'>;
  ledger: Pick<AttemptLedger, 'listByRun'>;
  /** How many times an unsolved attempt is retried (runner.retries). */
  retries: number;
  logger: Logger;
}

/** The retry of `r`: its stored job, one retry further, with its failure as feedback (and no base sha). */
export const retryJobOf = (r: AttemptRecord): AttemptJob => {
  // Not the first try's base sha: the base may have moved since, and the runner fetches for a retry.
  const { baseSha: _, ...job } = r.job;
  return {
    ...job,
    retry: r.job.retry + 1,
    ...(r.failureSummary ? { failureFeedback: r.failureSummary } : {}),
  };
};

/**
 * Enqueues the retry of an unsolved attempt, once: the dispatch key is the issue's next attempt
 * number, so a repeated call (a replayed report, two replicas) enqueues nothing more. False when no
 * retry is due or it was already enqueued.
 */
export const createRetryRequeue =
  (d: RequeueDeps) =>
  async (r: AttemptRecord): Promise<boolean> => {
    if (r.outcome !== 'unsolved' || r.job.retry >= d.retries) return false;
    const same = (await d.ledger.listByRun(r.runId)).filter(
      (a) =>
        a.issue.number === r.issue.number &&
        a.issue.repo.owner === r.issue.repo.owner &&
        a.issue.repo.name === r.issue.repo.name,
    );
    const attemptNo = same.length + 1;
    const at = { repo: `${r.issue.repo.owner}/${r.issue.repo.name}`, number: r.issue.number };
    const sent = await d.dispatcher.attempt(retryJobOf(r), attemptNo, (w) =>
      // No row is read: a retry follows an unsolved attempt, so its row is neither merged nor closed.
      writeOutcome(w, r.runId, at, undefined, { kind: 'dispatched', attempt: attemptNo }),
    );
    if (sent)
      d.logger.info(
        { attemptId: r.id, issue: r.issue.number, retry: r.job.retry + 1 },
        'unsolved attempt retried through the queue',
      );
    return sent;
  };
