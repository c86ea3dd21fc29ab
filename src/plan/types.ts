// Plain input types of the planner: the orchestrator maps forge issues into these, so that
// src/plan/ never sees a forge, a store or a clock. Issues are addressed by key `owner/repo#n`.
import type { IssueRef } from '../forges/types.ts';

/** `owner/repo#n`: one string so that cross-repo blockers are keys like any other. */
export type IssueKey = string;

export interface PlanLabel {
  name: string;
  description?: string;
}

export interface PlanIssue {
  /** `owner/repo`. */
  repo: string;
  number: number;
  title: string;
  body: string;
  labels: PlanLabel[];
  state: 'open' | 'closed';
  milestone?: string;
  /** The author has write permission or more (the orchestrator asks the forge). */
  authorTrusted: boolean;
  /** ISO-8601; only compared, never parsed against a clock. */
  createdAt: string;
  /** Keys of the issues this one is blocked by (may live in other repos). */
  blockedBy: IssueKey[];
  /** Sub-issue parent, where the forge has sub-issues. */
  parent?: IssueKey;
  /** Sub-issues, where the forge has them. */
  children: IssueKey[];
}

/** A blocker named by an issue but not itself in the issue list: what the forge could read of it. */
export interface ExternalBlocker {
  key: IssueKey;
  state: 'open' | 'closed' | 'unknown';
  title?: string;
}

export const issueKey = (repo: string, number: number): IssueKey => `${repo}#${number}`;

/** `#n` of an issue key (`owner/name#n`), as comments and dashboards name it. */
export const issueRef = (key: IssueKey): string => `#${key.slice(key.lastIndexOf('#') + 1)}`;

/** The issue an `owner/name#n` key names. */
export const refOf = (key: IssueKey): IssueRef => {
  const at = key.lastIndexOf('#');
  const [owner, name] = key.slice(0, at).split('/');
  return { repo: { owner: owner ?? '', name: name ?? '' }, number: Number(key.slice(at + 1)) };
};

export const keyOf = (issue: Pick<PlanIssue, 'repo' | 'number'>): IssueKey =>
  issueKey(issue.repo, issue.number);

export const hasLabel = (issue: Pick<PlanIssue, 'labels'>, name: string): boolean => {
  const wanted = name.toLowerCase();
  return issue.labels.some((l) => l.name.toLowerCase() === wanted);
};

/** Label names the planner reads; one place so that the README and the code agree. */
export const planLabels = {
  hold: 'hold',
  approved: 'blitz/approved',
  planApproved: 'plan/approved',
} as const;
