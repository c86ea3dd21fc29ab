// Comments and reactions on Gitea, including the sticky comment: the bot's own comment carrying
// `<!-- marker -->` is edited in place, never posted twice. Gitea answers an issue's comments in
// one list (the endpoint takes no paging parameters); a `Link: next`, if a server sends one, is followed.
import { isAppError } from '../../errors.ts';
import type { Comment, Forge, IssueRef, RepoComment, RepoRef } from '../types.ts';
import { formatIssueRef, formatRepo } from '../types.ts';
import type { GiteaClient } from './client.ts';
import { toComment } from './mappers.ts';
import { issuePath, repoPath, writeOn } from './paths.ts';
import { GiteaComment } from './schema.ts';

type CommentOps = Pick<
  Forge,
  'createComment' | 'listComments' | 'listRepoComments' | 'upsertStickyComment' | 'reactToComment'
>;

/** The issue or PR number at the end of a comment's `issue_url` / `pull_request_url` (web URLs). */
const numberAtEnd = (url: string | null | undefined): number | undefined => {
  const m = /\/(\d+)\/?$/.exec(url ?? '');
  return m ? Number(m[1]) : undefined;
};

/** A repository-wide comment with the issue it is on; undefined when Gitea names none. */
const toRepoComment = (c: GiteaComment): RepoComment | undefined => {
  const onPull = numberAtEnd(c.pull_request_url);
  const issueNumber = onPull ?? numberAtEnd(c.issue_url);
  if (issueNumber === undefined || issueNumber <= 0) return undefined;
  return { ...toComment(c), authorId: c.user?.id ?? 0, issueNumber, isPullRequest: onPull !== undefined };
};

const markerTag = (marker: string) => `<!-- ${marker} -->`;

export const commentOps = (
  client: GiteaClient,
  botLogin: string,
  opts: { cache?: boolean; pageSize?: number } = {},
): CommentOps => {
  const pageSize = opts.pageSize ?? 50;
  // The bot's sticky comments (dashboards) by issue and marker, as last written; bounded, oldest out.
  const sticky = opts.cache === false ? undefined : new Map<string, Comment>();
  const keep = (key: string, c: Comment): Comment => {
    if (!sticky) return c;
    sticky.delete(key);
    sticky.set(key, c);
    if (sticky.size > 500) sticky.delete(sticky.keys().next().value as string);
    return c;
  };
  const listComments = async (ref: IssueRef): Promise<Comment[]> =>
    (
      await client.paged(GiteaComment, {
        method: 'GET',
        path: `${issuePath(ref)}/comments`,
        what: `list comments of ${formatIssueRef(ref)}`,
      })
    ).map(toComment);

  const createComment = async (ref: IssueRef, body: string): Promise<Comment> =>
    toComment(
      await client.json(GiteaComment, {
        method: 'POST',
        path: `${issuePath(ref)}/comments`,
        body: { body },
        what: `comment on ${formatIssueRef(ref)}`,
        needs: writeOn(ref.repo),
      }),
    );

  // Gitea lists a repository's comments oldest first, filtered on updated_at by `since`.
  const listRepoComments = async (
    repo: RepoRef,
    o: { since: string; maxPages: number },
  ): Promise<{ comments: RepoComment[]; complete: boolean }> => {
    const comments: RepoComment[] = [];
    for (let page = 1; page <= o.maxPages; page += 1) {
      const items = await client.json(GiteaComment.array(), {
        method: 'GET',
        path: `${repoPath(repo)}/issues/comments`,
        query: { since: o.since, page, limit: pageSize },
        what: `list comments of ${formatRepo(repo)} since ${o.since}`,
      });
      for (const c of items) {
        const one = toRepoComment(c);
        if (one) comments.push(one);
      }
      if (items.length < pageSize) return { comments, complete: true };
    }
    return { comments, complete: false };
  };

  return {
    createComment,
    listComments,
    listRepoComments,

    upsertStickyComment: async (ref, marker, body, opts) => {
      const tag = markerTag(marker);
      const text = body.includes(tag) ? body : `${tag}\n${body}`;
      const key = `${formatIssueRef(ref)} ${tag}`;
      const edit = async (id: number) =>
        keep(
          key,
          toComment(
            await client.json(GiteaComment, {
              method: 'PATCH',
              path: `${repoPath(ref.repo)}/issues/comments/${id}`,
              body: { body: text },
              what: `edit comment ${id} on ${formatIssueRef(ref)}`,
              needs: writeOn(ref.repo),
            }),
          ),
        );
      // Edited in place where it was last written; gone (deleted by a person), it is looked for again.
      const known = sticky?.get(key);
      if (known) {
        if (known.body === text) return known;
        try {
          return await edit(known.id);
        } catch (err) {
          sticky?.delete(key);
          if (!isAppError(err) || err.code !== 'not_found') throw err;
        }
      }
      // A new marker has no comment yet: created without a list of every comment first.
      const mine = opts?.fresh
        ? undefined
        : (await listComments(ref)).find(
            (c) => c.author.toLowerCase() === botLogin.toLowerCase() && c.body.includes(tag),
          );
      if (!mine) return keep(key, await createComment(ref, text));
      if (mine.body === text) return keep(key, mine);
      return edit(mine.id);
    },

    reactToComment: async (repo, commentId, reaction) => {
      await client.none({
        method: 'POST',
        path: `${repoPath(repo)}/issues/comments/${commentId}/reactions`,
        body: { content: reaction },
        what: `react to comment ${commentId} in ${formatRepo(repo)}`,
        needs: `read access to ${formatRepo(repo)}`,
      });
    },
  };
};
