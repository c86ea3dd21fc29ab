// The GraphQL documents the GitHub adapter sends. A milestone loads 100 issues per query with their
// labels, assignees, sub-issue links and blocked-by edges (with each blocker's state and repository,
// so blockers outside the milestone cost no extra call); a nested list longer than 100 is continued
// by `issueConnectionPage`, never cut.

const pageInfo = 'pageInfo { hasNextPage endCursor }';
const refFields = 'number title state repository { nameWithOwner }';

/** The selection of each nested issue connection, by field name. */
export const nestedSelections = {
  labels: `${pageInfo} nodes { name description }`,
  assignees: `${pageInfo} nodes { login }`,
  subIssues: `${pageInfo} nodes { ${refFields} }`,
  blockedBy: `totalCount ${pageInfo} nodes { ${refFields} }`,
} as const;

export type NestedField = keyof typeof nestedSelections;

const issueFields = `
  id number title body state createdAt locked
  author { __typename login }
  milestone { number title }
  parent { number repository { nameWithOwner } }
  ${Object.entries(nestedSelections)
    .map(([field, selection]) => `${field}(first: 100) { ${selection} }`)
    .join('\n  ')}
`;

export const milestoneIssuesQuery = `
query MilestoneIssues($owner: String!, $name: String!, $milestone: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    milestone(number: $milestone) {
      number title description state
      openIssues: issues(first: 1, states: [OPEN]) { totalCount }
      closedIssues: issues(first: 1, states: [CLOSED]) { totalCount }
      issues(first: 100, after: $after, states: [OPEN], orderBy: { field: CREATED_AT, direction: ASC }) {
        ${pageInfo}
        nodes { ${issueFields} }
      }
    }
  }
}`;

/** The next page of one nested connection of one issue. */
export const issueConnectionPage = (field: NestedField): string => `
query IssueConnectionPage($id: ID!, $after: String) {
  node(id: $id) {
    ... on Issue { ${field}(first: 100, after: $after) { ${nestedSelections[field]} } }
  }
}`;

export const closingIssuesQuery = `
query ClosingIssues($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      closingIssuesReferences(first: 100, after: $after) {
        ${pageInfo}
        nodes { number repository { nameWithOwner } }
      }
    }
  }
}`;

/**
 * Several issues' closing comments and closes in one request: each issue's comment then its close
 * (mutations run in order, each on its own: one refused leaves the others done), named `c<i>`/`k<i>`.
 */
export const closeManyWithCommentsMutation = (count: number): string => {
  const vars = Array.from({ length: count }, (_, i) => `$id${i}: ID!, $body${i}: String!`).join(', ');
  const fields = Array.from(
    { length: count },
    (_, i) =>
      `  c${i}: addComment(input: { subjectId: $id${i}, body: $body${i} }) { commentEdge { node { databaseId } } }
  k${i}: closeIssue(input: { issueId: $id${i}, stateReason: COMPLETED }) { issue { state } }`,
  ).join('\n');
  return `mutation CloseIssuesWithComments(${vars}) {\n${fields}\n}`;
};

/** An issue's closing comment and its close, in one request (mutations run in order). */
export const closeWithCommentMutation = `
mutation CloseIssueWithComment($id: ID!, $body: String!) {
  addComment(input: { subjectId: $id, body: $body }) { commentEdge { node { databaseId } } }
  closeIssue(input: { issueId: $id, stateReason: COMPLETED }) { issue { state } }
}`;

const actor = 'author { __typename login }';

/**
 * What the PR feedback loop reads of a PR (pull-feedback.ts `PullFeedbackResponse`): its fields, the head
 * commit's status check rollup (check runs with annotations, commit statuses), reviews, review threads'
 * comments and how many comments its conversation holds. The feedback read selects it, and so does the
 * open's answer, so a PR just opened is not read back (pull-feedback.ts `feedbackOfOpened`).
 */
