// Which merge broke a red build: build at each covered merge in merge order; the first red one is
// responsible. Pure and stepwise: given what the builds said so far, the next build to run or the
// answer. orchestrator/run-effects.ts runs the builds.
import type { IssueKey } from './types.ts';

export type BlameStep =
  | { kind: 'build_at'; sha: string }
  /** Undefined `responsible`: no merge could be named (every one built green, or none has a commit). */
  | { kind: 'found'; responsible?: IssueKey };

/**
 * `covers`: the merged issues the red build ran over, in merge order, with their merge commits.
 * `red`: what the builds so far said at each commit (true: red).
 */
export const blameStep = (
  covers: readonly { key: IssueKey; sha?: string }[],
  red: ReadonlyMap<string, boolean>,
): BlameStep => {
  // One merge (or none): it is the one, no build needed.
  if (covers.length <= 1) return { kind: 'found', ...(covers[0] ? { responsible: covers[0].key } : {}) };
  for (const c of covers) {
    if (c.sha === undefined) continue;
    const r = red.get(c.sha);
    if (r === undefined) return { kind: 'build_at', sha: c.sha };
    if (r) return { kind: 'found', responsible: c.key };
  }
  return { kind: 'found' };
};
