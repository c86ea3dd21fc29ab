// Dependencies an issue declares in its own text ("Blocked by #12", "Depends on owner/repo#3",
// "blocked-by: #4, #5"). Gitea's dependency API silently drops blockers that do not exist or cannot be
// read, so the body is a second source both adapters merge into `blockedBy`; pure, no IO.
import type { IssueRef, RepoRef } from './types.ts';

// A declaration starts its line (after an optional list marker) so that prose such as "this is not
// blocked by #3 any more" in the middle of a sentence does not hold an issue.
const declaration =
  /^(?:[-*+]\s+(?:\[[ xX]\]\s+)?)?(?:\*\*|__)?(blocked[ -]by|depends[ -]on)(?:\*\*|__)?\s*:?\s*(.+)$/i;
const ref = /^(?:([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+))?#(\d+)$/;
const fence = /^\s{0,3}(`{3,}|~{3,})/;

/** Removes inline code spans so a ref quoted as code (`#12`) is not read as a dependency. */
const withoutInlineCode = (line: string): string => line.replace(/(`+)[\s\S]*?\1/g, ' ');

/** The refs named by one declaration's tail: `#4, #5 and owner/repo#3`; stops at the first word that is not a ref. */
const refsOf = (tail: string, home: RepoRef): IssueRef[] => {
  const out: IssueRef[] = [];
  for (const raw of tail.split(/[\s,;]+/)) {
    const word = raw.replace(/[.)]+$/, '');
    if (word === '' || /^(and|&)$/i.test(word)) continue;
    const m = ref.exec(word);
    if (!m) break;
    const number = Number(m[3]);
    if (!Number.isSafeInteger(number) || number <= 0) continue;
    out.push({ repo: m[1] && m[2] ? { owner: m[1], name: m[2] } : home, number });
  }
  return out;
};

/**
 * Blockers declared in `body`, in order, each once. `home` is the issue's own repo (for bare `#n`).
 * Lines inside fenced code blocks and quoted lines (`>`) are ignored: they show text, they do not declare.
 */
export const parseBodyDeps = (body: string, home: RepoRef): IssueRef[] => {
  const out: IssueRef[] = [];
  const seen = new Set<string>();
  let open: string | undefined;
  for (const line of body.split(/\r?\n/)) {
    const f = fence.exec(line);
    if (f) {
      const mark = f[1]!;
      if (open === undefined) open = mark;
      else if (mark[0] === open[0] && mark.length >= open.length) open = undefined;
      continue;
    }
    if (open !== undefined) continue;
    const text = line.trim();
    if (text.startsWith('>')) continue;
    const m = declaration.exec(withoutInlineCode(text).trim());
    if (!m) continue;
    for (const r of refsOf(m[2]!, home)) {
      const key = `${r.repo.owner.toLowerCase()}/${r.repo.name.toLowerCase()}#${r.number}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(r);
    }
  }
  return out;
};
