// Fake Gitea commit statuses and PR reviews over the World's checks store (world-checks.ts), keyed
// by the swagger's operationId: statuses need write access and a commit that exists; the combined
// status is the newest status per context; reviews on an older head are `stale`, as Gitea marks them;
// a review's line comments are read review by review.
import type { WorldRepo } from '../world.ts';
import { checksOf, type WorldReview, type WorldReviewComment, type WorldStatus } from '../world-checks.ts';
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
import { renderRepo, renderUser } from './render.ts';

const statusStates = new Set(['pending', 'success', 'error', 'failure', 'warning']);

const toGitea: Record<WorldReview['state'], string> = {
  APPROVED: 'APPROVED',
  CHANGES_REQUESTED: 'REQUEST_CHANGES',
  COMMENTED: 'COMMENT',
  DISMISSED: 'REQUEST_CHANGES',
  PENDING: 'PENDING',
};
const fromGitea: Record<string, WorldReview['state']> = {
  APPROVED: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED',
  COMMENT: 'COMMENTED',
  PENDING: 'PENDING',
};

const shaOf = async (repo: WorldRepo, ref: string): Promise<string> => {
  const sha = await repo.git.resolve(ref);
  if (!sha) throw new HttpError(404, `commit ${ref} does not exist`);
  return sha;
};

const pullOf = (ctx: HandlerContext, repo: WorldRepo) => {
  const issue = repo.issues.get(intParam(ctx, 'index'));
  if (!issue?.pull) throw new HttpError(404, 'pull request does not exist');
  return issue as typeof issue & { pull: NonNullable<typeof issue.pull> };
};

const renderStatus = (ctx: HandlerContext, repo: WorldRepo, s: WorldStatus) => ({
  id: s.id,
  status: s.state,
  context: s.context,
  description: s.description,
  ...(s.targetUrl ? { target_url: s.targetUrl } : {}),
  url: `${ctx.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/statuses/${s.sha}`,
  created_at: s.createdAt,
  updated_at: s.createdAt,
  creator: renderUser(ctx.world, s.creator, ctx.baseUrl),
});

const renderReview = async (ctx: HandlerContext, repo: WorldRepo, r: WorldReview) => {
  const pull = repo.issues.get(r.pull)!.pull!;
  const head = (await repo.git.resolve(pull.head)) ?? pull.headSha;
  const comments = checksOf(ctx.world)
    .commentsOn(repo, r.pull)
    .filter((c) => c.reviewId === r.id);
  return {
    id: r.id,
    user: renderUser(ctx.world, r.author, ctx.baseUrl),
    state: toGitea[r.state],
    body: r.body,
    commit_id: r.commitSha,
    stale: r.commitSha !== head,
    official: true,
    dismissed: r.state === 'DISMISSED',
    comments_count: comments.length,
    submitted_at: r.submittedAt,
    updated_at: r.submittedAt,
    html_url: `${ctx.baseUrl}/${repo.owner}/${repo.name}/pulls/${r.pull}#issuecomment-${r.id}`,
    pull_request_url: `${ctx.baseUrl}/${repo.owner}/${repo.name}/pulls/${r.pull}`,
  };
};

const renderComment = (ctx: HandlerContext, repo: WorldRepo, c: WorldReviewComment) => ({
  id: c.id,
  body: c.body,
  user: renderUser(ctx.world, c.author, ctx.baseUrl),
  pull_request_review_id: c.reviewId,
  path: c.path,
  position: c.line,
  original_position: 0,
  commit_id: c.commitSha,
  original_commit_id: c.commitSha,
  diff_hunk: `@@ -${c.line},1 +${c.line},1 @@`,
  created_at: c.createdAt,
  updated_at: c.createdAt,
  html_url: `${ctx.baseUrl}/${repo.owner}/${repo.name}/pulls/${c.pull}/files#issuecomment-${c.id}`,
  pull_request_url: `${ctx.baseUrl}/${repo.owner}/${repo.name}/pulls/${c.pull}`,
});

