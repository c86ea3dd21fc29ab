// Child loggers that put the run, issue and attempt ids on every line they write, so one grep (or
// one Loki query) follows a run end to end. Bind once where the id is first known and pass the
// child down; never log with the root logger inside a run.
import type { Logger } from '../observability/logger.ts';
import type { AttemptRecord, IssueRefData } from '../runner/types.ts';

export const runLogger = (logger: Logger, run: { id: string; repo?: string }): Logger =>
  logger.child({ runId: run.id, ...(run.repo ? { repo: run.repo } : {}) });

export const issueLogger = (runLog: Logger, issue: IssueRefData | number): Logger =>
  runLog.child(
    typeof issue === 'number'
      ? { issue }
      : { issue: issue.number, issueRepo: `${issue.repo.owner}/${issue.repo.name}` },
  );

export const attemptLogger = (issueLog: Logger, attempt: Pick<AttemptRecord, 'id' | 'rosterEntry'>): Logger =>
  issueLog.child({ attemptId: attempt.id, rosterEntry: attempt.rosterEntry });
