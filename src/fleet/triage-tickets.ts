// Triage of `/ticket-fleet` refs (seed 004 step 1): every ref is resolved in the repo it names (any
// repo the installation reaches); one it cannot reach, or one the planner skips (plan/triage.ts
// `ticketSkipReason`: a pull request, closed, locked, named twice, an epic, in another live fleet, over
// the size limit, needing production access, several repos or a person's judgment), is named with its
// reason, as is one the sender may not write to. What is left runs; the reply lists both.
import type { TicketRef } from '../commands/schema.ts';
import { MAX_FLEET_REFS } from '../commands/schema.ts';
import { isAppError } from '../errors.ts';
import { formatIssueRef, formatRepo, type Issue, type RepoRef } from '../forges/types.ts';
import { issueContentHash } from '../intake/content-hash.ts';
import type { FleetTicket } from '../plan/fleet-progress.ts';
import { toTicketIssue } from '../plan/plan-input.ts';
import { ticketSkipReason } from '../plan/triage.ts';
import { issueKey } from '../plan/types.ts';

export interface TriageResult {
  /**
   * `approvedHash`: a ticket named by number is approved by the writer who named it, at the text
   * read now (its content hash); one selected by `label:` carries none (its author's permission or a
   * writer's `blitz/approved` decides).
   */
  run: (FleetTicket & { title: string; approvedHash?: string })[];
  skipped: { ticket: string; reason: string }[];
}

export interface TriageInput {
  home: RepoRef;
  refs: readonly TicketRef[];
  labels: readonly string[];
  /** Reads one issue in its own repo (the forge of that repo). */
  getIssue(repo: RepoRef, number: number): Promise<Issue>;
  listLabelled(repo: RepoRef, label: string): Promise<Issue[]>;
  /** Whether the person who asked may write in that repo (the fleet opens PRs there). */
  canWrite(repo: RepoRef): Promise<boolean>;
  /** Keys of tickets already in a live fleet, with where (for the reason). */
  inOtherFleet: Map<string, string>;
  /** The host of the forge, to refuse a URL ref that names another one. */
  host?: string;
}

const unreachable = (err: unknown): boolean =>
  isAppError(err, 'not_found') || isAppError(err, 'forbidden') || isAppError(err, 'unauthorized');

export const triageTickets = async (input: TriageInput): Promise<TriageResult> => {
  const out: TriageResult = { run: [], skipped: [] };
  const seen = new Set<string>();
  const candidates: { label: string; named: boolean; load: () => Promise<Issue | undefined> }[] = [];
  for (const r of input.refs) {
    const repo = { owner: r.owner ?? input.home.owner, name: r.repo ?? input.home.name };
    const label = formatIssueRef({ repo, number: r.number }, input.home);
    if (
      r.host !== undefined &&
      input.host !== undefined &&
      r.host.toLowerCase() !== input.host.toLowerCase()
    ) {
      out.skipped.push({ ticket: label, reason: `it is on another forge (${r.host})` });
      continue;
    }
    candidates.push({ label, named: true, load: () => input.getIssue(repo, r.number) });
  }
  for (const name of input.labels) {
    let issues: Issue[];
    try {
      issues = await input.listLabelled(input.home, name);
    } catch (err) {
      if (!unreachable(err)) throw err;
      out.skipped.push({ ticket: `label:${name}`, reason: 'the bot cannot list issues with that label' });
      continue;
    }
    if (issues.length === 0)
      out.skipped.push({ ticket: `label:${name}`, reason: 'no open issue has that label' });
    for (const i of issues)
      candidates.push({ label: formatIssueRef(i.ref, input.home), named: false, load: async () => i });
  }
  for (const c of candidates) {
    let issue: Issue | undefined;
    try {
      issue = await c.load();
    } catch (err) {
      if (!unreachable(err)) throw err;
      out.skipped.push({
        ticket: c.label,
        reason: 'the bot cannot reach it (no such issue, or a repo it is not installed on)',
      });
      continue;
    }
    if (!issue) continue;
    const key = issueKey(formatRepo(issue.ref.repo), issue.ref.number);
    const other = input.inOtherFleet.get(key.toLowerCase());
    const why = ticketSkipReason({
      ticket: toTicketIssue(issue),
      isPullRequest: issue.isPullRequest,
      locked: issue.locked,
      namedBefore: seen.has(key.toLowerCase()),
      ...(other ? { otherFleet: other } : {}),
      accepted: out.run.length,
      maxTickets: MAX_FLEET_REFS,
    });
    seen.add(key.toLowerCase());
    const denied =
      !why && !(await input.canWrite(issue.ref.repo))
        ? `you need write permission on ${formatRepo(issue.ref.repo)} to run it`
        : undefined;
    if (why || denied) out.skipped.push({ ticket: c.label, reason: (why ?? denied)! });
    else
      out.run.push({
        repo: formatRepo(issue.ref.repo),
        number: issue.ref.number,
        title: issue.title,
        ...(c.named ? { approvedHash: issueContentHash(issue.title, issue.body) } : {}),
      });
  }
  return out;
};
