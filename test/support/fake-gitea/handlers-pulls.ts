// Fake Gitea operations on pull requests (list, open, read, files, diff, commits, merge, update),
// keyed by the swagger's operationId. Merges go through the repo's GitBackend, so a conflict there
// is a 409 here, as on Gitea.
import { pullFiles, type WorldIssue, type WorldRepo } from '../world.ts';
import {
  bodyOf,
  type Handler,
  type HandlerContext,
  HttpError,
  intParam,
  paginate,
  repoOf,
  requireWrite,
} from './context.ts';
import { renderIssue, renderRepo, renderUser } from './render.ts';

const pullOf = (
  ctx: HandlerContext,
  repo: WorldRepo,
): WorldIssue & { pull: NonNullable<WorldIssue['pull']> } => {
  const issue = repo.issues.get(intParam(ctx, 'index'));
  if (!issue?.pull) throw new HttpError(404, 'pull request does not exist');
  return issue as WorldIssue & { pull: NonNullable<WorldIssue['pull']> };
};

/** The PR's live head: a push moves the branch; a merged PR keeps the head it was merged at. */
const headShaOf = async (repo: WorldRepo, issue: WorldIssue): Promise<string> =>
  issue.pull!.merged
    ? issue.pull!.headSha
    : ((await repo.git.resolve(issue.pull!.head)) ?? issue.pull!.headSha);

const renderPull = async (ctx: HandlerContext, repo: WorldRepo, issue: WorldIssue) => {
  const pull = issue.pull!;
  const headSha = await headShaOf(repo, issue);
  const baseSha = (await repo.git.resolve(pull.base)) ?? '';
  const open = issue.state === 'open' && !pull.merged;
  const mergeable = open && (await repo.git.canMerge(pull.base, pull.head));
  const upToDate = baseSha !== '' && (await repo.git.isAncestor(baseSha, headSha));
  const mergeBase = upToDate ? baseSha : await repo.git.mergeBase?.(pull.base, headSha);
  const base = renderIssue(ctx.world, repo, issue, ctx.baseUrl);
  const repoJson = renderRepo(ctx.world, repo, ctx.actor, ctx.baseUrl, ctx.cloneUrl);
  return {
    id: issue.id,
    url: base.url,
    number: issue.number,
    user: base.user,
    title: issue.title,
    body: issue.body,
    labels: base.labels,
    assignees: base.assignees,
    state: issue.state,
    draft: false,
    is_locked: issue.locked,
    comments: base.comments,
    html_url: `${ctx.baseUrl}/${repo.owner}/${repo.name}/pulls/${issue.number}`,
    diff_url: `${ctx.baseUrl}/${repo.owner}/${repo.name}/pulls/${issue.number}.diff`,
    patch_url: `${ctx.baseUrl}/${repo.owner}/${repo.name}/pulls/${issue.number}.patch`,
    mergeable,
    merged: pull.merged,
    ...(pull.mergedAt ? { merged_at: pull.mergedAt } : {}),
    ...(pull.mergeCommitSha ? { merge_commit_sha: pull.mergeCommitSha } : {}),
    ...(pull.mergedBy ? { merged_by: renderUser(ctx.world, pull.mergedBy, ctx.baseUrl) } : {}),
    allow_maintainer_edit: false,
    base: { label: pull.base, ref: pull.base, sha: baseSha, repo_id: repo.id, repo: repoJson },
    head: { label: pull.head, ref: pull.head, sha: headSha, repo_id: repo.id, repo: repoJson },
    ...(mergeBase ? { merge_base: mergeBase } : {}),
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    ...(issue.closedAt ? { closed_at: issue.closedAt } : {}),
  };
};

