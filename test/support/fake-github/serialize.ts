// World objects in GitHub's REST shapes. Every field the api.github.com description marks required is
// filled (the fake validates its own responses against that document), with URLs under the fake's
// own address so nothing points at the real github.com.
import type { World, WorldComment, WorldIssue, WorldLabel, WorldMilestone, WorldRepo } from '../world.ts';

type Json = Record<string, unknown>;

export interface Urls {
  /** e.g. http://127.0.0.1:1234 */
  web: string;
  /** e.g. http://127.0.0.1:1234/api/v3 */
  api: string;
}

const nodeId = (kind: string, id: number) => Buffer.from(`${kind}:${id}`).toString('base64url');

export const userJson = (world: World, login: string, u: Urls): Json => {
  const user = world.users.get(login.toLowerCase()) ?? world.addUser(login);
  const url = `${u.api}/users/${encodeURIComponent(user.login)}`;
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId('User', user.id),
    avatar_url: `${u.web}/avatars/${user.id}`,
    gravatar_id: '',
    url,
    html_url: `${u.web}/${encodeURIComponent(user.login)}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: user.type,
    site_admin: false,
  };
};

const repoUrlFields = [
  'archive',
  'assignees',
  'blobs',
  'branches',
  'collaborators',
  'comments',
  'commits',
  'compare',
  'contents',
  'contributors',
  'deployments',
  'downloads',
  'events',
  'forks',
  'git_commits',
  'git_refs',
  'git_tags',
  'hooks',
  'issue_comment',
  'issue_events',
  'issues',
  'keys',
  'labels',
  'languages',
  'merges',
  'milestones',
  'notifications',
  'pulls',
  'releases',
  'stargazers',
  'statuses',
  'subscribers',
  'subscription',
  'tags',
  'teams',
  'trees',
];

export const repoJson = (world: World, repo: WorldRepo, u: Urls, cloneUrl: string): Json => {
  const url = `${u.api}/repos/${repo.owner}/${repo.name}`;
  const out: Json = {
    id: repo.id,
    node_id: nodeId('Repository', repo.id),
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    owner: userJson(world, repo.owner, u),
    private: repo.private,
    html_url: `${u.web}/${repo.owner}/${repo.name}`,
    description: null,
    fork: false,
    url,
    clone_url: cloneUrl,
    git_url: `git://fake/${repo.owner}/${repo.name}.git`,
    ssh_url: `git@fake:${repo.owner}/${repo.name}.git`,
    svn_url: `${u.web}/${repo.owner}/${repo.name}`,
    mirror_url: null,
    homepage: null,
    language: null,
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    size: 0,
    default_branch: repo.defaultBranch,
    open_issues: 0,
    open_issues_count: 0,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: false,
    has_discussions: false,
    archived: false,
    disabled: false,
    license: null,
    pushed_at: '2026-01-01T00:00:00Z',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    network_count: 0,
    subscribers_count: 0,
  };
  for (const f of repoUrlFields) out[`${f}_url`] = `${url}/${f}`;
  return out;
};

export const labelJson = (repo: WorldRepo, label: WorldLabel, u: Urls): Json => ({
  id: label.id,
  node_id: nodeId('Label', label.id),
  url: `${u.api}/repos/${repo.owner}/${repo.name}/labels/${encodeURIComponent(label.name)}`,
  name: label.name,
  description: label.description || null,
  color: label.color,
  default: false,
});

export const milestoneJson = (world: World, repo: WorldRepo, m: WorldMilestone, u: Urls): Json => {
  const issues = [...repo.issues.values()].filter((i) => i.milestoneId === m.id && !i.pull);
  const url = `${u.api}/repos/${repo.owner}/${repo.name}/milestones/${m.number}`;
  return {
    id: m.id,
    node_id: nodeId('Milestone', m.id),
    number: m.number,
    title: m.title,
    description: m.description || null,
    state: m.state,
    url,
    html_url: `${u.web}/${repo.owner}/${repo.name}/milestone/${m.number}`,
    labels_url: `${url}/labels`,
    creator: userJson(world, repo.owner, u),
    open_issues: issues.filter((i) => i.state === 'open').length,
    closed_issues: issues.filter((i) => i.state === 'closed').length,
    created_at: m.createdAt,
    updated_at: m.createdAt,
    closed_at: null,
    due_on: null,
  };
};

const labelsOf = (world: World, repo: WorldRepo, issue: WorldIssue, u: Urls) =>
  issue.labels.map((name) => labelJson(repo, world.addLabel(repo, name), u));

