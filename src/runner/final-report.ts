// The FINAL REPORT block every worker ends with (seed 004): the runner reads PR, TESTS, REVIEW,
// UNCERTAINTIES, OUT-OF-SCOPE BUGS and STATUS out of the log, plain text or claude stream JSON.
import { agentText } from './agent-output.ts';

export interface FinalReport {
  pr?: string;
  tests?: string;
  review?: string;
  uncertainties: string[];
  outOfScopeBugs: string[];
  status?: string;
}

export const finalReportTemplate = `FINAL REPORT
PR: <PR URL, or "none — branch committed">
TESTS: <the commands you ran and their result>
REVIEW: <what your own review of the diff found, or "none">
UNCERTAINTIES:
- <each decision a person should confirm; "none" if there are none>
OUT-OF-SCOPE BUGS:
- <each real bug you noticed outside this issue, one line each; "none" if there are none>
STATUS: <done | partial | blocked> — <one line why>`;

const FIELDS = ['PR', 'TESTS', 'REVIEW', 'UNCERTAINTIES', 'OUT-OF-SCOPE BUGS', 'STATUS'] as const;
type Field = (typeof FIELDS)[number];
const fieldLine = new RegExp(`^\\s*(?:[-*]\\s*)?\\**(${FIELDS.join('|')})\\**\\s*:\\s*(.*)$`, 'i');

const listItems = (lines: string[]): string[] =>
  lines
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter((l) => l && !/^(none|n\/a|-)\.?$/i.test(l));

/** Parses the last FINAL REPORT in a log; undefined when the worker never wrote one. */
export const parseFinalReport = (log: string): FinalReport | undefined => {
  const text = agentText(log);
  const at = text.lastIndexOf('FINAL REPORT');
  if (at < 0) return undefined;
  const lines = text.slice(at + 'FINAL REPORT'.length).split('\n');
  const blocks = new Map<Field, string[]>();
  let current: Field | undefined;
  for (const line of lines) {
    const m = fieldLine.exec(line);
    if (m) {
      current = FIELDS.find((f) => f === m[1]!.toUpperCase());
      if (current) blocks.set(current, m[2]!.trim() ? [m[2]!.trim()] : []);
      continue;
    }
    if (current === 'STATUS' && !line.trim()) break;
    if (current) blocks.get(current)!.push(line);
  }
  if (blocks.size === 0) return undefined;
  const one = (f: Field): string | undefined => {
    const v = blocks
      .get(f)
      ?.map((l) => l.trim())
      .filter(Boolean)
      .join(' ');
    return v || undefined;
  };
  return {
    pr: one('PR'),
    tests: one('TESTS'),
    review: one('REVIEW'),
    uncertainties: listItems(blocks.get('UNCERTAINTIES') ?? []),
    outOfScopeBugs: listItems(blocks.get('OUT-OF-SCOPE BUGS') ?? []),
    status: one('STATUS'),
  };
};
