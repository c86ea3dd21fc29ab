// The runner agent's attempt ledger: a JSON file on the runner host (so its supervisor re-attaches
// after a restart) that also reports every create and update to the bot, with a sequence number
// that grows per attempt across restarts, under the job the attempt belongs to.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { JobRef } from '../queue/types.ts';
import { JsonFileAttemptLedger } from '../runner/ledger.ts';
import type { AttemptLedger, AttemptRecord, IssueRefData } from '../runner/types.ts';
import { readWorkerFile } from '../runner/worker-files.ts';
import type { OutboxEntry } from './outbox.ts';
import { attemptResultOf, LOG_EXCERPT_CHARS } from './schema.ts';

/** The last LOG_EXCERPT_CHARS bytes of a failed attempt's log, for the bot to show; else undefined. */
const failedLogTail = (r: AttemptRecord): string | undefined => {
  if (r.outcome === undefined || r.outcome === 'solved' || !r.logPath) return undefined;
  // The worker wrote the log: read it never through a link, only as a regular file (worker-files.ts).
  return readWorkerFile(r.logPath, LOG_EXCERPT_CHARS) || undefined;
};

const jobsFileSchema = z.record(z.string(), z.object({ queue: z.string(), id: z.string() }));

export const issueKey = (runId: string, issue: IssueRefData): string =>
  `${runId}|${issue.repo.owner}/${issue.repo.name}#${issue.number}`;

export class ReportingLedger extends JsonFileAttemptLedger implements AttemptLedger {
  /** The job an issue's attempts are started under, set by the agent before it executes the job. */
  readonly jobOfIssue = new Map<string, JobRef>();
  /** The job each attempt reported under: what `started` named, and what later reports repeat. */
  readonly jobOfAttempt = new Map<string, JobRef>();
  private readonly lastSeq = new Map<string, number>();

  constructor(
    file: string,
    private readonly report: (entry: OutboxEntry) => void,
    /** Where the attempt → job map is kept, so a restarted agent knows which jobs it held. */
    private readonly jobsFile = `${file}.jobs.json`,
  ) {
    super(file);
    if (existsSync(jobsFile)) {
      const parsed = jobsFileSchema.safeParse(JSON.parse(readFileSync(jobsFile, 'utf8')));
      for (const [id, job] of Object.entries(parsed.success ? parsed.data : {}))
        this.jobOfAttempt.set(id, job);
    }
  }

  override async create(record: AttemptRecord): Promise<void> {
    await super.create(record);
    const job = this.jobOfIssue.get(issueKey(record.runId, record.issue));
    if (!job) return;
    this.jobOfAttempt.set(record.id, job);
    const tmp = `${this.jobsFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.jobOfAttempt)));
    renameSync(tmp, this.jobsFile);
    this.send('started', job, record);
  }

  override async update(id: string, patch: Partial<Omit<AttemptRecord, 'id'>>): Promise<AttemptRecord> {
    const next = await super.update(id, patch);
    const job = this.jobOfAttempt.get(id);
    if (job) this.send('progress', job, next);
    return next;
  }

  /** Attempts started under `job` that have no outcome yet. */
  async openUnder(job: JobRef): Promise<AttemptRecord[]> {
    const ids = [...this.jobOfAttempt].filter(([, j]) => j.id === job.id && j.queue === job.queue);
    const open: AttemptRecord[] = [];
    for (const [id] of ids) {
      const r = await this.get(id);
      if (r && r.outcome === undefined) open.push(r);
    }
    return open;
  }

  attemptsUnder(job: JobRef): string[] {
    return [...this.jobOfAttempt]
      .filter(([, j]) => j.id === job.id && j.queue === job.queue)
      .map(([id]) => id);
  }

  // Wall-clock milliseconds, and never less than the previous one + 1: larger than any report sent
  // before a restart of this process, so the bot applies the newest state and ignores older ones.
  private seq(id: string): number {
    const s = Math.max(Date.now(), (this.lastSeq.get(id) ?? 0) + 1);
    this.lastSeq.set(id, s);
    return s;
  }

  private send(kind: 'started' | 'progress', job: JobRef, attempt: AttemptRecord): void {
    // Results only: the bot builds the attempt from the job it stored (see hub.ts).
    const result = attemptResultOf(attempt);
    const excerpt = failedLogTail(attempt);
    const body = {
      kind,
      job,
      seq: this.seq(attempt.id),
      attempt: excerpt ? { ...result, logExcerpt: excerpt } : result,
    };
    this.report({ path: 'reports', body });
  }
}
