// Which open milestone issues a bug a worker reported out of scope blocks, once it is filed (seed 000
// §3.6; filed by orchestrator/file-findings.ts). The report is the worker's words: only its STATUS
// keyword (the template's `done | partial | blocked`, runner/final-report.ts) and a `blocks #n` that
// names an open issue of the milestone count.
import type { AttemptRecord } from '../runner/types.ts';

export type ReportStatus = 'done' | 'partial' | 'blocked';

/** The STATUS keyword a FINAL REPORT opens with; undefined for anything else. */
export const reportStatusOf = (status: string | undefined): ReportStatus | undefined => {
  const word = /^\s*(done|partial|blocked)\b/i.exec(status ?? '')?.[1]?.toLowerCase();
  return word === 'done' || word === 'partial' || word === 'blocked' ? word : undefined;
};

/** Issue numbers a bug line says it blocks ("blocks #12", "blocking #3 and #4"), among `open` only. */
export const blockedNumbersOf = (bug: string, open: ReadonlySet<number>): number[] => {
  const out = new Set<number>();
  for (const m of bug.matchAll(/\bblock(?:s|ing)\s+((?:#\d+(?:\s*(?:,|and|&)\s*)?)+)/gi))
    for (const n of m[1]!.matchAll(/#(\d+)/g)) if (open.has(Number(n[1]))) out.add(Number(n[1]));
  return [...out].sort((a, b) => a - b);
};

/**
 * The open issues a filed bug blocks: those its line names, and the worker's own issue when the worker
 * stopped blocked (ended, not solved, STATUS `blocked`).
 */
export const bugBlocks = (
  bug: string,
  a: Pick<AttemptRecord, 'outcome' | 'finalReport' | 'issue'>,
  open: ReadonlySet<number>,
): number[] => {
  const blocks = new Set(blockedNumbersOf(bug, open));
  const stoppedBlocked =
    a.outcome !== undefined && a.outcome !== 'solved' && reportStatusOf(a.finalReport?.status) === 'blocked';
  if (stoppedBlocked && open.has(a.issue.number)) blocks.add(a.issue.number);
  return [...blocks];
};
