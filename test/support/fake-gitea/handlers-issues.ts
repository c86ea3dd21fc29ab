// Fake Gitea operations on milestones, issues, labels, dependencies, comments and reactions, keyed
// by the swagger's operationId. Each reads or changes the World, as Gitea 1.22 would.
import type { WorldIssue, WorldRepo } from '../world.ts';
import {
  bodyOf,
  canRead,
  type Handler,
  type HandlerContext,
  HttpError,
  intParam,
  isAdmin,
  paginate,
  repoOf,
  requireWrite,
} from './context.ts';
import { renderComment, renderIssue, renderLabel, renderMilestone } from './render.ts';

const issueOf = (ctx: HandlerContext, repo: WorldRepo): WorldIssue => {
  const issue = repo.issues.get(intParam(ctx, 'index'));
  if (!issue) throw new HttpError(404, 'issue does not exist');
  return issue;
};

/** Gitea resolves `milestones=` names first, then ids. */
const milestoneIdsFor = (repo: WorldRepo, list: string): Set<number> => {
  const ids = new Set<number>();
  for (const part of list.split(',').map((p) => p.trim())) {
    const all = [...repo.milestones.values()];
    const hit = all.find((m) => m.title === part) ?? all.find((m) => String(m.id) === part);
    if (hit) ids.add(hit.id);
  }
  return ids;
};

const labelIdsByNameOrId = (repo: WorldRepo, items: unknown[]): string[] =>
  items.flatMap((item) => {
    const label = [...repo.labels.values()].find((l) =>
      typeof item === 'number' ? l.id === item : l.name.toLowerCase() === String(item).toLowerCase(),
    );
    return label ? [label.name] : [];
  });

