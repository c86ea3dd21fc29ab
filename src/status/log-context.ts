// The child logger that puts the run's id (and repository) on every line it writes, so one grep (or
// one Loki query) follows a run end to end. Bind once where the id is first known and pass the
// child down; never log with the root logger inside a run.
import type { Logger } from '../observability/logger.ts';

export const runLogger = (logger: Logger, run: { id: string; repo?: string }): Logger =>
  logger.child({ runId: run.id, ...(run.repo ? { repo: run.repo } : {}) });
