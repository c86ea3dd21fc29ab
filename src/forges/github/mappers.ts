// GitHub payloads (octokit REST types, parsed GraphQL nodes) into the forge domain types. Nothing here
// calls the network; nothing GitHub-shaped leaves this folder.
import type { RestEndpointMethodTypes } from '@octokit/rest';
import type {
  Comment,
  Issue,
  IssueRef,
  Milestone,
  Permission,
  PullRequest,
  PullRequestFile,
  RepoRef,
} from '../types.ts';
import type { IssueLink } from './schema.ts';

type RestIssue = RestEndpointMethodTypes['issues']['get']['response']['data'];
type RestMilestone = RestEndpointMethodTypes['issues']['getMilestone']['response']['data'];
type RestComment = RestEndpointMethodTypes['issues']['getComment']['response']['data'];
type RestPull = RestEndpointMethodTypes['pulls']['get']['response']['data'];
type RestFile = RestEndpointMethodTypes['pulls']['listFiles']['response']['data'][number];

/** Where GitHub cannot show a blocker to the app, the ref lives in this placeholder repository. */
export const HIDDEN_REPO: RepoRef = { owner: '(hidden)', name: '(not readable by the app)' };

export const repoFromNameWithOwner = (nameWithOwner: string): RepoRef => {
  const [owner, name] = nameWithOwner.split('/');
  return { owner: owner!, name: name! };
};

export const refFromLink = (
  link: NonNullable<IssueLink> | { number: number; repository: { nameWithOwner: string } },
): IssueRef => ({
  repo: repoFromNameWithOwner(link.repository.nameWithOwner),
  number: link.number,
});

export const toMilestone = (m: RestMilestone): Milestone => ({
  number: m.number,
  title: m.title,
  description: m.description ?? '',
  state: m.state === 'closed' ? 'closed' : 'open',
  openIssues: m.open_issues,
  closedIssues: m.closed_issues,
});

export const toIssue = (repo: RepoRef, i: RestIssue): Issue => ({
  ref: { repo, number: i.number },
  title: i.title,
  body: i.body ?? '',
  state: i.state === 'closed' ? 'closed' : 'open',
  labels: i.labels.map((l) =>
    typeof l === 'string' ? { name: l } : { name: l.name ?? '', description: l.description ?? undefined },
  ),
  assignees: (i.assignees ?? []).map((a) => a.login),
  author: i.user?.login ?? 'ghost',
  milestone: i.milestone ? { number: i.milestone.number, title: i.milestone.title } : undefined,
  createdAt: i.created_at,
  locked: i.locked,
  isPullRequest: i.pull_request !== undefined && i.pull_request !== null,
});

export const toComment = (c: RestComment): Comment => ({
  id: c.id,
  body: c.body ?? '',
  author: c.user?.login ?? 'ghost',
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});

const mergeStates: Record<string, PullRequest['mergeState']> = {
  clean: 'clean',
  has_hooks: 'clean',
  behind: 'behind',
  dirty: 'dirty',
  blocked: 'blocked',
  draft: 'blocked',
  unstable: 'unstable',
};

export const toPullRequest = (repo: RepoRef, p: RestPull): PullRequest => ({
  ref: { repo, number: p.number },
  title: p.title,
  body: p.body ?? '',
  state: p.state === 'closed' ? 'closed' : 'open',
  merged: p.merged,
  mergeCommitSha: p.merged ? (p.merge_commit_sha ?? undefined) : undefined,
  head: { ref: p.head.ref, sha: p.head.sha },
  base: { ref: p.base.ref },
  mergeable: p.mergeable,
  mergeState: mergeStates[p.mergeable_state] ?? 'unknown',
  author: p.user.login,
  htmlUrl: p.html_url,
});

const fileStatuses: Record<string, PullRequestFile['status']> = {
  added: 'added',
  modified: 'modified',
  removed: 'removed',
  renamed: 'renamed',
};

export const toPullRequestFile = (f: RestFile): PullRequestFile => ({
  path: f.filename,
  status: fileStatuses[f.status] ?? 'other',
  additions: f.additions,
  deletions: f.deletions,
});

const githubRoles: Record<string, Permission> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  push: 'write',
  triage: 'read',
  read: 'read',
  pull: 'read',
  none: 'none',
};

/**
 * GitHub's `GET /repos/{o}/{r}/collaborators/{user}/permission`: `role_name` says maintain and
 * triage where `permission` already folds them into write and read; a custom role's name is
 * unknown here, so its base `permission` decides. Anything unrecognised is no permission.
 */
export const normalizeGithubPermission = (p: { permission: string; role_name?: string }): Permission => {
  const role = p.role_name?.toLowerCase();
  if (role !== undefined && Object.hasOwn(githubRoles, role)) return githubRoles[role]!;
  const base = p.permission.toLowerCase();
  return Object.hasOwn(githubRoles, base) ? githubRoles[base]! : 'none';
};

export const toPermission = (roleName: string | undefined, permission: string): Permission =>
  normalizeGithubPermission({ permission, ...(roleName !== undefined ? { role_name: roleName } : {}) });

/** `Fixes #3`, `closes owner/repo#4`, `Resolved: #5` in a PR body. */
export const parseClosingRefs = (repo: RepoRef, body: string): IssueRef[] => {
  const re = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+(?:([\w.-]+)\/([\w.-]+))?#(\d+)\b/gi;
  return [...body.matchAll(re)].map((m) => ({
    repo: m[1] && m[2] ? { owner: m[1], name: m[2] } : repo,
    number: Number(m[3]),
  }));
};