export const issueHandlers: Record<string, Handler> = {
  issueGetMilestonesList: (ctx) => {
    const repo = repoOf(ctx);
    const state = ctx.query.get('state') ?? 'open';
    const name = ctx.query.get('name')?.toLowerCase();
    const all = [...repo.milestones.values()]
      .filter((m) => state === 'all' || m.state === state)
      .filter((m) => !name || m.title.toLowerCase().includes(name))
      .sort((a, b) => a.id - b.id);
    const { page, headers } = paginate(ctx, all);
    return { status: 200, json: page.map((m) => renderMilestone(m, repo)), headers };
  },

  issueGetMilestone: (ctx) => {
    const repo = repoOf(ctx);
    const key = ctx.params.id ?? '';
    const all = [...repo.milestones.values()];
    const m = all.find((x) => String(x.id) === key) ?? all.find((x) => x.title === key);
    if (!m) throw new HttpError(404, 'milestone does not exist');
    return { status: 200, json: renderMilestone(m, repo) };
  },

  issueListIssues: (ctx) => {
    const repo = repoOf(ctx);
    const state = ctx.query.get('state') ?? 'open';
    const type = ctx.query.get('type');
    const milestones = ctx.query.get('milestones');
    const milestoneIds = milestones ? milestoneIdsFor(repo, milestones) : undefined;
    const labels = ctx.query
      .get('labels')
      ?.split(',')
      .map((l) => l.trim().toLowerCase());
    const all = [...repo.issues.values()]
      .filter((i) => state === 'all' || i.state === state)
      .filter((i) => !type || (type === 'pulls') === Boolean(i.pull))
      .filter((i) => !milestoneIds || (i.milestoneId !== undefined && milestoneIds.has(i.milestoneId)))
      .filter((i) => !labels || i.labels.some((l) => labels.includes(l.toLowerCase())))
      .sort((a, b) => b.number - a.number);
    const { page, headers } = paginate(ctx, all);
    return { status: 200, json: page.map((i) => renderIssue(ctx.world, repo, i, ctx.baseUrl)), headers };
  },

  issueGetIssue: (ctx) => {
    const repo = repoOf(ctx);
    return { status: 200, json: renderIssue(ctx.world, repo, issueOf(ctx, repo), ctx.baseUrl) };
  },

  issueCreateIssue: (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const b = bodyOf(ctx);
    const milestone = [...repo.milestones.values()].find((m) => m.id === b.milestone);
    if (b.milestone !== undefined && b.milestone !== 0 && !milestone) {
      throw new HttpError(422, `milestone ${String(b.milestone)} does not exist`);
    }
    const issue = ctx.world.addIssue(repo, {
      title: String(b.title),
      body: typeof b.body === 'string' ? b.body : '',
      author: ctx.actor,
      labels: labelIdsByNameOrId(repo, Array.isArray(b.labels) ? b.labels : []),
      ...(milestone ? { milestone: milestone.title } : {}),
    });
    ctx.world.record('create_issue', repo, issue.number, ctx.actor);
    return { status: 201, json: renderIssue(ctx.world, repo, issue, ctx.baseUrl) };
  },

  issueEditIssue: (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    const b = bodyOf(ctx);
    if (b.state !== undefined) {
      if (b.state !== 'open' && b.state !== 'closed')
        throw new HttpError(422, `bad state ${String(b.state)}`);
      ctx.world.setIssueState(repo, issue, b.state, ctx.actor);
    }
    if (typeof b.title === 'string') issue.title = b.title;
    if (typeof b.body === 'string') issue.body = b.body;
    return { status: 201, json: renderIssue(ctx.world, repo, issue, ctx.baseUrl) };
  },

  issueListIssueDependencies: (ctx) => {
    const repo = repoOf(ctx);
    const issue = issueOf(ctx, repo);
    // Gitea leaves out blockers the caller cannot read (and those that no longer exist).
    const blockers = issue.blockedBy.flatMap((ref) => {
      const r = ctx.world.repo(ref.owner, ref.repo);
      const blocker = r?.issues.get(ref.number);
      return r && blocker && canRead(ctx, r) ? [renderIssue(ctx.world, r, blocker, ctx.baseUrl)] : [];
    });
    const { page, headers } = paginate(ctx, blockers);
    return { status: 200, json: page, headers };
  },

  issueCreateIssueDependencies: (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    const b = bodyOf(ctx);
    const owner = typeof b.owner === 'string' ? b.owner : repo.owner;
    const name = typeof b.repo === 'string' ? b.repo : repo.name;
    const blockerRepo = ctx.world.repo(owner, name);
    const blocker = blockerRepo?.issues.get(Number(b.index));
    if (!blockerRepo || !blocker || !canRead(ctx, blockerRepo))
      throw new HttpError(404, 'dependency issue does not exist');
    const ref = { owner: blockerRepo.owner, repo: blockerRepo.name, number: blocker.number };
    if (
      !issue.blockedBy.some((e) => e.owner === ref.owner && e.repo === ref.repo && e.number === ref.number)
    ) {
      issue.blockedBy.push(ref);
      // Gitea comments on both issues, and a comment bumps an issue's updated_at.
      issue.updatedAt = ctx.world.now();
      blocker.updatedAt = issue.updatedAt;
      ctx.world.record('add_dependency', repo, issue.number, `${owner}/${name}#${ref.number}`);
    }
    return { status: 201, json: renderIssue(ctx.world, repo, issue, ctx.baseUrl) };
  },

  issueGetComments: (ctx) => {
    const repo = repoOf(ctx);
    const issue = issueOf(ctx, repo);
    const comments = ctx.world.commentsOn(repo, issue.number);
    return { status: 200, json: comments.map((c) => renderComment(ctx.world, repo, c, ctx.baseUrl)) };
  },

  // Every comment of the repository's issues and PRs, oldest first, `since`/`before` on updated_at.
  issueGetRepoComments: (ctx) => {
    const repo = repoOf(ctx);
    const since = ctx.query.get('since');
    const before = ctx.query.get('before');
    const all = [...repo.comments.values()]
      .filter((c) => !since || Date.parse(c.updatedAt) >= Date.parse(since))
      .filter((c) => !before || Date.parse(c.updatedAt) < Date.parse(before))
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id);
    const { page, headers } = paginate(ctx, all);
    return { status: 200, json: page.map((c) => renderComment(ctx.world, repo, c, ctx.baseUrl)), headers };
  },

  issueCreateComment: (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    const comment = ctx.world.addComment(repo, issue.number, String(bodyOf(ctx).body), ctx.actor);
    return { status: 201, json: renderComment(ctx.world, repo, comment, ctx.baseUrl) };
  },

  issueEditComment: (ctx) => {
    const repo = repoOf(ctx);
    const comment = repo.comments.get(intParam(ctx, 'id'));
    if (!comment) throw new HttpError(404, 'comment does not exist');
    if (comment.author.toLowerCase() !== ctx.actor.toLowerCase() && !isAdmin(ctx, repo)) {
      throw new HttpError(403, 'only the poster or an admin may edit a comment');
    }
    comment.body = String(bodyOf(ctx).body);
    comment.updatedAt = ctx.world.now();
    ctx.world.record('edit_comment', repo, comment.issueNumber, String(comment.id));
    return { status: 200, json: renderComment(ctx.world, repo, comment, ctx.baseUrl) };
  },

  issuePostCommentReaction: (ctx) => {
    const repo = repoOf(ctx);
    const comment = repo.comments.get(intParam(ctx, 'id'));
    if (!comment) throw new HttpError(404, 'comment does not exist');
    const content = String(bodyOf(ctx).content);
    const allowed = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'];
    if (!allowed.includes(content)) throw new HttpError(403, `'${content}' is not an allowed reaction`);
    const existing = comment.reactions.find((r) => r.content === content && r.user === ctx.actor);
    if (!existing) {
      comment.reactions.push({ content, user: ctx.actor });
      ctx.world.record('react', repo, comment.issueNumber, content);
    }
    const json = { user: { login: ctx.actor }, content, created_at: ctx.world.now() };
    return { status: existing ? 200 : 201, json };
  },

  issueListLabels: (ctx) => {
    const repo = repoOf(ctx);
    const { page, headers } = paginate(
      ctx,
      [...repo.labels.values()].sort((a, b) => a.id - b.id),
    );
    return { status: 200, json: page.map((l) => renderLabel(l, repo, ctx.baseUrl)), headers };
  },

  issueCreateLabel: (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const b = bodyOf(ctx);
    const name = String(b.name);
    if (repo.labels.has(name.toLowerCase())) throw new HttpError(422, 'label already exists');
    const label = ctx.world.addLabel(repo, name, typeof b.description === 'string' ? b.description : '');
    return { status: 201, json: renderLabel(label, repo, ctx.baseUrl) };
  },

  issueGetLabels: (ctx) => {
    const repo = repoOf(ctx);
    const issue = issueOf(ctx, repo);
    return { status: 200, json: renderIssue(ctx.world, repo, issue, ctx.baseUrl).labels };
  },

  issueAddLabel: (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    const requested = bodyOf(ctx).labels;
    for (const name of labelIdsByNameOrId(repo, Array.isArray(requested) ? requested : [])) {
      if (!issue.labels.some((l) => l.toLowerCase() === name.toLowerCase())) {
        issue.labels.push(name);
        ctx.world.record('label', repo, issue.number, name);
      }
    }
    return { status: 200, json: renderIssue(ctx.world, repo, issue, ctx.baseUrl).labels };
  },

  issueRemoveLabel: (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const issue = issueOf(ctx, repo);
    const label = [...repo.labels.values()].find((l) => l.id === intParam(ctx, 'id'));
    if (!label) throw new HttpError(422, 'label does not exist');
    const before = issue.labels.length;
    issue.labels = issue.labels.filter((l) => l.toLowerCase() !== label.name.toLowerCase());
    if (issue.labels.length !== before) ctx.world.record('unlabel', repo, issue.number, label.name);
    return { status: 204 };
  },
};
