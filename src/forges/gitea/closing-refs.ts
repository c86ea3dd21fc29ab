// The issues a pull request says it closes, read the way Gitea reads them: a closing keyword
// (close/closes/closed, fix/fixes/fixed, resolve/resolves/resolved) followed by `#n` or
// `owner/repo#n`. Pure, so it is tested on its own.
import type { IssueRef, RepoRef } from '../types.ts';

const pattern =
  /(?:^|[\s(])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+((?:[\w.-]+\/[\w.-]+)?#\d+(?:\s*,\s*(?:[\w.-]+\/[\w.-]+)?#\d+)*)/gi;

/** Distinct refs in first-seen order; code spans and fenced blocks are ignored. */
export const closingRefs = (texts: string[], repo: RepoRef): IssueRef[] => {
  const seen = new Set<string>();
  const out: IssueRef[] = [];
  for (const text of texts) {
    const prose = text.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`\n]*`/g, ' ');
    for (const m of prose.matchAll(pattern)) {
      for (const one of m[1]!.split(',')) {
        const r = /^(?:([\w.-]+)\/([\w.-]+))?#(\d+)$/.exec(one.trim());
        if (!r) continue;
        const ref = { repo: r[1] && r[2] ? { owner: r[1], name: r[2] } : repo, number: Number(r[3]) };
        const key = `${ref.repo.owner.toLowerCase()}/${ref.repo.name.toLowerCase()}#${ref.number}`;
        if (!seen.has(key)) {
          seen.add(key);
          out.push(ref);
        }
      }
    }
  }
  return out;
};
