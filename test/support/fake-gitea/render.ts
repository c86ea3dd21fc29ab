// World objects rendered the way Gitea 1.22 renders them in its API. Fields Gitea sends as null
// are left out instead: the swagger marks nothing nullable, and the fake's answers must conform.
import type { World, WorldComment, WorldIssue, WorldLabel, WorldMilestone, WorldRepo } from '../world.ts';

export const renderUser = (world: World, login: string, baseUrl: string) => {
  const user = world.users.get(login.toLowerCase()) ?? world.addUser(login);
  return {
    id: user.id,
    login: user.login,
    login_name: '',
    full_name: '',
    email: `${user.login.replace(/[^a-z0-9-]/gi, '')}@noreply.localhost`,
    avatar_url: `${baseUrl}/avatars/${user.id}`,
    html_url: `${baseUrl}/${user.login}`,
    is_admin: false,
    active: true,
    restricted: false,
    prohibit_login: false,
    visibility: 'public',
  };
};

export const renderLabel = (label: WorldLabel, repo: WorldRepo, baseUrl: string) => ({
  id: label.id,
  name: label.name,
  exclusive: false,
  is_archived: false,
  color: label.color,
  description: label.description,
  url: `${baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/labels/${label.id}`,
});

export const renderMilestone = (m: WorldMilestone, repo: WorldRepo) => {
  const issues = [...repo.issues.values()].filter((i) => i.milestoneId === m.id);
  return {
    id: m.id,
    title: m.title,
    description: m.description,
    state: m.state,
    open_issues: issues.filter((i) => i.state === 'open').length,
    closed_issues: issues.filter((i) => i.state === 'closed').length,
    created_at: m.createdAt,
    updated_at: m.createdAt,
  };
};

const issueLabels = (issue: WorldIssue, repo: WorldRepo, baseUrl: string) =>
  issue.labels.flatMap((name) => {
    const label = repo.labels.get(name.toLowerCase());
    return label ? [renderLabel(label, repo, baseUrl)] : [];
  });

export const renderIssue = (world: World, repo: WorldRepo, issue: WorldIssue, baseUrl: string) => {
  const milestone = [...repo.milestones.values()].find((m) => m.id === issue.milestoneId);
  const kind = issue.pull ? 'pulls' : 'issues';
  return {
    id: issue.id,
    url: `${baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/issues/${issue.number}`,
    html_url: `${baseUrl}/${repo.owner}/${repo.name}/${kind}/${issue.number}`,
    number: issue.number,
    user: renderUser(world, issue.author, baseUrl),
    original_author: '',
    original_author_id: 0,
    title: issue.title,
    body: issue.body,
    ref: '',
    assets: [],
    labels: issueLabels(issue, repo, baseUrl),
    ...(milestone ? { milestone: renderMilestone(milestone, repo) } : {}),
    assignees: issue.assignees.map((a) => renderUser(world, a, baseUrl)),
    state: issue.state,
    is_locked: issue.locked,
    comments: world.commentsOn(repo, issue.number).length,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    ...(issue.closedAt ? { closed_at: issue.closedAt } : {}),
    ...(issue.pull
      ? {
          pull_request: {
            merged: issue.pull.merged,
            ...(issue.pull.mergedAt ? { merged_at: issue.pull.mergedAt } : {}),
            draft: false,
            html_url: `${baseUrl}/${repo.owner}/${repo.name}/pulls/${issue.number}`,
          },
        }
      : {}),
    repository: { id: repo.id, name: repo.name, owner: repo.owner, full_name: `${repo.owner}/${repo.name}` },
    pin_order: 0,
  };
};

export const renderComment = (world: World, repo: WorldRepo, c: WorldComment, baseUrl: string) => ({
  id: c.id,
  html_url: `${baseUrl}/${repo.owner}/${repo.name}/issues/${c.issueNumber}#issuecomment-${c.id}`,
  // Gitea fills one of the two: `issue_url` on an issue's comment, `pull_request_url` on a PR's.
  ...(repo.issues.get(c.issueNumber)?.pull
    ? { issue_url: '', pull_request_url: `${baseUrl}/${repo.owner}/${repo.name}/pulls/${c.issueNumber}` }
    : { issue_url: `${baseUrl}/${repo.owner}/${repo.name}/issues/${c.issueNumber}`, pull_request_url: '' }),
  user: renderUser(world, c.author, baseUrl),
  original_author: '',
  original_author_id: 0,
  body: c.body,
  assets: [],
  created_at: c.createdAt,
  updated_at: c.updatedAt,
});

export const renderRepo = (
  world: World,
  repo: WorldRepo,
  actor: string,
  baseUrl: string,
  cloneUrl?: (repo: WorldRepo) => string,
) => {
  const perm = world.permissionOf(repo, actor);
  const rank = { none: 0, read: 1, triage: 1, write: 2, maintain: 2, admin: 3 }[perm];
  return {
    id: repo.id,
    owner: renderUser(world, repo.owner, baseUrl),
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    description: '',
    empty: false,
    private: repo.private,
    fork: false,
    template: false,
    mirror: false,
    archived: false,
    html_url: `${baseUrl}/${repo.owner}/${repo.name}`,
    clone_url: cloneUrl?.(repo) ?? `${baseUrl}/${repo.owner}/${repo.name}.git`,
    ssh_url: `git@127.0.0.1:${repo.owner}/${repo.name}.git`,
    default_branch: repo.defaultBranch,
    has_issues: true,
    has_pull_requests: true,
    permissions: { admin: rank >= 3, push: rank >= 2, pull: rank >= 1 },
    object_format_name: 'sha1' as const,
  };
};

export const renderBranch = (name: string, sha: string, canPush: boolean) => ({
  name,
  commit: { id: sha, message: '', url: '' },
  protected: false,
  user_can_push: canPush,
  user_can_merge: canPush,
  enable_status_check: false,
  status_check_contexts: [],
  required_approvals: 0,
  effective_branch_protection_name: '',
});
