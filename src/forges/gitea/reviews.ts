// Reviews on Gitea: a PR's reviews (Gitea marks those on an older head `stale`), their line comments
// (file, line) read review by review, and a reply on a comment's thread. Gitea's API has no reply
// endpoint: a review comment on the same file and line joins that conversation, as its web UI does.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { IssueRef, Review, ReviewComment } from '../types.ts';
import { formatIssueRef } from '../types.ts';
import type { GiteaClient } from './client.ts';
import { repoPath, writeOn } from './paths.ts';
import { GiteaUser } from './schema.ts';

const GiteaReview = z.object({
  id: z.number(),
  user: GiteaUser.nullish(),
  state: z.string().nullish(),
  body: z.string().nullish(),
  commit_id: z.string().nullish(),
  stale: z.boolean().nullish(),
  dismissed: z.boolean().nullish(),
  submitted_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  comments_count: z.number().nullish(),
});

const GiteaReviewComment = z.object({
  id: z.number(),
  pull_request_review_id: z.number().nullish(),
  user: GiteaUser.nullish(),
  body: z.string().nullish(),
  path: z.string().nullish(),
  position: z.number().nullish(),
  original_position: z.number().nullish(),
  commit_id: z.string().nullish(),
  created_at: z.string().nullish(),
});
type GiteaReviewComment = z.infer<typeof GiteaReviewComment>;

const states: Record<string, Review['state']> = {
  APPROVED: 'approved',
  REQUEST_CHANGES: 'changes_requested',
  COMMENT: 'commented',
  PENDING: 'pending',
  REQUEST_REVIEW: 'pending',
};

const pullPath = (ref: IssueRef) => `${repoPath(ref.repo)}/pulls/${ref.number}`;

const toComment = (c: GiteaReviewComment): ReviewComment => ({
  id: c.id,
  ...(c.pull_request_review_id ? { reviewId: c.pull_request_review_id } : {}),
  author: c.user?.login ?? 'ghost',
  body: c.body ?? '',
  path: c.path ?? '',
  // Gitea's `position` is the line in the new file (0 when the comment is on the old side).
  ...(c.position ? { line: c.position } : {}),
  ...(c.commit_id ? { commitSha: c.commit_id } : {}),
  createdAt: c.created_at ?? '',
});

export const reviewOps = (client: GiteaClient, pageSize: number) => {
  const listGiteaReviews = (ref: IssueRef) =>
    client.paged(
      GiteaReview,
      { method: 'GET', path: `${pullPath(ref)}/reviews`, what: `list the reviews of ${formatIssueRef(ref)}` },
      pageSize,
    );

  // The review comments this process read, by PR and id: a reply goes on a comment's file and line,
  // which Gitea never changes, so a comment the feedback read saw is answered without listing again.
  const seen = new Map<string, ReviewComment>();
  const seenKey = (ref: IssueRef, id: number) => `${formatIssueRef(ref)}:${id}`.toLowerCase();
  type RawReview = z.infer<typeof GiteaReview>;
  // A submitted review's comments, kept by review as it was listed (its comment count and update time):
  // the feedback loop lists the reviews every pass, and a review read once is not read again until the
  // list shows it changed. Per process and bounded, oldest first out.
  const byReview = new Map<string, ReviewComment[]>();
  const reviewKey = (ref: IssueRef, r: Pick<RawReview, 'id' | 'comments_count' | 'updated_at'>) =>
    `${formatIssueRef(ref)}:${r.id}:${r.comments_count ?? 0}:${r.updated_at ?? ''}`.toLowerCase();
  const keepReview = (key: string, comments: ReviewComment[]) => {
    byReview.delete(key);
    byReview.set(key, comments);
    while (byReview.size > 2_000) byReview.delete(byReview.keys().next().value as string);
  };
  const commentsOf = async (ref: IssueRef, reviews: RawReview[]): Promise<ReviewComment[]> => {
    const all: ReviewComment[] = [];
    for (const review of reviews.filter((r) => (r.comments_count ?? 0) > 0)) {
      const key = reviewKey(ref, review);
      // A pending review still gathers comments; only a submitted one is kept.
      const kept = review.state === 'PENDING' ? undefined : byReview.get(key);
      if (kept) {
        all.push(...kept);
        continue;
      }
      const comments = (
        await client.json(GiteaReviewComment.array(), {
          method: 'GET',
          path: `${pullPath(ref)}/reviews/${review.id}/comments`,
          what: `read the comments of review ${review.id} on ${formatIssueRef(ref)}`,
        })
      ).map(toComment);
      if (review.state !== 'PENDING') keepReview(key, comments);
      all.push(...comments);
    }
    for (const c of all) {
      seen.delete(seenKey(ref, c.id));
      seen.set(seenKey(ref, c.id), c);
    }
    while (seen.size > 2_000) seen.delete(seen.keys().next().value as string);
    return all.sort((a, b) => a.id - b.id);
  };
  const toReview = (r: RawReview): Review => ({
    id: r.id,
    author: r.user?.login ?? 'ghost',
    state: r.dismissed ? 'dismissed' : (states[r.state ?? ''] ?? 'commented'),
    body: r.body ?? '',
    ...(r.commit_id ? { commitSha: r.commit_id } : {}),
    ...(r.stale ? { stale: true } : {}),
    ...(r.submitted_at ? { submittedAt: r.submitted_at } : {}),
  });
  const listReviewComments = async (ref: IssueRef): Promise<ReviewComment[]> =>
    commentsOf(ref, await listGiteaReviews(ref));

  return {
    listReviews: async (ref: IssueRef): Promise<Review[]> => (await listGiteaReviews(ref)).map(toReview),

    listReviewComments,

    /** Reviews and their comments from one list of the reviews (the feedback loop wants both). */
    reviewsAndComments: async (ref: IssueRef): Promise<{ reviews: Review[]; comments: ReviewComment[] }> => {
      const raw = await listGiteaReviews(ref);
      return { reviews: raw.map(toReview), comments: await commentsOf(ref, raw) };
    },

    replyToReviewComment: async (ref: IssueRef, commentId: number, body: string): Promise<ReviewComment> => {
      const original =
        seen.get(seenKey(ref, commentId)) ?? (await listReviewComments(ref)).find((c) => c.id === commentId);
      if (!original)
        throw new AppError('not_found', `review comment ${commentId} is not on ${formatIssueRef(ref)}`);
      if (original.line === undefined)
        throw new AppError(
          'forge_error',
          `review comment ${commentId} on ${formatIssueRef(ref)} is not on a line of the new code; answer it in a comment instead`,
        );
      const review = await client.json(GiteaReview, {
        method: 'POST',
        path: `${pullPath(ref)}/reviews`,
        body: {
          event: 'COMMENT',
          body: '',
          comments: [{ path: original.path, new_position: original.line, body }],
        },
        what: `answer review comment ${commentId} on ${formatIssueRef(ref)}`,
        needs: writeOn(ref.repo),
      });
      const created = await client.json(GiteaReviewComment.array(), {
        method: 'GET',
        path: `${pullPath(ref)}/reviews/${review.id}/comments`,
        what: `read the answer to review comment ${commentId} on ${formatIssueRef(ref)}`,
      });
      const mine = created[0];
      if (!mine)
        throw new AppError('forge_error', `Gitea kept no comment for the answer on ${formatIssueRef(ref)}`);
      // The answer is a review of its own: as the next list of the reviews shows it, it is read already.
      keepReview(reviewKey(ref, review), created.map(toComment));
      return { ...toComment(mine), inReplyTo: commentId };
    },
  };
};