export const pullHandlers: Record<string, Handler> = {
  repoListPullRequests: async (ctx) => {
    const repo = repoOf(ctx);
    const state = ctx.query.get('state') ?? 'open';
    const pulls = [...repo.issues.values()]
      .filter((i) => i.pull && (state === 'all' || i.state === state))
      .sort((a, b) => b.number - a.number);
    const { page, headers } = paginate(ctx, pulls);
    return { status: 200, json: await Promise.all(page.map((i) => renderPull(ctx, repo, i))), headers };
  },

  repoCreatePullRequest: async (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const b = bodyOf(ctx);
    const head = String(b.head ?? '');
    const base = String(b.base ?? '');
    const branches = await repo.git.branches();
    if (!branches.has(head) || !branches.has(base))
      throw new HttpError(404, 'head or base branch does not exist');
    const existing = [...repo.issues.values()].find(
      (i) => i.state === 'open' && i.pull?.head === head && i.pull.base === base,
    );
    if (existing)
      throw new HttpError(409, `pull request already exists for these targets: #${existing.number}`);
    const issue = await ctx.world.openPull(repo, {
      head,
      base,
      title: String(b.title ?? ''),
      body: typeof b.body === 'string' ? b.body : '',
      author: ctx.actor,
    });
    return { status: 201, json: await renderPull(ctx, repo, issue) };
  },

  repoGetPullRequest: async (ctx) => {
    const repo = repoOf(ctx);
    return { status: 200, json: await renderPull(ctx, repo, pullOf(ctx, repo)) };
  },

  repoGetPullRequestFiles: async (ctx) => {
    const repo = repoOf(ctx);
    const { pull } = pullOf(ctx, repo);
    const files = await pullFiles(repo, pull);
    const { page, headers } = paginate(ctx, files);
    const json = page.map((f) => ({
      filename: f.path,
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      changes: f.additions + f.deletions,
    }));
    return { status: 200, json, headers };
  },

  repoDownloadPullDiffOrPatch: async (ctx) => {
    const repo = repoOf(ctx);
    const { pull } = pullOf(ctx, repo);
    return { status: 200, text: await repo.git.diff(pull.base, pull.head) };
  },

  repoGetPullRequestCommits: async (ctx) => {
    const repo = repoOf(ctx);
    const issue = pullOf(ctx, repo);
    const commits = issue.pull.commits ?? [{ sha: await headShaOf(repo, issue), message: issue.title }];
    const { page, headers } = paginate(ctx, commits);
    const json = page.map((c) => ({ sha: c.sha, commit: { message: c.message }, files: [] }));
    return { status: 200, json, headers };
  },

  repoMergePullRequest: async (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const issue = pullOf(ctx, repo);
    const { pull } = issue;
    if (pull.merged) throw new HttpError(405, 'PR already merged');
    if (issue.state !== 'open') throw new HttpError(404, 'pull request is closed');
    if (!(await repo.git.canMerge(pull.base, pull.head))) {
      throw new HttpError(405, 'PR not in mergeable state: please try again later');
    }
    const b = bodyOf(ctx);
    const headSha = await headShaOf(repo, issue);
    if (typeof b.head_commit_id === 'string' && b.head_commit_id !== '' && b.head_commit_id !== headSha) {
      throw new HttpError(409, 'head out of date');
    }
    const method = b.Do === 'squash' || b.Do === 'rebase' ? b.Do : 'merge';
    if (b.Do !== method) throw new HttpError(405, `merge style ${String(b.Do)} is not supported here`);
    const title =
      typeof b.MergeTitleField === 'string' ? b.MergeTitleField : `Merge pull request '${issue.title}'`;
    const result = await repo.git.merge(pull.base, pull.head, method, title);
    if ('conflict' in result) throw new HttpError(409, 'merge add conflicts');
    pull.headSha = headSha;
    pull.merged = true;
    pull.mergedAt = ctx.world.now();
    pull.mergeCommitSha = result.sha;
    pull.mergedBy = ctx.actor;
    ctx.world.setIssueState(repo, issue, 'closed', ctx.actor);
    ctx.world.record('merge', repo, issue.number, method);
    if (b.delete_branch_after_merge === true) await repo.git.deleteBranch(pull.head);
    return { status: 200 };
  },

  repoUpdatePullRequest: async (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const issue = pullOf(ctx, repo);
    if (issue.state !== 'open') throw new HttpError(422, 'pull request is closed');
    // Gitea's style=rebase replays the head's commits onto the base and moves the head; the GitBackend
    // has no such operation, so the fake refuses it rather than do something else in its name.
    if (ctx.query.get('style') === 'rebase') {
      throw new HttpError(501, 'the fake Gitea does not implement update with style=rebase');
    }
    const style = 'merge';
    const result = await repo.git.merge(
      issue.pull.head,
      issue.pull.base,
      style,
      `Merge branch '${issue.pull.base}'`,
    );
    if ('conflict' in result) throw new HttpError(409, 'merge conflicts while updating the branch');
    ctx.world.record('update_branch', repo, issue.number, style);
    return { status: 200 };
  },
};