export const checkHandlers: Record<string, Handler> = {
  repoCreateStatus: async (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const sha = await shaOf(repo, ctx.params.sha ?? '');
    const body = bodyOf(ctx);
    const state = String(body.state ?? '');
    if (!statusStates.has(state)) throw new HttpError(400, `invalid commit status state: ${state}`);
    const status = checksOf(ctx.world).addStatus(repo, {
      sha,
      context: String(body.context ?? 'default'),
      state: state as WorldStatus['state'],
      description: String(body.description ?? ''),
      targetUrl: typeof body.target_url === 'string' ? body.target_url : null,
      creator: ctx.actor,
    });
    return { status: 201, json: renderStatus(ctx, repo, status) };
  },

  repoGetCombinedStatusByRef: async (ctx) => {
    const repo = repoOf(ctx);
    const sha = await shaOf(repo, ctx.params.ref ?? '');
    const latest = checksOf(ctx.world).latestStatuses(repo, sha);
    const states = new Set(latest.map((s) => s.state));
    // Gitea: the worst state wins (error > failure > warning > pending > success); none is pending.
    const state =
      ['error', 'failure', 'warning', 'pending'].find((s) => states.has(s as WorldStatus['state'])) ??
      (latest.length ? 'success' : 'pending');
    const { page, headers } = paginate(ctx, latest);
    return {
      status: 200,
      headers,
      json: {
        state,
        sha,
        total_count: latest.length,
        statuses: page.map((s) => renderStatus(ctx, repo, s)),
        repository: renderRepo(ctx.world, repo, ctx.actor, ctx.baseUrl, ctx.cloneUrl),
        commit_url: `${ctx.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/git/commits/${sha}`,
        url: `${ctx.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/commits/${sha}/status`,
      },
    };
  },

  repoListPullReviews: async (ctx) => {
    const repo = repoOf(ctx);
    const pull = pullOf(ctx, repo);
    const { page, headers } = paginate(ctx, checksOf(ctx.world).reviewsOn(repo, pull.number));
    return { status: 200, headers, json: await Promise.all(page.map((r) => renderReview(ctx, repo, r))) };
  },

  repoCreatePullReview: async (ctx) => {
    const repo = repoOf(ctx);
    const pull = pullOf(ctx, repo);
    const body = bodyOf(ctx);
    const event = String(body.event ?? 'PENDING');
    const state = fromGitea[event];
    if (!state) throw new HttpError(422, `unknown review event ${event}`);
    if (state !== 'COMMENTED' && state !== 'PENDING' && pull.author.toLowerCase() === ctx.actor.toLowerCase())
      throw new HttpError(422, 'reviewer cannot approve or request changes on their own pull request');
    const comments =
      (body.comments as { path?: string; new_position?: number; body?: string }[] | undefined) ?? [];
    if (comments.some((c) => !c.path || !c.new_position || !c.body))
      throw new HttpError(422, 'a review comment needs a path, a new_position and a body');
    if (state === 'CHANGES_REQUESTED' && !body.body && comments.length === 0)
      throw new HttpError(422, 'a review requesting changes needs a body or comments');
    const head = (await repo.git.resolve(pull.pull.head)) ?? pull.pull.headSha;
    const store = checksOf(ctx.world);
    // Gitea joins a comment on a line that already has a conversation to that conversation.
    const review = store.addReview(
      repo,
      {
        pull: pull.number,
        author: ctx.actor,
        state,
        body: String(body.body ?? ''),
        commitSha: typeof body.commit_id === 'string' && body.commit_id ? body.commit_id : head,
      },
      comments.map((c) => {
        const thread = store
          .commentsOn(repo, pull.number)
          .find((o) => o.path === c.path && o.line === c.new_position && !o.inReplyTo);
        return {
          path: c.path!,
          line: c.new_position!,
          body: c.body!,
          ...(thread ? { inReplyTo: thread.id } : {}),
        };
      }),
    );
    return { status: 200, json: await renderReview(ctx, repo, review) };
  },

  repoGetPullReviewComments: (ctx) => {
    const repo = repoOf(ctx);
    const pull = pullOf(ctx, repo);
    const id = intParam(ctx, 'id');
    const store = checksOf(ctx.world);
    if (!store.reviewsOn(repo, pull.number).some((r) => r.id === id))
      throw new HttpError(404, 'review does not exist');
    return {
      status: 200,
      json: store
        .commentsOn(repo, pull.number)
        .filter((c) => c.reviewId === id)
        .map((c) => renderComment(ctx, repo, c)),
    };
  },
};
