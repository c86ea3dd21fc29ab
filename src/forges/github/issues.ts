// Issues, labels, blocked-by edges, comments (including the bot's one sticky comment per marker) and
// reactions on GitHub, through octokit REST.
import { AppError } from '../../errors.ts';
import {
  type Comment,
  formatIssueRef,
  formatRepo,
  type Issue,
  type IssueRef,
  type NewIssue,
  type Reaction,
  type RepoRef,
} from '../types.ts';
import type { GithubClient } from './client.ts';
import { call, statusOf, toAppError } from './errors.ts';
import { closeManyWithCommentsMutation, closeWithCommentMutation } from './graphql.ts';
import { toComment, toIssue } from './mappers.ts';
import type { NodeIds } from './node-ids.ts';
import { CloseIssueWithCommentResponse, GraphqlErrors } from './schema.ts';

const at = (ref: IssueRef) => ({ owner: ref.repo.owner, repo: ref.repo.name, issue_number: ref.number });

export const issueOps = (
  gh: GithubClient,
  botLogin: string,
  opts: { cache?: boolean; ids?: NodeIds } = {},
) => {
  // The bot's sticky comments (dashboards) by issue and marker, as last written; bounded, oldest out.
  const sticky = opts.cache === false ? undefined : new Map<string, Comment>();
  const keep = (key: string, c: Comment): Comment => {
    if (!sticky) return c;
    sticky.delete(key);
    sticky.set(key, c);
    if (sticky.size > 500) sticky.delete(sticky.keys().next().value as string);
    return c;
  };
  const getIssue = async (ref: IssueRef): Promise<Issue> => {
    const { data } = await call(
      { action: `read issue #${ref.number}`, repo: ref.repo, need: 'issues:read' },
      () => gh.rest.issues.get(at(ref)),
    );
    opts.ids?.set(ref, data.node_id);
    return toIssue(ref.repo, data);
  };

  const setState = async (ref: IssueRef, state: 'open' | 'closed'): Promise<void> => {
    const verb = state === 'closed' ? 'close' : 'reopen';
    await call({ action: `${verb} issue #${ref.number}`, repo: ref.repo, need: 'issues:write' }, () =>
      gh.rest.issues.update({
        ...at(ref),
        state,
        ...(state === 'closed' ? { state_reason: 'completed' as const } : {}),
      }),
    );
  };

  const listComments = async (ref: IssueRef): Promise<Comment[]> => {
    const all = await call(
      { action: `list comments of #${ref.number}`, repo: ref.repo, need: 'issues:read' },
      () => gh.paginate(gh.rest.issues.listComments, { ...at(ref), per_page: 100 }),
    );
    return all.map(toComment);
  };

  const createComment = async (ref: IssueRef, body: string): Promise<Comment> => {
    const { data } = await call(
      { action: `comment on #${ref.number}`, repo: ref.repo, need: 'issues:write' },
      () => gh.rest.issues.createComment({ ...at(ref), body }),
    );
    return toComment(data);
  };

  /**
   * With a comment, on an issue whose node id the adapter has read: the comment and the close in one
   * GraphQL request (one request against the rate limit instead of two). Otherwise through REST.
   */
  const closeIssue = async (ref: IssueRef, close: { comment?: string } = {}): Promise<void> => {
    const id = close.comment === undefined ? undefined : opts.ids?.get(ref);
    if (close.comment !== undefined && id === undefined) await createComment(ref, close.comment);
    if (id === undefined || close.comment === undefined) return setState(ref, 'closed');
    const raw = await call(
      { action: `comment on and close issue #${ref.number}`, repo: ref.repo, need: 'issues:write' },
      () => gh.graphql(closeWithCommentMutation, { id, body: close.comment }),
    );
    if (CloseIssueWithCommentResponse.safeParse(raw).data?.closeIssue?.issue?.state !== 'CLOSED')
      throw new AppError(
        'forge_error',
        `GitHub did not say issue #${ref.number} on ${formatRepo(ref.repo)} is closed after closing it`,
      );
  };

  /**
   * Several closes with their comments in one GraphQL request, for the issues whose node ids the adapter
   * has read (the rest one by one, as closeIssue). Each answers on its own: a close GitHub refused (or
   * did not say it made) fails alone; a request that failed whole fails them all.
   */
  const closeIssues = async (
    closes: readonly { ref: IssueRef; comment: string }[],
  ): Promise<PromiseSettledResult<void>[]> => {
    const ids = closes.map((c) => opts.ids?.get(c.ref));
    const together = ids.flatMap((id, i) => (id === undefined ? [] : [i]));
    const answers: PromiseSettledResult<void>[] = [];
    if (together.length > 1) {
      const variables = Object.fromEntries(
        together.flatMap((at, i) => [
          [`id${i}`, ids[at]],
          [`body${i}`, closes[at]!.comment],
        ]),
      );
      const action = (n: number) => `comment on and close issue #${n}`;
      let raw: unknown;
      let errors: GraphqlErrors['errors'] = [];
      try {
        raw = await gh.graphql(closeManyWithCommentsMutation(together.length), variables);
      } catch (err) {
        const partial = GraphqlErrors.safeParse(err);
        if (!partial.success) {
          const numbers = together.map((at) => `#${closes[at]!.ref.number}`).join(', ');
          const whole = toAppError(err, {
            action: `comment on and close issues ${numbers}`,
            repo: closes[together[0]!]!.ref.repo,
            need: 'issues:write',
          });
          for (const at of together) answers[at] = { status: 'rejected', reason: whole };
        } else {
          raw = partial.data.data;
          errors = partial.data.errors;
        }
      }
      const data = (raw ?? {}) as Record<string, unknown>;
      together.forEach((at, i) => {
        if (answers[at]) return;
        const { ref } = closes[at]!;
        // An error of no field (the rate limit) is every close's.
        const mine = errors.filter(
          (e) => e.path === undefined || e.path[0] === `c${i}` || e.path[0] === `k${i}`,
        );
        const closed = CloseIssueWithCommentResponse.shape.closeIssue.safeParse(data[`k${i}`]).data;
        answers[at] =
          mine.length === 0 && closed?.issue?.state === 'CLOSED'
            ? { status: 'fulfilled', value: undefined }
            : {
                status: 'rejected',
                reason: mine.length
                  ? toAppError(
                      { errors: mine },
                      { action: action(ref.number), repo: ref.repo, need: 'issues:write' },
                    )
                  : new AppError(
                      'forge_error',
                      `GitHub did not say issue #${ref.number} on ${formatRepo(ref.repo)} is closed after closing it`,
                    ),
              };
      });
    }
    for (const [at, c] of closes.entries())
      if (!answers[at])
        answers[at] = await closeIssue(c.ref, { comment: c.comment }).then(
          (): PromiseSettledResult<void> => ({ status: 'fulfilled', value: undefined }),
          (reason: unknown): PromiseSettledResult<void> => ({ status: 'rejected', reason }),
        );
    return answers;
  };

  return {
    getIssue,
    closeIssue,
    closeIssues,
    reopenIssue: (ref: IssueRef) => setState(ref, 'open'),

    async createIssue(repo: RepoRef, issue: NewIssue): Promise<Issue> {
      const { data } = await call({ action: 'create an issue', repo, need: 'issues:write' }, () =>
        gh.rest.issues.create({
          owner: repo.owner,
          repo: repo.name,
          title: issue.title,
          body: issue.body,
          ...(issue.labels ? { labels: issue.labels } : {}),
          ...(issue.milestone !== undefined ? { milestone: issue.milestone } : {}),
        }),
      );
      opts.ids?.set({ repo, number: data.number }, data.node_id);
      return toIssue(repo, data);
    },

    async addBlockedBy(issue: IssueRef, blocker: IssueRef): Promise<void> {
      // The REST endpoint takes the blocker's database id, not its number.
      const { data: b } = await call(
        { action: `read blocker #${blocker.number}`, repo: blocker.repo, need: 'issues:read' },
        () => gh.rest.issues.get(at(blocker)),
      );
      const ctx = {
        action: `mark #${issue.number} blocked by #${blocker.number}`,
        repo: issue.repo,
        need: 'issues:write',
      };
      try {
        await call(ctx, () => gh.rest.issues.addBlockedByDependency({ ...at(issue), issue_id: b.id }));
      } catch (err) {
        if (statusOf(err) !== 422) throw err;
        // 422 when the edge already exists: idempotent if it really is there, an error otherwise.
        const existing = await call({ ...ctx, action: `list blockers of #${issue.number}` }, () =>
          gh.paginate(gh.rest.issues.listDependenciesBlockedBy, { ...at(issue), per_page: 100 }),
        );
        if (!existing.some((e) => e.id === b.id)) throw err;
      }
    },

    async addLabels(ref: IssueRef, labels: string[]): Promise<void> {
      if (labels.length === 0) return;
      await call({ action: `label #${ref.number}`, repo: ref.repo, need: 'issues:write' }, () =>
        gh.rest.issues.addLabels({ ...at(ref), labels }),
      );
    },

    async removeLabel(ref: IssueRef, label: string): Promise<void> {
      try {
        await call({ action: `unlabel #${ref.number}`, repo: ref.repo, need: 'issues:write' }, () =>
          gh.rest.issues.removeLabel({ ...at(ref), name: label }),
        );
      } catch (err) {
        // 404 means the label was not on the issue (fine) or the issue is missing (re-read tells which).
        if (statusOf(err) !== 404) throw err;
        await getIssue(ref);
      }
    },

    async listIssuesWithLabel(repo: RepoRef, label: string): Promise<Issue[]> {
      const all = await call({ action: `list issues labelled ${label}`, repo, need: 'issues:read' }, () =>
        gh.paginate(gh.rest.issues.listForRepo, {
          owner: repo.owner,
          repo: repo.name,
          labels: label,
          state: 'open',
          per_page: 100,
        }),
      );
      return all.map((i) => toIssue(repo, i)).filter((i) => !i.isPullRequest);
    },

    createComment,
    listComments,

    async upsertStickyComment(
      ref: IssueRef,
      marker: string,
      body: string,
      fresh: { fresh?: boolean } = {},
    ): Promise<Comment> {
      const tag = /^<!--.*-->$/s.test(marker.trim()) ? marker.trim() : `<!-- ${marker} -->`;
      const text = body.includes(tag) ? body : `${tag}\n${body}`;
      const key = `${formatIssueRef(ref)} ${tag}`;
      const edit = async (id: number) => {
        const { data } = await call(
          { action: `edit comment ${id}`, repo: ref.repo, need: 'issues:write' },
          () =>
            gh.rest.issues.updateComment({
              owner: ref.repo.owner,
              repo: ref.repo.name,
              comment_id: id,
              body: text,
            }),
        );
        return keep(key, toComment(data));
      };
      // The sticky comment found or written last time is edited in place: no list of every comment
      // before each dashboard edit. Gone (deleted by a person), it is looked for again.
      const known = sticky?.get(key);
      if (known) {
        if (known.body === text) return known;
        try {
          return await edit(known.id);
        } catch (err) {
          sticky?.delete(key);
          if (statusOf(err) !== 404) throw err;
        }
      }
      // A new marker has no comment yet: created without a list of every comment first.
      const mine = fresh.fresh
        ? undefined
        : (await listComments(ref)).find(
            (c) => c.author.toLowerCase() === botLogin.toLowerCase() && c.body.includes(tag),
          );
      if (!mine) return keep(key, await createComment(ref, text));
      if (mine.body === text) return keep(key, mine);
      return edit(mine.id);
    },

    async reactToComment(repo: RepoRef, commentId: number, reaction: Reaction): Promise<void> {
      await call({ action: `react to comment ${commentId}`, repo, need: 'issues:write' }, () =>
        gh.rest.reactions.createForIssueComment({
          owner: repo.owner,
          repo: repo.name,
          comment_id: commentId,
          content: reaction,
        }),
      );
    },
  };
};
