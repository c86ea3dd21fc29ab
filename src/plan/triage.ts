// Ticket-fleet triage (seed 004): only well-scoped, self-contained tickets run unattended. A ticket
// that needs production access, edits in another repository, or a person's judgment mid-flight is
// skipped with the reason; mechanical tickets go first (they validate the pipeline cheaply), and
// tickets of a repo with another session active go last.
import { assessTier, tierRank } from './tier.ts';
import type { IssueKey, PlanIssue } from './types.ts';

export type TriageVerdict = { run: true } | { run: false; reason: string };

const production =
  /\b(production access|prod access|ssh (?:in)?to|on the prod(?:uction)? (?:box|server|host)|restart the service|live database)\b/i;
const judgment =
  /\b(ask (?:the user|me|us)|user'?s (?:call|decision|judgment)|needs? (?:a )?discussion|decide together|check with)\b/i;
const crossRepoWords = /\b(cross-repo|across repos|in both repos|every repo)\b/i;

export const triageTicket = (issue: PlanIssue): TriageVerdict => {
  const text = `${issue.title}\n${issue.body}`;
  const prod = production.exec(text);
  if (prod) return { run: false, reason: `it needs production access ("${prod[1]}")` };
  const ask = judgment.exec(text);
  if (ask) return { run: false, reason: `it needs a person's judgment mid-flight ("${ask[1]}")` };
  const cross = crossRepoWords.exec(text);
  if (cross) return { run: false, reason: `it asks for edits in more than one repository ("${cross[1]}")` };
  return { run: true };
};

/**
 * Fleet dispatch order: repos without another active session first, then mechanical (execution
 * tier) before harder tickets; ties keep the planner's order (`ordered`).
 */
export const fleetOrder = (
  issues: ReadonlyMap<IssueKey, PlanIssue>,
  ordered: readonly IssueKey[],
  busyRepos: ReadonlySet<string>,
): IssueKey[] => {
  const rank = new Map(ordered.map((k, i) => [k, i]));
  const tier = (k: IssueKey) => {
    const i = issues.get(k)!;
    return tierRank(assessTier(i.body, i.labels).tier);
  };
  const busy = (k: IssueKey) => (busyRepos.has(issues.get(k)!.repo) ? 1 : 0);
  return [...ordered].sort((a, b) => busy(a) - busy(b) || tier(a) - tier(b) || rank.get(a)! - rank.get(b)!);
};
