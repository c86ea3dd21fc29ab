// zod schemas of the GitHub webhook fields intake reads, and nothing more: a payload is checked here
// once, at the edge. Field names follow @octokit/openapi-webhooks-types.
import { z } from 'zod';

const positiveInt = z.number().int().positive();

export const githubUserSchema = z.object({ login: z.string().min(1), type: z.string() });

export const githubRepositorySchema = z.object({
  name: z.string().min(1),
  owner: z.object({ login: z.string().min(1) }),
});

const installation = z.object({ id: positiveInt }).nullish();

const common = {
  repository: githubRepositorySchema,
  sender: githubUserSchema,
  installation,
};

const milestone = z.object({ number: positiveInt, title: z.string(), description: z.string().nullish() });

export const githubIssueCommentSchema = z.object({
  action: z.string(),
  issue: z.object({ number: positiveInt, pull_request: z.object({}).passthrough().nullish() }),
  comment: z.object({ id: positiveInt, body: z.string().nullish(), user: githubUserSchema }),
  ...common,
});

export const githubIssuesSchema = z.object({
  action: z.string(),
  issue: z.object({
    number: positiveInt,
    /** The text an approval covers (its hash is kept, never the text). */
    title: z.string().optional(),
    body: z.string().nullish(),
    milestone: milestone.nullish(),
    labels: z.array(z.object({ name: z.string() })).nullish(),
  }),
  label: z.object({ name: z.string() }).nullish(),
  ...common,
});

export const githubMilestoneSchema = z.object({ action: z.string(), milestone, ...common });

export const githubPullRequestSchema = z.object({
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

/** An issue inside a dependency or sub-issue event: its repository is read from `repository_url`. */
export const githubLinkedIssueSchema = z.object({
  number: positiveInt,
  repository_url: z.string().regex(/\/repos\/[^/]+\/[^/]+$/, 'expected …/repos/{owner}/{name}'),
});

export const githubIssueDependenciesSchema = z.object({
  action: z.enum(['blocked_by_added', 'blocked_by_removed', 'blocking_added', 'blocking_removed']),
  blocked_issue: githubLinkedIssueSchema,
  blocking_issue: githubLinkedIssueSchema,
  ...common,
});

export const githubSubIssuesSchema = z.object({
  action: z.enum(['sub_issue_added', 'sub_issue_removed', 'parent_issue_added', 'parent_issue_removed']),
  parent_issue: githubLinkedIssueSchema,
  sub_issue: githubLinkedIssueSchema,
  ...common,
});

/**
 * `installation`: only `new_permissions_accepted` is followed (an owner accepted the App's new
 * permissions); it names the installation, its account, and often the repositories it covers (`full_name`).
 */
export const githubInstallationSchema = z.object({
  action: z.string(),
  installation: z.object({ id: positiveInt, account: z.object({ login: z.string().min(1) }).nullish() }),
  repositories: z
    .array(z.object({ full_name: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/) }))
    .nullish(),
  sender: githubUserSchema,
});
