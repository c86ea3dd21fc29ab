// The fake GitHub's checks, statuses, Actions job logs and PR reviews over the World's checks store
// (world-checks.ts): check runs only from an App (a Bot actor) that may write, updated only by the
// App that made them; `filter=latest` keeps the newest run per name; a combined status's state is
// failure over pending over success; review comments sit on a file and line, replies join the thread.

import type { WorldRepo } from '../world.ts';
import {
  checksOf,
  type WorldCheckRun,
  type WorldReview,
  type WorldReviewComment,
  type WorldStatus,
} from '../world-checks.ts';
import { fail, type Handler, type HandlerContext, mustRead, mustWrite, paginate, repoOf } from './context.ts';
import { repoJson, type Urls, userJson } from './serialize.ts';

type Json = Record<string, unknown>;

const nodeId = (kind: string, id: number) => Buffer.from(`${kind}:${id}`).toString('base64url');
const repoUrl = (u: Urls, repo: WorldRepo) => `${u.api}/repos/${repo.owner}/${repo.name}`;
const webUrl = (u: Urls, repo: WorldRepo) => `${u.web}/${repo.owner}/${repo.name}`;

const appOf = (ctx: HandlerContext, slug: string): Json => ({
  id: slug === 'github-actions' ? 15368 : 1,
  slug,
  node_id: nodeId('App', slug.length),
  owner: userJson(ctx.world, [...ctx.world.repos.values()][0]?.owner ?? ctx.world.botLogin, ctx.urls),
  name: slug,
  description: null,
  external_url: ctx.urls.web,
  html_url: `${ctx.urls.web}/apps/${slug}`,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  permissions: { checks: 'write', metadata: 'read' },
  events: [],
});

const runJson = (ctx: HandlerContext, repo: WorldRepo, run: WorldCheckRun): Json => {
  const url = `${repoUrl(ctx.urls, repo)}/check-runs/${run.id}`;
  return {
    id: run.id,
    node_id: nodeId('CheckRun', run.id),
    head_sha: run.headSha,
    name: run.name,
    external_id: run.externalId ?? '',
    url,
    html_url: `${webUrl(ctx.urls, repo)}/runs/${run.id}`,
    details_url: run.detailsUrl ?? `${webUrl(ctx.urls, repo)}/runs/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      title: run.title,
      summary: run.summary,
      text: run.text,
      annotations_count: run.annotations.length,
      annotations_url: `${url}/annotations`,
    },
    check_suite: { id: run.id + 1_000_000 },
    app: appOf(ctx, run.appSlug),
    pull_requests: [],
  };
};

const statusJson = (ctx: HandlerContext, s: WorldStatus, withCreator: boolean): Json => ({
  url: `${ctx.urls.api}/repos/${s.repo}/statuses/${s.sha}`,
  avatar_url: null,
  id: s.id,
  node_id: nodeId('StatusContext', s.id),
  state: s.state,
  description: s.description,
  target_url: s.targetUrl,
  context: s.context,
  created_at: s.createdAt,
  updated_at: s.createdAt,
  ...(withCreator ? { creator: userJson(ctx.world, s.creator, ctx.urls) } : {}),
});

const links = (ctx: HandlerContext, repo: WorldRepo, pull: number) => ({
  html: { href: `${webUrl(ctx.urls, repo)}/pull/${pull}` },
  pull_request: { href: `${repoUrl(ctx.urls, repo)}/pulls/${pull}` },
});

const association = (ctx: HandlerContext, repo: WorldRepo, login: string) => {
  if (login.toLowerCase() === repo.owner.toLowerCase()) return 'OWNER';
  const p = ctx.world.permissionOf(repo, login);
  return p === 'none' || p === 'read' ? 'NONE' : 'COLLABORATOR';
};

const reviewJson = (ctx: HandlerContext, repo: WorldRepo, r: WorldReview): Json => ({
  id: r.id,
  node_id: nodeId('PullRequestReview', r.id),
  user: userJson(ctx.world, r.author, ctx.urls),
  body: r.body,
  state: r.state,
  html_url: `${webUrl(ctx.urls, repo)}/pull/${r.pull}#pullrequestreview-${r.id}`,
  pull_request_url: `${repoUrl(ctx.urls, repo)}/pulls/${r.pull}`,
  _links: links(ctx, repo, r.pull),
  submitted_at: r.submittedAt,
  commit_id: r.commitSha,
  author_association: association(ctx, repo, r.author),
});