export const issueJson = (world: World, repo: WorldRepo, issue: WorldIssue, u: Urls): Json => {
  const url = `${u.api}/repos/${repo.owner}/${repo.name}/issues/${issue.number}`;
  const milestone = [...repo.milestones.values()].find((m) => m.id === issue.milestoneId);
  const assignees = issue.assignees.map((a) => userJson(world, a, u));
  const out: Json = {
    id: issue.id,
    node_id: nodeId('Issue', issue.id),
    url,
    repository_url: `${u.api}/repos/${repo.owner}/${repo.name}`,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${u.web}/${repo.owner}/${repo.name}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`,
    number: issue.number,
    state: issue.state,
    state_reason: issue.stateReason ?? null,
    title: issue.title,
    body: issue.body || null,
    user: userJson(world, issue.author, u),
    labels: labelsOf(world, repo, issue, u),
    assignee: assignees[0] ?? null,
    assignees,
    milestone: milestone ? milestoneJson(world, repo, milestone, u) : null,
    locked: issue.locked,
    active_lock_reason: null,
    comments: world.commentsOn(repo, issue.number).length,
    closed_at: issue.closedAt ?? null,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    author_association: issue.author.toLowerCase() === repo.owner.toLowerCase() ? 'OWNER' : 'NONE',
    issue_dependencies_summary: {
      blocked_by: issue.blockedBy.filter(
        (r) => world.repo(r.owner, r.repo)?.issues.get(r.number)?.state === 'open',
      ).length,
      blocking: 0,
      total_blocked_by: issue.blockedBy.length,
      total_blocking: 0,
    },
  };
  if (issue.pull)
    out.pull_request = {
      url: `${u.api}/repos/${repo.owner}/${repo.name}/pulls/${issue.number}`,
      html_url: out.html_url,
      diff_url: `${out.html_url}.diff`,
      patch_url: `${out.html_url}.patch`,
      merged_at: issue.pull.mergedAt ?? null,
    };
  return out;
};

export const commentJson = (world: World, repo: WorldRepo, c: WorldComment, u: Urls): Json => ({
  id: c.id,
  node_id: nodeId('IssueComment', c.id),
  url: `${u.api}/repos/${repo.owner}/${repo.name}/issues/comments/${c.id}`,
  html_url: `${u.web}/${repo.owner}/${repo.name}/issues/${c.issueNumber}#issuecomment-${c.id}`,
  issue_url: `${u.api}/repos/${repo.owner}/${repo.name}/issues/${c.issueNumber}`,
  body: c.body,
  user: userJson(world, c.author, u),
  created_at: c.createdAt,
  updated_at: c.updatedAt,
  author_association: 'NONE',
});

/** A pull request (full shape when `mergeInfo` is given, the list shape otherwise). */
export const pullJson = (
  world: World,
  repo: WorldRepo,
  issue: WorldIssue,
  u: Urls,
  cloneUrl: string,
  mergeInfo?: { mergeable: boolean | null; mergeableState: string; changedFiles: number },
): Json => {
  const pull = issue.pull!;
  const base = issueJson(world, repo, issue, u);
  const url = `${u.api}/repos/${repo.owner}/${repo.name}/pulls/${issue.number}`;
  const r = repoJson(world, repo, u, cloneUrl);
  const href = (h: string) => ({ href: h });
  const out: Json = {
    url,
    id: issue.id,
    node_id: base.node_id,
    html_url: base.html_url,
    diff_url: `${base.html_url}.diff`,
    patch_url: `${base.html_url}.patch`,
    issue_url: base.url,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${u.api}/repos/${repo.owner}/${repo.name}/pulls/comments{/number}`,
    comments_url: base.comments_url,
    statuses_url: `${u.api}/repos/${repo.owner}/${repo.name}/statuses/${pull.headSha}`,
    number: issue.number,
    state: issue.state,
    locked: issue.locked,
    title: issue.title,
    user: base.user,
    body: base.body,
    labels: base.labels,
    milestone: base.milestone,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt ?? null,
    merged_at: pull.mergedAt ?? null,
    merge_commit_sha: pull.mergeCommitSha ?? null,
    assignee: base.assignee,
    assignees: base.assignees,
    head: { label: `${repo.owner}:${pull.head}`, ref: pull.head, sha: pull.headSha, user: r.owner, repo: r },
    base: { label: `${repo.owner}:${pull.base}`, ref: pull.base, sha: pull.headSha, user: r.owner, repo: r },
    _links: {
      self: href(url),
      html: href(String(base.html_url)),
      issue: href(String(base.url)),
      comments: href(String(base.comments_url)),
      review_comments: href(`${url}/comments`),
      review_comment: href(`${u.api}/repos/${repo.owner}/${repo.name}/pulls/comments{/number}`),
      commits: href(`${url}/commits`),
      statuses: href(`${u.api}/repos/${repo.owner}/${repo.name}/statuses/${pull.headSha}`),
    },
    author_association: base.author_association,
    auto_merge: null,
    draft: false,
  };
  if (mergeInfo)
    Object.assign(out, {
      merged: pull.merged,
      mergeable: mergeInfo.mergeable,
      mergeable_state: mergeInfo.mergeableState,
      merged_by: pull.mergedBy ? userJson(world, pull.mergedBy, u) : null,
      comments: base.comments,
      review_comments: 0,
      maintainer_can_modify: false,
      commits: 1,
      additions: 0,
      deletions: 0,
      changed_files: mergeInfo.changedFiles,
    });
  return out;
};
