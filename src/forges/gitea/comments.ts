// Comments and reactions on Gitea, including the sticky comment: the bot's own comment carrying
// `<!-- marker -->` is edited in place, never posted twice. Gitea answers an issue's comments in
// one list (the endpoint takes no paging parameters); a `Link: next`, if a server sends one, is followed.
import type { Comment, Forge, IssueRef } from '../types.ts';
import { formatIssueRef, formatRepo } from '../types.ts';
import type { GiteaClient } from './client.ts';
import { toComment } from './mappers.ts';
import { issuePath, repoPath, writeOn } from './paths.ts';
import { GiteaComment } from './schema.ts';

type CommentOps = Pick<Forge, 'createComment' | 'listComments' | 'upsertStickyComment' | 'reactToComment'>;

const markerTag = (marker: string) => `<!-- ${marker} -->`;

export const commentOps = (client: GiteaClient, botLogin: string): CommentOps => {
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

    upsertStickyComment: async (ref, marker, body) => {
      const tag = markerTag(marker);
      const text = body.includes(tag) ? body : `${tag}\n${body}`;
      const mine = (await listComments(ref)).find(
        (c) => c.author.toLowerCase() === botLogin.toLowerCase() && c.body.includes(tag),
      );
      if (!mine) return createComment(ref, text);
      if (mine.body === text) return mine;
      return toComment(
        await client.json(GiteaComment, {
          method: 'PATCH',
          path: `${repoPath(ref.repo)}/issues/comments/${mine.id}`,
          body: { body: text },
          what: `edit comment ${mine.id} on ${formatIssueRef(ref)}`,
          needs: writeOn(ref.repo),
        }),
      );
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