const commentJson = (ctx: HandlerContext, repo: WorldRepo, c: WorldReviewComment): Json => {
  const url = `${repoUrl(ctx.urls, repo)}/pulls/comments/${c.id}`;
  return {
    url,
    id: c.id,
    node_id: nodeId('PullRequestReviewComment', c.id),
    pull_request_review_id: c.reviewId,
    diff_hunk: `@@ -${c.line},1 +${c.line},1 @@`,
    path: c.path,
    commit_id: c.commitSha,
    original_commit_id: c.commitSha,
    ...(c.inReplyTo ? { in_reply_to_id: c.inReplyTo } : {}),
    user: userJson(ctx.world, c.author, ctx.urls),
    body: c.body,
    created_at: c.createdAt,
    updated_at: c.createdAt,
    html_url: `${webUrl(ctx.urls, repo)}/pull/${c.pull}#discussion_r${c.id}`,
    pull_request_url: `${repoUrl(ctx.urls, repo)}/pulls/${c.pull}`,
    author_association: association(ctx, repo, c.author),
    _links: {
      self: { href: url },
      html: { href: `${webUrl(ctx.urls, repo)}/pull/${c.pull}#discussion_r${c.id}` },
      pull_request: { href: `${repoUrl(ctx.urls, repo)}/pulls/${c.pull}` },
    },
    line: c.line,
    original_line: c.line,
    side: 'RIGHT',
  };
};

