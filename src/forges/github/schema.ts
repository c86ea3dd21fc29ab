// zod schemas for what the GitHub adapter reads beyond octokit's REST types: every GraphQL response,
// and the REST fields whose shape the typings leave open (file contents).
import { z } from 'zod';

export const PageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });

export const RepoName = z.object({ nameWithOwner: z.string().regex(/^[^/]+\/[^/]+$/) });

/** A linked issue; null when GitHub will not show it to the app (counted, never named). */
export const IssueLink = z
  .object({
    number: z.number().int(),
    title: z.string(),
    state: z.enum(['OPEN', 'CLOSED']),
    repository: RepoName,
  })
  .nullable();
export type IssueLink = z.infer<typeof IssueLink>;

export const LabelNode = z.object({ name: z.string(), description: z.string().nullable() });
export const LoginNode = z.object({ login: z.string() });

const conn = <T extends z.ZodType>(node: T) => z.object({ pageInfo: PageInfo, nodes: z.array(node) });

export const NestedConnections = {
  labels: conn(LabelNode),
  assignees: conn(LoginNode),
  subIssues: conn(IssueLink),
  blockedBy: conn(IssueLink).extend({ totalCount: z.number().int() }),
};

export const IssueNode = z.object({
  id: z.string(),
  number: z.number().int(),
  title: z.string(),
  body: z.string(),
  state: z.enum(['OPEN', 'CLOSED']),
  createdAt: z.string(),
  locked: z.boolean(),
  /** GraphQL names an App `<slug>` (a `Bot`) where REST and webhooks say `<slug>[bot]`. */
  author: LoginNode.extend({ __typename: z.string().optional() }).nullable(),
  milestone: z.object({ number: z.number().int(), title: z.string() }).nullable(),
  parent: z.object({ number: z.number().int(), repository: RepoName }).nullable(),
  ...NestedConnections,
});
export type IssueNode = z.infer<typeof IssueNode>;

export const MilestoneIssuesResponse = z.object({
  repository: z
    .object({
      milestone: z
        .object({
          number: z.number(),
          title: z.string(),
          description: z.string().nullable(),
          state: z.string(),
          openIssues: z.object({ totalCount: z.number() }),
          closedIssues: z.object({ totalCount: z.number() }),
          issues: z.object({ pageInfo: PageInfo, nodes: z.array(IssueNode) }),
        })
        .nullable(),
    })
    .nullable(),
});

/** `branchAheadQuery`: the base ref is null when the base branch does not exist. */
export const BranchAheadResponse = z.object({
  repository: z
    .object({
      ref: z.object({ compare: z.object({ aheadBy: z.number().int() }).nullable() }).nullable(),
    })
    .nullable(),
});

export const ClosingIssuesResponse = z.object({
  repository: z
    .object({
      pullRequest: z
        .object({
          closingIssuesReferences: z.object({
            pageInfo: PageInfo,
            nodes: z.array(z.object({ number: z.number().int(), repository: RepoName }).nullable()),
          }),
        })
        .nullable(),
    })
    .nullable(),
});

/** `GET /repos/{o}/{r}/contents/{path}` for a file (a directory is an array and is not a file). */
export const ContentFile = z.object({
  type: z.literal('file'),
  encoding: z.string(),
  content: z.string(),
});

/** The answer to `CloseIssueWithComment`: the issue's state after the close. */
export const CloseIssueWithCommentResponse = z.object({
  closeIssue: z.object({ issue: z.object({ state: z.string() }).nullable() }).nullable(),
});

/**
 * A GraphQL answer with errors and the data it could still give (octokit's GraphqlResponseError): the
 * errors each with the field it is about.
 */
export const GraphqlErrors = z.object({
  errors: z
    .array(
      z.object({
        message: z.string(),
        type: z.string().optional(),
        path: z.array(z.union([z.string(), z.number()])).optional(),
      }),
    )
    .min(1),
  data: z.unknown(),
});
export type GraphqlErrors = z.infer<typeof GraphqlErrors>;
