// Reviews on GitHub: a PR's reviews and review comments (author, file, line) normalised to Review and
// ReviewComment, and a reply on a review comment's thread. Their text is untrusted: whoever reads it
// decides by the author's permission whether it may reach a prompt.
import type { IssueRef, Review, ReviewComment } from '../types.ts';
import type { GithubClient } from './client.ts';
import { call } from './errors.ts';

const at = (ref: IssueRef) => ({ owner: ref.repo.owner, repo: ref.repo.name, pull_number: ref.number });

/** A review's state as both REST and GraphQL spell it (capitals), in our words. */
export const reviewStates: Record<string, Review['state']> = {
  APPROVED: 'approved',
  CHANGES_REQUESTED: 'changes_requested',
  COMMENTED: 'commented',
  DISMISSED: 'dismissed',
  PENDING: 'pending',
};

interface RawReviewComment {
  id: number;
  pull_request_review_id?: number | null;
  user?: { login: string } | null;
  body: string;
  path: string;
  line?: number | null;
  commit_id?: string;
  in_reply_to_id?: number;
  created_at: string;
}

export const toReviewComment = (c: RawReviewComment): ReviewComment => ({
  id: c.id,
  ...(c.pull_request_review_id ? { reviewId: c.pull_request_review_id } : {}),
  author: c.user?.login ?? 'ghost',
  body: c.body,
  path: c.path,
  ...(typeof c.line === 'number' ? { line: c.line } : {}),
  ...(c.commit_id ? { commitSha: c.commit_id } : {}),
  ...(c.in_reply_to_id ? { inReplyTo: c.in_reply_to_id } : {}),
  createdAt: c.created_at,
});

export const reviewOps = (gh: GithubClient) => ({
  async listReviews(ref: IssueRef): Promise<Review[]> {
    const all = await call(
      { action: `list the reviews of PR #${ref.number}`, repo: ref.repo, need: 'pull_requests:read' },
      () => gh.paginate(gh.rest.pulls.listReviews, { ...at(ref), per_page: 100 }),
    );
    return all.map((r) => ({
      id: r.id,
      author: r.user?.login ?? 'ghost',
      state: reviewStates[r.state] ?? 'commented',
      body: r.body ?? '',
      ...(r.commit_id ? { commitSha: r.commit_id } : {}),
      ...(r.submitted_at ? { submittedAt: r.submitted_at } : {}),
    }));
  },

  async listReviewComments(ref: IssueRef): Promise<ReviewComment[]> {
    const all = await call(
      { action: `list the review comments of PR #${ref.number}`, repo: ref.repo, need: 'pull_requests:read' },
      () => gh.paginate(gh.rest.pulls.listReviewComments, { ...at(ref), per_page: 100 }),
    );
    return all.map(toReviewComment);
  },

  async replyToReviewComment(ref: IssueRef, commentId: number, body: string): Promise<ReviewComment> {
    const { data } = await call(
      {
        action: `answer review comment ${commentId} on PR #${ref.number}`,
        repo: ref.repo,
        need: 'pull_requests:write',
      },
      () => gh.rest.pulls.createReplyForReviewComment({ ...at(ref), comment_id: commentId, body }),
    );
    return toReviewComment(data);
  },
});
