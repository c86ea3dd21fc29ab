// What a dispatched issue is told of its blockers that merged in this run (seed 000's handoff): each
// one's title, the commit it merged as and its worker's FINAL REPORT (STATUS, TESTS). The runner adds
// the files each merge changed. Blockers outside the run, or not merged by it, are not handed off.

import type { AttemptRecord, Handoff } from '../runner/types.ts';
import type { RunGraphNode, RunIssueRecord } from '../store/run-store.ts';
import { issueAttempts } from './issue-progress.ts';
import { type IssueKey, type PlanIssue, refOf } from './types.ts';

const MAX_TITLE = 300;
const MAX_PART = 1500;

const cap = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const labelOf = (blocker: IssueKey, of: IssueKey): string => {
  const b = refOf(blocker);
  const o = refOf(of);
  const same = b.repo.owner === o.repo.owner && b.repo.name === o.repo.name;
  return same ? `#${b.number}` : `${b.repo.owner}/${b.repo.name}#${b.number}`;
};

const reportOf = (a: AttemptRecord | undefined): string | undefined => {
  const r = a?.finalReport;
  const parts = [
    ...(r?.status ? [`STATUS: ${cap(r.status, MAX_PART)}`] : []),
    ...(r?.tests ? [`TESTS: ${cap(r.tests, MAX_PART)}`] : []),
  ];
  return parts.length ? parts.join('\n') : undefined;
};

/**
 * `issues` holds the open issues only: a merged blocker is closed, so its title comes from the graph
 * the run keeps (the run's own repository), else it is handed off by number alone.
 */
export const handoffFor = (
  ctx: {
    issues: ReadonlyMap<IssueKey, PlanIssue>;
    rows: ReadonlyMap<string, RunIssueRecord>;
    attempts: readonly AttemptRecord[];
    run: { repo: string; progress: { graph?: readonly RunGraphNode[] } };
  },
  key: IssueKey,
): Handoff[] => {
  const out: Handoff[] = [];
  const titleOf = (blocker: IssueKey): string => {
    const b = refOf(blocker);
    const inRun = `${b.repo.owner}/${b.repo.name}`.toLowerCase() === ctx.run.repo.toLowerCase();
    const kept = inRun ? ctx.run.progress.graph?.find((g) => g.number === b.number)?.title : undefined;
    return ctx.issues.get(blocker)?.title ?? kept ?? '';
  };
  for (const blocker of ctx.issues.get(key)?.blockedBy ?? []) {
    const row = ctx.rows.get(blocker);
    if (!row?.mergedSha) continue;
    const solved = issueAttempts(ctx, blocker)
      .filter((a) => a.outcome === 'solved')
      .at(-1);
    const report = reportOf(solved);
    out.push({
      issue: labelOf(blocker, key),
      title: cap(titleOf(blocker), MAX_TITLE),
      ...(/^[0-9a-f]{7,64}$/.test(row.mergedSha) ? { mergedSha: row.mergedSha } : {}),
      ...(report ? { report } : {}),
    });
  }
  return out;
};
