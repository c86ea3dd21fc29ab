// zod schemas of the Gitea webhook fields intake reads (Gitea's IssueCommentPayload, IssuePayload and
// PullRequestPayload, with Issue/Comment/User/Repository as in the v1.22 swagger).
import { z } from 'zod';

const positiveInt = z.number().int().positive();

export const giteaUserSchema = z.object({ id: z.number().int(), login: z.string().min(1) });

export const giteaRepositorySchema = z.object({
  name: z.string().min(1),
  owner: z.object({ login: z.string().min(1) }),
});

const common = { repository: giteaRepositorySchema, sender: giteaUserSchema };

export const giteaIssueSchema = z.object({
  number: positiveInt,
  /** Present (PullRequestMeta) when the issue is a pull request. */
  pull_request: z.object({}).passthrough().nullish(),
  /** Gitea addresses milestones by id. */
  milestone: z.object({ id: positiveInt, title: z.string() }).nullish(),
  labels: z.array(z.object({ name: z.string() })).nullish(),
  /** The text an approval covers (its hash is kept, never the text). */
  title: z.string().optional(),
  body: z.string().nullish(),
});

export const giteaIssueCommentSchema = z.object({
  action: z.string(),
  issue: giteaIssueSchema,
  comment: z.object({ id: positiveInt, body: z.string().nullish(), user: giteaUserSchema }),
  is_pull: z.boolean().nullish(),
  ...common,
});

export const giteaIssuesSchema = z.object({ action: z.string(), issue: giteaIssueSchema, ...common });

export const giteaPullRequestSchema = z.object({
  action: z.string(),
  number: positiveInt,
  pull_request: z.object({
    merged: z.boolean().nullish(),
    merge_commit_sha: z.string().nullish(),
    head: z.object({ ref: z.string(), sha: z.string() }),
    base: z.object({ ref: z.string() }),
  }),
  ...common,
});
