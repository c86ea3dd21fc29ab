// Pure: the forge's milestone snapshot mapped into the planner's plain issue types. Trust (author has
// write permission) comes in as a map, looked up by the caller, because it costs a forge call per author.
import type { BlockerState, Issue, IssueRef, MilestoneIssue, MilestoneSnapshot } from '../forges/types.ts';
import type { ExternalBlocker, IssueKey, PlanIssue } from './types.ts';
import { issueKey, planLabels } from './types.ts';

export const keyOfRef = (ref: IssueRef): IssueKey =>
  issueKey(`${ref.repo.owner}/${ref.repo.name}`, ref.number);

export const toPlanIssue = (i: MilestoneIssue, trusted: boolean): PlanIssue => ({
  repo: `${i.ref.repo.owner}/${i.ref.repo.name}`,
  number: i.ref.number,
  title: i.title,
  body: i.body,
  labels: i.labels.map((l) => ({ name: l.name, ...(l.description ? { description: l.description } : {}) })),
  state: i.state,
  ...(i.milestone ? { milestone: i.milestone.title } : {}),
  authorTrusted: trusted,
  createdAt: i.createdAt,
  blockedBy: i.blockedBy.map(keyOfRef),
  ...(i.parent ? { parent: keyOfRef(i.parent) } : {}),
  children: i.children.map(keyOfRef),
});

export const toExternal = (b: BlockerState): ExternalBlocker => ({
  key: keyOfRef(b.ref),
  state: b.state,
  ...(b.title !== undefined ? { title: b.title } : {}),
});

export const planInput = (
  snap: MilestoneSnapshot,
  trusted: (author: string) => boolean,
): { issues: PlanIssue[]; external: ExternalBlocker[] } => {
  const issues = snap.issues.filter((i) => !i.isPullRequest).map((i) => toPlanIssue(i, trusted(i.author)));
  const inList = new Set(issues.map((i) => issueKey(i.repo, i.number)));
  const external = snap.externalBlockers.map(toExternal).filter((b) => !inList.has(b.key));
  return { issues, external };
};

/**
 * The planner's view of a ticket. `trusted` is decided by `ticketTrust` (fleet/load-fleet.ts: author or approval); the
 * `blitz/approved` label itself is dropped, so only a recorded approval can open the gate.
 */
export const toTicketIssue = (i: Issue, trusted = true): PlanIssue => ({
  repo: `${i.ref.repo.owner}/${i.ref.repo.name}`,
  number: i.ref.number,
  title: i.title,
  body: i.body,
  labels: i.labels.filter((l) => l.name !== planLabels.approved).map((l) => ({ name: l.name })),
  state: i.state,
  authorTrusted: trusted,
  createdAt: i.createdAt,
  blockedBy: [],
  children: [],
});