/** A branch, tag or sha, as GitHub resolves `{ref}`; 422 when it names no commit. */
const shaOf = async (repo: WorldRepo, ref: string): Promise<string> =>
  (await repo.git.resolve(ref.replace(/^(refs\/)?heads\//, ''))) ??
  fail(422, `No commit found for SHA: ${ref}`);

/** Check run statuses only GitHub Actions may set (the REST docs' words); any other App is refused. */
export const actionsOnly = new Set(['waiting', 'pending', 'requested']);
export const actionsOnlyMessage = 'Only GitHub Actions can set a status of waiting, pending, or requested';

/** Check runs are an App's: a user token is refused, as GitHub does. */
const mustBeApp = (ctx: HandlerContext, repo: WorldRepo): string => {
  mustWrite(ctx, repo);
  if (ctx.world.users.get(ctx.actor.toLowerCase())?.type !== 'Bot')
    fail(403, 'You must authenticate as a GitHub App to use the Checks API');
  return ctx.actor.replace(/\[bot\]$/, '');
};

const pullOf = (ctx: HandlerContext, repo: WorldRepo) => {
  const issue = ctx.world.pull(repo, Number(ctx.params.pull_number)) ?? fail(404, 'Not Found');
  return issue;
};

const runFields = (body: Json): Partial<WorldCheckRun> => {
  const out: Partial<WorldCheckRun> = {};
  if (typeof body.status === 'string') out.status = body.status as WorldCheckRun['status'];
  if (typeof body.conclusion === 'string') out.conclusion = body.conclusion;
  if (typeof body.details_url === 'string') out.detailsUrl = body.details_url;
  if (typeof body.external_id === 'string') out.externalId = body.external_id;
  const output = body.output as
    | { title?: string; summary?: string; text?: string; annotations?: Json[] }
    | undefined;
  if (output) {
    out.title = output.title ?? null;
    out.summary = output.summary ?? null;
    out.text = output.text ?? null;
    if (output.summary !== undefined && output.summary.length > 65_535)
      fail(422, 'Invalid request: output.summary is too long (maximum is 65535 characters)');
  }
  return out;
};

export const checkHandlers: Record<string, Handler> = {
  'checks/create': async (ctx) => {
    const repo = repoOf(ctx);
    const slug = mustBeApp(ctx, repo);
    const headSha = await shaOf(repo, String(ctx.body.head_sha));
    if (ctx.body.status === 'completed' && typeof ctx.body.conclusion !== 'string')
      fail(422, 'Invalid request: conclusion is required when status is completed');
    const run = checksOf(ctx.world).addRun(repo, {
      name: String(ctx.body.name),
      headSha,
      appSlug: slug,
      ...runFields(ctx.body),
    });
    return { status: 201, body: runJson(ctx, repo, run) };
  },

  'checks/update': (ctx) => {
    const repo = repoOf(ctx);
    const slug = mustBeApp(ctx, repo);
    const run = checksOf(ctx.world).run(repo, Number(ctx.params.check_run_id)) ?? fail(404, 'Not Found');
    if (run.appSlug !== slug) fail(403, 'Invalid app_id `1` - check run can only be modified by its creator');
    if (actionsOnly.has(String(ctx.body.status)) && slug !== 'github-actions') fail(422, actionsOnlyMessage);
    if (ctx.body.status === 'completed' && typeof ctx.body.conclusion !== 'string' && !run.conclusion)
      fail(422, 'Invalid request: conclusion is required when status is completed');
    checksOf(ctx.world).updateRun(run, runFields(ctx.body));
    return { status: 200, body: runJson(ctx, repo, run) };
  },

  'checks/list-for-ref': async (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const sha = await shaOf(repo, String(ctx.params.ref));
    const name = ctx.query.get('check_name');
    const status = ctx.query.get('status');
    let runs = checksOf(ctx.world)
      .runsFor(repo, sha)
      .filter((r) => !name || r.name === name)
      .filter((r) => !status || r.status === status)
      .sort((a, b) => b.id - a.id);
    if ((ctx.query.get('filter') ?? 'latest') === 'latest') {
      const seen = new Set<string>();
      runs = runs.filter((r) => !seen.has(`${r.appSlug}/${r.name}`) && seen.add(`${r.appSlug}/${r.name}`));
    }
    const { page, headers } = paginate(ctx, runs);
    return {
      status: 200,
      headers,
      body: { total_count: runs.length, check_runs: page.map((r) => runJson(ctx, repo, r)) },
    };
  },

  'checks/list-annotations': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const run = checksOf(ctx.world).run(repo, Number(ctx.params.check_run_id)) ?? fail(404, 'Not Found');
    const { page, headers } = paginate(ctx, run.annotations);
    return {
      status: 200,
      headers,
      body: page.map((a) => ({
        path: a.path,
        blob_href: `${webUrl(ctx.urls, repo)}/blob/${run.headSha}/${a.path}`,
        start_line: a.startLine,
        end_line: a.endLine,
        start_column: null,
        end_column: null,
        annotation_level: a.level,
        title: a.title,
        message: a.message,
        raw_details: null,
      })),
    };
  },

  'repos/create-commit-status': async (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const sha = await shaOf(repo, String(ctx.params.sha));
    const status = checksOf(ctx.world).addStatus(repo, {
      sha,
      context: String(ctx.body.context ?? 'default'),
      state: ctx.body.state as WorldStatus['state'],
      description: String(ctx.body.description ?? ''),
      targetUrl: typeof ctx.body.target_url === 'string' ? ctx.body.target_url : null,
      creator: ctx.actor,
    });
    return { status: 201, body: statusJson(ctx, status, true) };
  },

  'repos/get-combined-status-for-ref': async (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const sha = await shaOf(repo, String(ctx.params.ref));
    const latest = checksOf(ctx.world).latestStatuses(repo, sha);
    const states = new Set(latest.map((s) => s.state));
    const state =
      states.has('failure') || states.has('error')
        ? 'failure'
        : latest.length === 0 || states.has('pending')
          ? 'pending'
          : 'success';
    const { page } = paginate(ctx, latest);
    return {
      status: 200,
      body: {
        state,
        statuses: page.map((s) => statusJson(ctx, s, false)),
        sha,
        total_count: latest.length,
        repository: repoJson(ctx.world, repo, ctx.urls, ctx.cloneUrl(repo)),
        commit_url: `${repoUrl(ctx.urls, repo)}/commits/${sha}`,
        url: `${repoUrl(ctx.urls, repo)}/commits/${sha}/status`,
      },
    };
  },

  'actions/download-job-logs-for-workflow-run': async (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    // GitHub always redirects; the signed URL answers 404 when there is no such job or log.
    const job = Number(ctx.params.job_id);
    return { status: 302, headers: { location: await checksOf(ctx.world).logUrl(job) } };
  },

  'pulls/list-reviews': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const pull = pullOf(ctx, repo);
    const { page, headers } = paginate(ctx, checksOf(ctx.world).reviewsOn(repo, pull.number));
    return { status: 200, headers, body: page.map((r) => reviewJson(ctx, repo, r)) };
  },

  'pulls/create-review': async (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const pull = pullOf(ctx, repo);
    const event = ctx.body.event as string | undefined;
    const body = String(ctx.body.body ?? '');
    if ((event === 'REQUEST_CHANGES' || event === 'COMMENT') && !body)
      fail(422, 'Unprocessable Entity: body is required for this event');
    if (pull.author.toLowerCase() === ctx.actor.toLowerCase() && event && event !== 'COMMENT')
      fail(422, 'Unprocessable Entity: Can not approve or request changes on your own pull request');
    const head = (await repo.git.resolve(pull.pull!.head)) ?? pull.pull!.headSha;
    const comments = (ctx.body.comments as { path: string; line?: number; body: string }[] | undefined) ?? [];
    if (comments.some((c) => typeof c.line !== 'number'))
      fail(422, 'Unprocessable Entity: a review comment needs a line');
    const state =
      event === 'APPROVE'
        ? 'APPROVED'
        : event === 'REQUEST_CHANGES'
          ? 'CHANGES_REQUESTED'
          : event === 'COMMENT'
            ? 'COMMENTED'
            : 'PENDING';
    const review = checksOf(ctx.world).addReview(
      repo,
      { pull: pull.number, author: ctx.actor, state, body, commitSha: String(ctx.body.commit_id ?? head) },
      comments.map((c) => ({ path: c.path, line: c.line!, body: c.body })),
    );
    return { status: 200, body: reviewJson(ctx, repo, review) };
  },

  'pulls/list-review-comments': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const pull = pullOf(ctx, repo);
    const { page, headers } = paginate(ctx, checksOf(ctx.world).commentsOn(repo, pull.number));
    return { status: 200, headers, body: page.map((c) => commentJson(ctx, repo, c)) };
  },

  'pulls/create-reply-for-review-comment': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const pull = pullOf(ctx, repo);
    const store = checksOf(ctx.world);
    const target =
      store.commentsOn(repo, pull.number).find((c) => c.id === Number(ctx.params.comment_id)) ??
      fail(404, 'Not Found');
    // Replies to replies are not supported: the answer joins the thread's first comment.
    const root = target.inReplyTo ?? target.id;
    const review = store.addReview(repo, {
      pull: pull.number,
      author: ctx.actor,
      state: 'COMMENTED',
      body: '',
      commitSha: target.commitSha,
    });
    const reply = store.addReviewComment(repo, {
      pull: pull.number,
      reviewId: review.id,
      author: ctx.actor,
      body: String(ctx.body.body),
      path: target.path,
      line: target.line,
      commitSha: target.commitSha,
      inReplyTo: root,
    });
    return { status: 201, body: commentJson(ctx, repo, reply) };
  },
};
