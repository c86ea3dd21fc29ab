// zod schemas for the parts of Gitea's API answers the adapter reads. Gitea sends null for absent
// objects (milestone, pull_request, assignees…), so optional fields accept null as well.
import { z } from 'zod';

export const GiteaUser = z.object({ id: z.number().optional(), login: z.string() });

export const GiteaLabel = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullish(),
});
export type GiteaLabel = z.infer<typeof GiteaLabel>;

export const GiteaMilestone = z.object({
  id: z.number(),
  title: z.string(),
  description: z.string().nullish(),
  state: z.enum(['open', 'closed']),
  open_issues: z.number().nullish(),
  closed_issues: z.number().nullish(),
});
export type GiteaMilestone = z.infer<typeof GiteaMilestone>;

export const GiteaIssue = z.object({
  id: z.number(),
  number: z.number(),
  title: z.string(),
  body: z.string().nullish(),
  state: z.enum(['open', 'closed']),
  user: GiteaUser.nullish(),
  labels: z.array(GiteaLabel).nullish(),
  assignees: z.array(GiteaUser).nullish(),
  milestone: GiteaMilestone.nullish(),
  created_at: z.string(),
  /** Bumped by every comment, and Gitea comments on both issues of a dependency added or removed. */
  updated_at: z.string().nullish(),
  is_locked: z.boolean().nullish(),
  pull_request: z.object({ merged: z.boolean().nullish() }).nullish(),
  repository: z.object({ owner: z.string(), name: z.string() }).nullish(),
});
export type GiteaIssue = z.infer<typeof GiteaIssue>;

export const GiteaComment = z.object({
  id: z.number(),
  body: z.string().nullish(),
  user: GiteaUser.nullish(),
  created_at: z.string(),
  updated_at: z.string(),
  /** The issue's web URL; empty on a PR's comment (Gitea fills `pull_request_url` instead). */
  issue_url: z.string().nullish(),
  pull_request_url: z.string().nullish(),
});
export type GiteaComment = z.infer<typeof GiteaComment>;

export const GiteaRepo = z.object({
  default_branch: z.string(),
  clone_url: z.string(),
  full_name: z.string().nullish(),
});

export const GiteaBranch = z.object({ name: z.string(), commit: z.object({ id: z.string() }) });

/** `compare/{base...head}`: only the count is read (the commits head has that base has not). */
export const GiteaCompare = z.object({ total_commits: z.number().int() });

export const GiteaPermission = z.object({ permission: z.string() });

export const GiteaContents = z.object({
  type: z.string(),
  encoding: z.string().nullish(),
  content: z.string().nullish(),
});

const GiteaBranchInfo = z.object({ ref: z.string(), sha: z.string() });

export const GiteaPull = z.object({
  number: z.number(),
  title: z.string(),
  body: z.string().nullish(),
  state: z.enum(['open', 'closed']),
  merged: z.boolean().nullish(),
  merge_commit_sha: z.string().nullish(),
  mergeable: z.boolean().nullish(),
  merge_base: z.string().nullish(),
  head: GiteaBranchInfo,
  base: GiteaBranchInfo,
  user: GiteaUser.nullish(),
  html_url: z.string(),
});
export type GiteaPull = z.infer<typeof GiteaPull>;

export const GiteaChangedFile = z.object({
  filename: z.string(),
  status: z.string(),
  additions: z.number().nullish(),
  deletions: z.number().nullish(),
});
export type GiteaChangedFile = z.infer<typeof GiteaChangedFile>;

export const GiteaCommit = z.object({ sha: z.string(), commit: z.object({ message: z.string() }) });

/** Gitea's error body, `{ message, url }`; read only to enrich our own message. */
export const GiteaErrorBody = z.object({ message: z.string() });
