// Gitea answers mapped into the forge domain types; nothing Gitea-shaped leaves this folder.
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
import type { GiteaChangedFile, GiteaComment, GiteaIssue, GiteaMilestone, GiteaPull } from './schema.ts';

export const toMilestone = (m: GiteaMilestone): Milestone => ({
  number: m.id,
  title: m.title,
  description: m.description ?? '',
  state: m.state,
  openIssues: m.open_issues ?? 0,
  closedIssues: m.closed_issues ?? 0,
});

/** The issue's own repo: Gitea says so on cross-repo answers (dependencies); otherwise the one asked. */
export const repoOfIssue = (i: GiteaIssue, asked: RepoRef): RepoRef =>
  i.repository ? { owner: i.repository.owner, name: i.repository.name } : asked;

export const toIssue = (i: GiteaIssue, asked: RepoRef): Issue => ({
  ref: { repo: repoOfIssue(i, asked), number: i.number },
  title: i.title,
  body: i.body ?? '',
  state: i.state,
  labels: (i.labels ?? []).map((l) =>
    l.description ? { name: l.name, description: l.description } : { name: l.name },
  ),
  assignees: (i.assignees ?? []).map((a) => a.login),
  author: i.user?.login ?? '',
  ...(i.milestone ? { milestone: { number: i.milestone.id, title: i.milestone.title } } : {}),
  createdAt: i.created_at,
  locked: i.is_locked ?? false,
  isPullRequest: Boolean(i.pull_request),
});

export const toComment = (c: GiteaComment): Comment => ({
  id: c.id,
  body: c.body ?? '',
  author: c.user?.login ?? '',
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});

const giteaLevels: Record<string, Permission> = {
  owner: 'admin',
  admin: 'admin',
  write: 'write',
  read: 'read',
  none: 'none',
};

/** Gitea's collaborator permission answers none, read, write, admin or owner (admin). Anything else is none. */
export const normalizeGiteaPermission = (p: { permission: string }): Permission => {
  const level = p.permission.toLowerCase();
  return Object.hasOwn(giteaLevels, level) ? giteaLevels[level]! : 'none';
};

export const toPermission = (p: string): Permission => normalizeGiteaPermission({ permission: p });

/** Gitea reports only `mergeable`; "behind" is read off a merge base that is not the base tip. */
export const mergeStateOf = (p: GiteaPull): PullRequest['mergeState'] => {
  if (p.state !== 'open' || p.merged) return 'unknown';
  if (p.mergeable === false) return 'dirty';
  if (p.merge_base && p.merge_base !== p.base.sha) return 'behind';
  if (p.mergeable === true) return 'clean';
  return 'unknown';
};

export const toPullRequest = (p: GiteaPull, repo: RepoRef): PullRequest => ({
  ref: { repo, number: p.number },
  title: p.title,
  body: p.body ?? '',
  state: p.state,
  merged: p.merged ?? false,
  ...(p.merge_commit_sha ? { mergeCommitSha: p.merge_commit_sha } : {}),
  head: { ref: p.head.ref, sha: p.head.sha },
  base: { ref: p.base.ref },
  mergeable: p.state === 'open' && !p.merged ? (p.mergeable ?? null) : null,
  mergeState: mergeStateOf(p),
  author: p.user?.login ?? '',
  htmlUrl: p.html_url,
});

export const toPullRequestFile = (f: GiteaChangedFile): PullRequestFile => ({
  path: f.filename,
  status:
    f.status === 'added' || f.status === 'modified' || f.status === 'renamed'
      ? f.status
      : f.status === 'deleted' || f.status === 'removed'
        ? 'removed'
        : 'other',
  additions: f.additions ?? 0,
  deletions: f.deletions ?? 0,
});

export const refKey = (ref: IssueRef): string =>
  `${ref.repo.owner.toLowerCase()}/${ref.repo.name.toLowerCase()}#${ref.number}`;
