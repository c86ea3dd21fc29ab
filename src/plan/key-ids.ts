// Issue key → integer id without hashing strings: a key `owner/repo#n` as keyOf makes it is found
// in its repository's table, indexed by issue number; only keys no table holds (numbers that are
// not plain positive integers, or far above the rest) go to a Map. buildGraph assigns the ids.
import type { IssueKey, PlanIssue } from './types.ts';

const hashSign = 35; // '#'
const zero = 48;

/** Numbers above 8 × the issue count + 4096 (and above this) go to the Map: the tables stay small. */
const largestIndexed = 1 << 20;

const plainNumber = (n: number): boolean => Number.isSafeInteger(n) && n > 0;

/**
 * The number written after position `from` of `k` when it is written as keyOf writes one (digits,
 * no leading zero) and is below `limit`; -1 otherwise.
 */
const numberAt = (k: string, from: number, limit: number): number => {
  if (from >= k.length || k.charCodeAt(from) === zero) return -1;
  let n = 0;
  for (let i = from; i < k.length; i++) {
    const d = k.charCodeAt(i) - zero;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
    if (n >= limit) return -1;
  }
  return n;
};

export class KeyIds {
  /** repo → id by issue number, -1 where there is no issue. */
  private readonly byNumber = new Map<string, Int32Array>();
  private readonly others = new Map<IssueKey, number>();
  private lastRepo = '';
  private lastTable: Int32Array | undefined;

  /** Sizes the tables for `issues` (the ids themselves are given by `claim`). */
  constructor(issues: readonly PlanIssue[]) {
    const bound = Math.min(largestIndexed, 8 * issues.length + 4096);
    const largest = new Map<string, number>();
    // Runs of one repository (the usual list) are measured without asking the Map per issue.
    let repo = '';
    let max = 0;
    for (const issue of issues) {
      if (issue.repo !== repo) {
        if (max > 0) largest.set(repo, max);
        repo = issue.repo;
        max = largest.get(repo) ?? 0;
      }
      const n = issue.number;
      if (plainNumber(n) && n <= bound && n > max) max = n;
    }
    if (max > 0) largest.set(repo, max);
    for (const [r, n] of largest) this.byNumber.set(r, new Int32Array(n + 1).fill(-1));
  }

  private tableOf(repo: string): Int32Array | undefined {
    if (repo !== this.lastRepo) {
      this.lastRepo = repo;
      this.lastTable = this.byNumber.get(repo);
    }
    return this.lastTable;
  }

  /** Where `issue`'s id lives: its table and number, or undefined for the Map. */
  private slot(issue: PlanIssue): Int32Array | undefined {
    if (!plainNumber(issue.number)) return undefined;
    const t = this.tableOf(issue.repo);
    return t && issue.number < t.length ? t : undefined;
  }

  /** Gives `issue` (whose key is `k`) the id `id` unless its key has one; returns the id it has. */
  claim(issue: PlanIssue, k: IssueKey, id: number): number {
    const t = this.slot(issue);
    const at = t ? t[issue.number]! : (this.others.get(k) ?? -1);
    if (at >= 0) return at;
    if (t) t[issue.number] = id;
    else this.others.set(k, id);
    return id;
  }

  /** Moves `issue` (whose key is `k`, already claimed) to the id `id`. */
  move(issue: PlanIssue, k: IssueKey, id: number): void {
    const t = this.slot(issue);
    if (t) t[issue.number] = id;
    else this.others.set(k, id);
  }

  /** The id of `k`, -1 when it is not an issue of the graph; `repo` is a guess at its repository. */
  idIn(k: IssueKey, repo: string): number {
    const r = repo.length;
    // indexOf at 0 is startsWith for these short keys, at ~60% of its cost in V8 (no RegExp check);
    // a slice compare is as quick but leaves a string behind per blocker for the collector.
    const prefixed = k.charCodeAt(r) === hashSign && k.indexOf(repo) === 0;
    if (prefixed) {
      const t = this.tableOf(repo);
      const n = t ? numberAt(k, r + 1, t.length) : -1;
      // A key keyOf could have made for a number below the table's end is in the table or nowhere.
      if (n > 0) return t![n]!;
    }
    const h = k.lastIndexOf('#');
    if (h < 0 || (prefixed && h === r)) return this.others.get(k) ?? -1;
    return this.idIn(k, k.slice(0, h));
  }

  get(k: IssueKey): number | undefined {
    const id = this.idIn(k, this.lastRepo);
    return id < 0 ? undefined : id;
  }

  has(k: IssueKey): boolean {
    return this.idIn(k, this.lastRepo) >= 0;
  }
}
