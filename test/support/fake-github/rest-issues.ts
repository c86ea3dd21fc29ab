// The fake GitHub's issue, milestone, label, dependency, comment and reaction endpoints over the World.
import type { WorldIssue, WorldRepo } from '../world.ts';
import {
  fail,
  type Handler,
  type HandlerContext,
  issueOf,
  mustRead,
  mustWrite,
  paginate,
  repoOf,
} from './context.ts';
import { commentJson, issueJson, labelJson, milestoneJson, userJson } from './serialize.ts';

const issueOut = (ctx: HandlerContext, repo: WorldRepo, issue: WorldIssue) =>
  issueJson(ctx.world, repo, issue, ctx.urls);

const milestoneIdOf = (repo: WorldRepo, value: unknown): number | undefined => {
  if (value === null || value === undefined) return undefined;
  const m = repo.milestones.get(Number(value));
  return m ? m.id : fail(422, `Validation Failed: milestone ${String(value)} does not exist`);
};

export const issueHandlers: Record<string, Handler> = {
  'issues/list-milestones': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const state = ctx.query.get('state') ?? 'open';
    const all = [...repo.milestones.values()]
      .filter((m) => state === 'all' || m.state === state)
      .sort((a, b) => a.number - b.number);
    const { page, headers } = paginate(ctx, all);
    return { status: 200, headers, body: page.map((m) => milestoneJson(ctx.world, repo, m, ctx.urls)) };
  },

  'issues/get-milestone': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const m = repo.milestones.get(Number(ctx.params.milestone_number)) ?? fail(404, 'Not Found');
    return { status: 200, body: milestoneJson(ctx.world, repo, m, ctx.urls) };
  },

  'issues/get': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    return { status: 200, body: issueOut(ctx, repo, issueOf(ctx, repo)) };
  },

  'issues/list-for-repo': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const state = ctx.query.get('state') ?? 'open';
    const labels = (ctx.query.get('labels') ?? '').split(',').filter(Boolean);
    const milestone = ctx.query.get('milestone');
    const milestoneId =
      milestone && /^\d+$/.test(milestone) ? repo.milestones.get(Number(milestone))?.id : undefined;
    const items = [...repo.issues.values()]
      .filter((i) => state === 'all' || i.state === state)
      .filter((i) => labels.every((l) => i.labels.some((x) => x.toLowerCase() === l.toLowerCase())))
      .filter((i) => milestone === null || i.milestoneId === milestoneId)
      .sort((a, b) => b.number - a.number);
    const { page, headers } = paginate(ctx, items);
    return { status: 200, headers, body: page.map((i) => issueOut(ctx, repo, i)) };
  },

  'issues/create': (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const labels = (ctx.body.labels as string[] | undefined) ?? [];
    const milestoneId = milestoneIdOf(repo, ctx.body.milestone);
    const milestone = [...repo.milestones.values()].find((m) => m.id === milestoneId);
    const issue = ctx.world.addIssue(repo, {
      title: String(ctx.body.title),
      body: (ctx.body.body as string | undefined) ?? '',
      labels,
      milestone: milestone?.title,
      author: ctx.actor,
    });
    ctx.world.record('create_issue', repo, issue.number, ctx.actor);
    return { status: 201, body: issueOut(ctx, repo, issue) };
  },

  'issues/update': (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    const b = ctx.body;
    if (typeof b.title === 'string') issue.title = b.title;
    if (typeof b.body === 'string') issue.body = b.body;
    if (Array.isArray(b.labels)) issue.labels = b.labels.map(String);
    if ('milestone' in b) issue.milestoneId = milestoneIdOf(repo, b.milestone);
    if (b.state === 'open' || b.state === 'closed') ctx.world.setIssueState(repo, issue, b.state, ctx.actor);
    issue.updatedAt = ctx.world.now();
    return { status: 200, body: issueOut(ctx, repo, issue) };
  },

  'issues/add-labels': (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    for (const name of (ctx.body.labels as string[] | undefined) ?? []) {
      const label = ctx.world.addLabel(repo, name);
      if (!issue.labels.some((l) => l.toLowerCase() === name.toLowerCase())) issue.labels.push(label.name);
    }
    ctx.world.record('add_labels', repo, issue.number, issue.labels.join(','));
    return {
      status: 200,
      body: issue.labels.map((n) => labelJson(repo, ctx.world.addLabel(repo, n), ctx.urls)),
    };
  },

  'issues/remove-label': (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    const name = ctx.params.name!.toLowerCase();
    if (!issue.labels.some((l) => l.toLowerCase() === name)) fail(404, 'Label does not exist');
    issue.labels = issue.labels.filter((l) => l.toLowerCase() !== name);
    ctx.world.record('remove_label', repo, issue.number, name);
    return {
      status: 200,
      body: issue.labels.map((n) => labelJson(repo, ctx.world.addLabel(repo, n), ctx.urls)),
    };
  },

  'issues/list-dependencies-blocked-by': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const issue = issueOf(ctx, repo);
    const blockers = issue.blockedBy.flatMap((r) => {
      const other = ctx.world.repo(r.owner, r.repo);
      const i = other?.issues.get(r.number);
      return other && i ? [issueOut(ctx, other, i)] : [];
    });
    const { page, headers } = paginate(ctx, blockers);
    return { status: 200, headers, body: page };
  },

  'issues/add-blocked-by-dependency': (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    const id = Number(ctx.body.issue_id);
    const found = [...ctx.world.repos.values()]
      .flatMap((r) => [...r.issues.values()].map((i) => ({ r, i })))
      .find(({ i }) => i.id === id);
    if (!found) fail(404, 'Not Found');
    const { r, i } = found!;
    if (issue.blockedBy.some((e) => e.owner === r.owner && e.repo === r.name && e.number === i.number))
      fail(422, 'Validation Failed: the issue is already blocked by this issue');
    issue.blockedBy.push({ owner: r.owner, repo: r.name, number: i.number });
    ctx.world.record('add_blocked_by', repo, issue.number, `${r.owner}/${r.name}#${i.number}`);
    return { status: 201, body: issueOut(ctx, repo, issue) };
  },

  'issues/list-comments': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const issue = issueOf(ctx, repo);
    const { page, headers } = paginate(ctx, ctx.world.commentsOn(repo, issue.number));
    return { status: 200, headers, body: page.map((c) => commentJson(ctx.world, repo, c, ctx.urls)) };
  },

  'issues/create-comment': (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    const c = ctx.world.addComment(repo, issue.number, String(ctx.body.body), ctx.actor);
    return { status: 201, body: commentJson(ctx.world, repo, c, ctx.urls) };
  },

  'issues/update-comment': (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const c = repo.comments.get(Number(ctx.params.comment_id)) ?? fail(404, 'Not Found');
    if (c.author.toLowerCase() !== ctx.actor.toLowerCase())
      fail(403, 'Resource not accessible by integration');
    c.body = String(ctx.body.body);
    c.updatedAt = ctx.world.now();
    ctx.world.record('edit_comment', repo, c.issueNumber, String(c.id));
    return { status: 200, body: commentJson(ctx.world, repo, c, ctx.urls) };
  },

  'reactions/create-for-issue-comment': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const c = repo.comments.get(Number(ctx.params.comment_id)) ?? fail(404, 'Not Found');
    const content = String(ctx.body.content);
    const existing = c.reactions.find((r) => r.content === content && r.user === ctx.actor);
    if (!existing) {
      c.reactions.push({ content, user: ctx.actor });
      ctx.world.record('react', repo, c.issueNumber, content);
    }
    return {
      status: existing ? 200 : 201,
      body: {
        id: c.reactions.length,
        node_id: `R_${c.id}_${c.reactions.length}`,
        user: userJson(ctx.world, ctx.actor, ctx.urls),
        content,
        created_at: ctx.world.now(),
      },
    };
  },
};
