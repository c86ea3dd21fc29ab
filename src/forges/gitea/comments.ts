// Comments and reactions on Gitea, including the sticky comment: the bot's own comment carrying
// `<!-- marker -->` is edited in place, never posted twice. Gitea answers an issue's comments in
// one list (the endpoint takes no paging parameters); a `Link: next`, if a server sends one, is followed.
import { isAppError } from '../../errors.ts';
import type { Comment, Forge, IssueRef } from '../types.ts';
import { formatIssueRef, formatRepo } from '../types.ts';
import type { GiteaClient } from './client.ts';
import { toComment } from './mappers.ts';
import { issuePath, repoPath, writeOn } from './paths.ts';
import { GiteaComment } from './schema.ts';

type CommentOps = Pick<Forge, 'createComment' | 'listComments' | 'upsertStickyComment' | 'reactToComment'>;

const markerTag = (marker: string) => `<!-- ${marker} -->`;

export const commentOps = (
  client: GiteaClient,
  botLogin: string,
  opts: { cache?: boolean } = {},
): CommentOps => {
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

  return {
    createComment,
    listComments,

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
