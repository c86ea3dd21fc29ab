// A restarted runner agent takes back the jobs it held: those whose attempts are still open in its
// local ledger. Still held (or the bot unreachable: the heartbeats tell later), they are
// supervised again — the worker may have run on without the agent; lost to another runner
// meanwhile, the local copy of the work is cancelled so the issue is not worked twice.
import type { Logger } from '../observability/logger.ts';
import type { JobRef } from '../queue/types.ts';
import type { Runner } from '../runner/runner.ts';
import type { RunnerJob } from '../runner/types.ts';
import type { RunnerClient } from './client.ts';
import { issueKey, type ReportingLedger } from './reporting-ledger.ts';
import { claimResponseSchema } from './schema.ts';

/** A job this agent holds the lease of. */
export interface Held {
  ref: JobRef;
  job: RunnerJob;
  heartbeatMs: number;
  lastBeat: number;
  settling: boolean;
}

/** Three heartbeats per lease, between 0.2 s and 10 s apart. */
export const heartbeatMsFor = (leaseSeconds: number): number =>
  Math.max(200, Math.min(10_000, (leaseSeconds * 1000) / 3));

export const resumeHeldJobs = async (d: {
  ledger: ReportingLedger;
  client: RunnerClient;
  runner: Runner;
  logger: Logger;
}): Promise<Held[]> => {
  const byJob = new Map<string, { ref: JobRef; open: string[]; local: RunnerJob }>();
  for (const r of await d.ledger.listOpen()) {
    const ref = d.ledger.jobOfAttempt.get(r.id);
    if (!ref) continue;
    const key = `${ref.queue}|${ref.id}`;
    const entry = byJob.get(key) ?? { ref, open: [], local: r.job };
    entry.open.push(r.id);
    byJob.set(key, entry);
  }
  const held: Held[] = [];
  for (const { ref, open, local } of byJob.values()) {
    const res = await d.client.post('claim', { job: ref });
    if (res.kind !== 'refused') {
      const claimed = res.kind === 'delivered' ? claimResponseSchema.parse(res.body).job : null;
      held.push({
        ref,
        job: local,
        heartbeatMs: heartbeatMsFor(claimed?.leaseSeconds ?? 30),
        lastBeat: Date.now(),
        settling: false,
      });
      if (local.kind === 'attempt') d.ledger.jobOfIssue.set(issueKey(local.runId, local.issue), ref);
      d.logger.info({ job: ref, attempts: open }, 'resumed a job held before the restart');
      continue;
    }
    d.logger.warn({ job: ref, attempts: open }, 'a job held before the restart is gone; cancelling its work');
    for (const id of open) await d.runner.execute({ kind: 'cancel', attemptId: id }).catch(() => undefined);
  }
  await d.runner.reattach();
  return held;
};
