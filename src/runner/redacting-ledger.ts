// The attempt ledger with what a worker wrote redacted on the way in: its FINAL REPORT and the failure
// summary cut from its log tail reach the status pages, report.html and (relayed) comments, so no
// secret the worker printed may be stored. Reads pass through unchanged.
import { type Redact, redactDeep } from '../observability/redact.ts';
import type { AttemptLedger, AttemptRecord } from './types.ts';

const cleanPatch = <T extends Partial<AttemptRecord>>(patch: T, redact: Redact): T => ({
  ...patch,
  ...(patch.finalReport ? { finalReport: redactDeep(patch.finalReport, redact) } : {}),
  ...(patch.failureSummary !== undefined ? { failureSummary: redact(patch.failureSummary) } : {}),
  ...(patch.logExcerpt !== undefined ? { logExcerpt: redact(patch.logExcerpt) } : {}),
});

export const redactingLedger = (ledger: AttemptLedger, redact: Redact): AttemptLedger => ({
  create: (record) => ledger.create(cleanPatch(record, redact)),
  update: (id, patch) => ledger.update(id, cleanPatch(patch, redact)),
  get: (id) => ledger.get(id),
  listByRun: (runId) => ledger.listByRun(runId),
  listByIssue: (issue) => ledger.listByIssue(issue),
  listOpen: () => ledger.listOpen(),
  totalsByIssue: (issue) => ledger.totalsByIssue(issue),
  totalsByRun: (runId) => ledger.totalsByRun(runId),
});