export const pullFeedbackFields = `
      id number title body state merged url
      mergeCommit { oid }
      headRefName headRefOid baseRefName
      mergeable mergeStateStatus
      ${actor}
      comments(first: 1) { totalCount }
      commits(last: 1) {
        nodes {
          commit {
            oid
            statusCheckRollup {
              contexts(first: 100) {
                ${pageInfo}
                nodes {
                  __typename
                  ... on CheckRun {
                    id databaseId name status conclusion title summary detailsUrl permalink startedAt
                    checkSuite { app { slug } }
                    annotations(first: 50) {
                      nodes { path location { start { line } } annotationLevel message title }
                    }
                  }
                  ... on StatusContext {
                    id context state description targetUrl createdAt
                    creator { __typename login }
                  }
                }
              }
            }
          }
        }
      }
      reviews(first: 100) {
        ${pageInfo}
        nodes { databaseId ${actor} state body commit { oid } submittedAt }
      }
      reviewThreads(first: 100) {
        ${pageInfo}
        nodes {
          comments(first: 100) {
            ${pageInfo}
            nodes {
              databaseId ${actor} body path line createdAt
              commit { oid }
              replyTo { databaseId }
              pullRequestReview { databaseId }
            }
          }
        }
      }`;

/**
 * A new PR and the bot's first `blitz` check run on its head, in one request (mutations run in order:
 * the check is made even when the open is refused, e.g. a PR from that head is open already). The new
 * PR is answered with what the feedback read would read of it (before the check is made).
 */
export const openPullWithCheckMutation = `
mutation OpenPullRequestWithCheck(
  $repositoryId: ID!, $base: String!, $head: String!, $title: String!, $body: String!,
  $sha: GitObjectID!, $name: String!, $status: RequestableCheckStatusState!, $output: CheckRunOutput!,
  $detailsUrl: URI
) {
  createPullRequest(input: {
    repositoryId: $repositoryId, baseRefName: $base, headRefName: $head, title: $title, body: $body
  }) { pullRequest { ${pullFeedbackFields} } }
  createCheckRun(input: {
    repositoryId: $repositoryId, headSha: $sha, name: $name, status: $status, output: $output,
    detailsUrl: $detailsUrl
  }) { checkRun { id databaseId } }
}`;

/**
 * The bot's `blitz` check run brought to its last report, then the PR merged at the head the gate let
 * through, in one request (mutations run in order; a refused merge leaves the report written).
 */
export const mergePullWithCheckMutation = `
mutation MergePullRequestWithCheck(
  $repositoryId: ID!, $checkRunId: ID!, $status: RequestableCheckStatusState!,
  $conclusion: CheckConclusionState, $output: CheckRunOutput!, $detailsUrl: URI,
  $pullRequestId: ID!, $expectedHeadOid: GitObjectID, $mergeMethod: PullRequestMergeMethod!,
  $commitHeadline: String
) {
  updateCheckRun(input: {
    repositoryId: $repositoryId, checkRunId: $checkRunId, status: $status, conclusion: $conclusion,
    output: $output, detailsUrl: $detailsUrl
  }) { checkRun { databaseId } }
  mergePullRequest(input: {
    pullRequestId: $pullRequestId, expectedHeadOid: $expectedHeadOid, mergeMethod: $mergeMethod,
    commitHeadline: $commitHeadline
  }) { pullRequest { merged mergeCommit { oid } } }
}`;

/**
 * The bot's first `blitz` check run on a head, made with its last report, then the PR merged at that
 * head, in one request: for a head whose checks were read whole without one of the bot's (a worker's
 * new head). Mutations run in order; a refused merge leaves the report made.
 */
export const mergePullWithNewCheckMutation = `
mutation MergePullRequestWithNewCheck(
  $repositoryId: ID!, $sha: GitObjectID!, $name: String!, $status: RequestableCheckStatusState!,
  $conclusion: CheckConclusionState, $output: CheckRunOutput!, $detailsUrl: URI,
  $pullRequestId: ID!, $expectedHeadOid: GitObjectID, $mergeMethod: PullRequestMergeMethod!,
  $commitHeadline: String
) {
  createCheckRun(input: {
    repositoryId: $repositoryId, headSha: $sha, name: $name, status: $status, conclusion: $conclusion,
    output: $output, detailsUrl: $detailsUrl
  }) { checkRun { id databaseId } }
  mergePullRequest(input: {
    pullRequestId: $pullRequestId, expectedHeadOid: $expectedHeadOid, mergeMethod: $mergeMethod,
    commitHeadline: $commitHeadline
  }) { pullRequest { merged mergeCommit { oid } } }
}`;

/** How far a branch is ahead of the base: GitHub's comparison without its commit list. */
export const branchAheadQuery = `
query BranchAhead($owner: String!, $name: String!, $base: String!, $head: String!) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $base) { compare(headRef: $head) { aheadBy } }
  }
}`;
