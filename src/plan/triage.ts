// Ticket-fleet triage (seed 004): only well-scoped, self-contained tickets run unattended. A ticket
// that needs production access, edits in another repository, or a person's judgment mid-flight is
// skipped with the reason; mechanical tickets go first (they validate the pipeline cheaply), and
// tickets of a repo with another session active go last.
import { isEpic } from './epics.ts';
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

/** What triage knows of a named ticket besides its text. */
export interface TicketFacts {
  ticket: PlanIssue;
  isPullRequest: boolean;
  locked: boolean;
  /** The same ticket was named earlier in the command. */
  namedBefore: boolean;
  /** Where the ticket already runs in another live fleet (`owner/repo#n`), if it does. */
  otherFleet?: string;
  /** Tickets this triage has let in so far, and how many a fleet takes. */
  accepted: number;
  maxTickets: number;
}

/** Why a ticket is skipped, in words; undefined when it runs (the sender's permission is checked after). */
export const ticketSkipReason = (t: TicketFacts): string | undefined => {
  if (t.namedBefore) return 'it is named twice; it runs once';
  if (t.isPullRequest) return 'it is a pull request, not an issue';
  if (t.ticket.state === 'closed') return 'it is closed';
  if (t.locked) return 'it is locked';
  if (t.otherFleet) return `it is already in the fleet on ${t.otherFleet}`;
  if (isEpic(t.ticket, 0)) return 'it is an epic (a tracking issue); name its children instead';
  const v = triageTicket(t.ticket);
  if (!v.run) return v.reason;
  if (t.accepted >= t.maxTickets) return `a fleet runs at most ${t.maxTickets} tickets`;
  return undefined;
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
