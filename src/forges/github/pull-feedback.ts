// What the PR feedback loop reads of one PR on GitHub, in one GraphQL query instead of five REST reads:
// the PR (head, mergeability), its head commit's status check rollup (check runs with the annotations of
// failed ones, and commit statuses), its reviews and its review threads' comments. A list longer than one
// page is read again through REST (checks.ts, reviews.ts), never cut. How many comments its conversation
// holds is counted too: none, and the review leg posts its comment without listing them first. The bot's own `blitz` check run
// seen here is remembered, so the next report on that head updates it without a search. A PR the bot
// opens is answered with the same selection (`feedbackOfOpened`): the feedback read after the open in
// that reconcile call costs no request.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { CheckInfo, IssueRef, PullFeedback, PullRequest, Review, ReviewComment } from '../types.ts';
import { toCheckFromRun, toCheckFromStatus } from './checks.ts';
import type { GithubClient } from './client.ts';
import { call } from './errors.ts';
import { pullFeedbackFields } from './graphql.ts';
import { restLogin } from './milestones.ts';
import { reviewStates } from './reviews.ts';
import { GraphqlErrors, PageInfo } from './schema.ts';

export const pullFeedbackQuery = `
query PullFeedback($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) { ${pullFeedbackFields} }
  }
}`;

const Login = z.object({ login: z.string(), __typename: z.string().optional() });
const Oid = z.object({ oid: z.string() });

const CheckRunNode = z.object({
  __typename: z.literal('CheckRun'),
  id: z.string(),
  databaseId: z.number().int().nullable(),
  name: z.string(),
  status: z.string(),
  conclusion: z.string().nullable(),
  title: z.string().nullable(),
  summary: z.string().nullable(),
  detailsUrl: z.string().nullable(),
  permalink: z.string(),
  startedAt: z.string().nullable(),
  checkSuite: z.object({ app: z.object({ slug: z.string() }).nullable() }),
  annotations: z
    .object({
      nodes: z.array(
        z
          .object({
            path: z.string(),
            location: z.object({ start: z.object({ line: z.number().int() }) }),
            annotationLevel: z.string().nullable(),
            message: z.string(),
            title: z.string().nullable(),
          })
          .nullable(),
      ),
    })
    .nullable(),
});

const StatusNode = z.object({
  __typename: z.literal('StatusContext'),
  id: z.string(),
  context: z.string(),
  state: z.string(),
  description: z.string().nullable(),
  targetUrl: z.string().nullable(),
  createdAt: z.string(),
  creator: Login.nullable(),
});

const ContextNode = z.union([CheckRunNode, StatusNode]).nullable();

const CommentNode = z.object({
  databaseId: z.number().int().nullable(),
  author: Login.nullable(),
  body: z.string(),
  path: z.string(),
  line: z.number().int().nullable(),
  createdAt: z.string(),
  commit: Oid.nullable(),
  replyTo: z.object({ databaseId: z.number().int().nullable() }).nullable(),
  pullRequestReview: z.object({ databaseId: z.number().int().nullable() }).nullable(),
});

/** A PR's fields (the first lines of graphql.ts `pullFeedbackFields`). */
export const PullFields = z.object({
  id: z.string(),
  number: z.number().int(),
  title: z.string(),
  body: z.string(),
  state: z.enum(['OPEN', 'CLOSED', 'MERGED']),
  merged: z.boolean(),
  url: z.string(),
  mergeCommit: Oid.nullable(),
  headRefName: z.string(),
  headRefOid: z.string(),
  baseRefName: z.string(),
  mergeable: z.enum(['MERGEABLE', 'CONFLICTING', 'UNKNOWN']),
  mergeStateStatus: z.string(),
  author: Login.nullable(),
});

/** A PR as graphql.ts `pullFeedbackFields` selects it. */
export const PullFeedbackNode = PullFields.extend({
  comments: z.object({ totalCount: z.number().int() }),
  commits: z.object({
    nodes: z.array(
      z
        .object({
          commit: Oid.extend({
            statusCheckRollup: z
              .object({
                contexts: z.object({ pageInfo: PageInfo, nodes: z.array(ContextNode) }),
              })
              .nullable(),
          }),
        })
        .nullable(),
    ),
  }),
  reviews: z.object({
    pageInfo: PageInfo,
    nodes: z.array(
      z
        .object({
          databaseId: z.number().int().nullable(),
          author: Login.nullable(),
          state: z.string(),
          body: z.string(),
          commit: Oid.nullable(),
          submittedAt: z.string().nullable(),
        })
        .nullable(),
    ),
  }),
  reviewThreads: z.object({
    pageInfo: PageInfo,
    nodes: z.array(
      z
        .object({
          comments: z.object({ pageInfo: PageInfo, nodes: z.array(CommentNode.nullable()) }),
        })
        .nullable(),
    ),
  }),
});

export type PullFeedbackNode = z.infer<typeof PullFeedbackNode>;

export const PullFeedbackResponse = z.object({
  repository: z.object({ pullRequest: PullFeedbackNode.nullable() }).nullable(),
});

const mergeStates: Record<string, PullRequest['mergeState']> = {
  CLEAN: 'clean',
  HAS_HOOKS: 'clean',
  BEHIND: 'behind',
  DIRTY: 'dirty',
  BLOCKED: 'blocked',
  DRAFT: 'blocked',
  UNSTABLE: 'unstable',
};

/** GraphQL's check run and status words are REST's in capitals; the REST mappers do the rest. */
const toCheck = (n: NonNullable<z.infer<typeof ContextNode>>): CheckInfo => {
  if (n.__typename === 'StatusContext')
    return {
      ...toCheckFromStatus({
        id: 0,
        context: n.context,
        state: n.state.toLowerCase(),
        description: n.description,
        target_url: n.targetUrl,
        created_at: n.createdAt,
        creator: n.creator ? { login: restLogin(n.creator) } : null,
      }),
      // A status context has no database id in GraphQL: its node id names it within this read.
      externalId: `status:${n.id}`,
    };
  const check = toCheckFromRun({
    id: n.databaseId ?? 0,
    name: n.name,
    status: n.status.toLowerCase(),
    conclusion: n.conclusion?.toLowerCase() ?? null,
    details_url: n.detailsUrl,
    html_url: n.permalink,
    started_at: n.startedAt,
    output: { title: n.title, summary: n.summary },
    app: n.checkSuite.app,
  });
  const failed =
    check.status === 'completed' && !['success', 'neutral', 'skipped'].includes(check.conclusion ?? '');
  const annotations = (n.annotations?.nodes ?? []).flatMap((a) => (a ? [a] : []));
  if (failed && annotations.length > 0)
    check.annotations = annotations.map((a) => ({
      path: a.path,
      startLine: a.location.start.line,
      level:
        a.annotationLevel === 'FAILURE' ? 'failure' : a.annotationLevel === 'WARNING' ? 'warning' : 'notice',
      message: a.message,
      ...(a.title ? { title: a.title } : {}),
    }));
  return check;
};

/** The PR fields `toPullFromNode` maps. */
export type PullFieldsNode = z.infer<typeof PullFields>;

export const toPullFromNode = (ref: IssueRef, p: PullFieldsNode): PullRequest => ({
  ref,
  title: p.title,
  body: p.body,
  state: p.state === 'OPEN' ? 'open' : 'closed',
  merged: p.merged,
  mergeCommitSha: p.merged ? p.mergeCommit?.oid : undefined,
  head: { ref: p.headRefName, sha: p.headRefOid },
  base: { ref: p.baseRefName },
  mergeable: p.mergeable === 'MERGEABLE' ? true : p.mergeable === 'CONFLICTING' ? false : null,
  mergeState: mergeStates[p.mergeStateStatus] ?? 'unknown',
  author: p.author ? restLogin(p.author) : 'ghost',
  htmlUrl: p.url,
});

export interface PullFeedbackParts {
  listChecks(repo: IssueRef['repo'], sha: string): Promise<CheckInfo[]>;
  listReviews(ref: IssueRef): Promise<Review[]>;
  listReviewComments(ref: IssueRef): Promise<ReviewComment[]>;
  /** A check run of the bot's own seen on a head: its next report there updates it in place. */
  ownRunSeen(repo: IssueRef['repo'], sha: string, id: number, nodeId: string): void;
  /** A head's checks read whole without one of the bot's: its first report there needs no search. */
  ownRunAbsent(repo: IssueRef['repo'], sha: string): void;
  /** The PR's GraphQL node id (a merge with the bot's report needs it). */
  pullSeen(ref: IssueRef, nodeId: string): void;
  botSlug: string;
}

/** An error GitHub gives for a check run the App may not read: FORBIDDEN, inside a commit's rollup. */
const refusedInRollup = (e: GraphqlErrors['errors'][number]): boolean =>
  e.type === 'FORBIDDEN' && (e.path ?? []).includes('statusCheckRollup');

export const readPullFeedback = async (
  gh: GithubClient,
  ref: IssueRef,
  rest: PullFeedbackParts,
): Promise<PullFeedback> => {
  let refusedChecks = false;
  const raw = await call(
    {
      action: `read PR #${ref.number} with its checks and reviews`,
      repo: ref.repo,
      need: 'pull_requests:read',
    },
    () =>
      gh
        .graphql(pullFeedbackQuery, { owner: ref.repo.owner, name: ref.repo.name, number: ref.number })
        .catch((err: unknown) => {
          // An installation without `checks: read` gets the PR with its check runs refused (null nodes,
          // FORBIDDEN errors on the rollup): the checks are asked of REST, whose 403 names the permission.
          const partial = GraphqlErrors.safeParse(err);
          if (!partial.success || !partial.data.errors.every(refusedInRollup)) throw err;
          refusedChecks = true;
          return partial.data.data;
        }),
  );
  const p = PullFeedbackResponse.parse(raw).repository?.pullRequest;
  if (!p) {
    // As REST would: a PR that is not there (or not readable) is not found.
    throw new AppError('not_found', `PR #${ref.number} was not found in ${ref.repo.owner}/${ref.repo.name}`);
  }
  return feedbackOfNode(ref, p, rest, { refusedChecks, opened: false });
};

/**
 * The feedback of a PR the open answered with (graphql.ts `openPullWithCheckMutation`), read whole in
 * that request: no second read. Its rollup was read before the bot's check was made in the same
 * request, so it says nothing of the bot's check (the open's own answer tells that).
 */
export const feedbackOfOpened = (
  ref: IssueRef,
  node: PullFeedbackNode,
  rest: PullFeedbackParts,
): Promise<PullFeedback> => feedbackOfNode(ref, node, rest, { refusedChecks: false, opened: true });

const feedbackOfNode = async (
  ref: IssueRef,
  p: PullFeedbackNode,
  rest: PullFeedbackParts,
  read: { refusedChecks: boolean; opened: boolean },
): Promise<PullFeedback> => {
  const { refusedChecks } = read;
  const pull = toPullFromNode(ref, p);
  const head = p.commits.nodes.at(-1)?.commit;
  const contexts = head?.oid === p.headRefOid ? head.statusCheckRollup?.contexts : undefined;
  const checks =
    refusedChecks || head?.oid !== p.headRefOid || contexts?.pageInfo.hasNextPage
      ? await rest.listChecks(ref.repo, p.headRefOid)
      : (contexts?.nodes ?? []).flatMap((n) => (n ? [toCheck(n)] : []));
  let ownSeen = false;
  for (const n of contexts?.nodes ?? [])
    if (
      n?.__typename === 'CheckRun' &&
      n.name === 'blitz' &&
      n.checkSuite.app?.slug === rest.botSlug &&
      n.databaseId
    ) {
      rest.ownRunSeen(ref.repo, p.headRefOid, n.databaseId, n.id);
      ownSeen = true;
    }
  // The head's whole rollup read (no rollup at all: no checks) and none of it the bot's.
  const whole =
    !refusedChecks &&
    head?.oid === p.headRefOid &&
    !contexts?.pageInfo.hasNextPage &&
    (contexts?.nodes ?? []).every((n) => n !== null);
  if (whole && !ownSeen && !read.opened) rest.ownRunAbsent(ref.repo, p.headRefOid);
  rest.pullSeen(ref, p.id);
  const reviews = p.reviews.pageInfo.hasNextPage
    ? await rest.listReviews(ref)
    : p.reviews.nodes.flatMap((r) =>
        r && r.databaseId !== null
          ? [
              {
                id: r.databaseId,
                author: r.author ? restLogin(r.author) : 'ghost',
                state: reviewStates[r.state] ?? 'commented',
                body: r.body,
                ...(r.commit ? { commitSha: r.commit.oid } : {}),
                ...(r.submittedAt ? { submittedAt: r.submittedAt } : {}),
              },
            ]
          : [],
      );
  const threads = p.reviewThreads.nodes.flatMap((t) => (t ? [t] : []));
  const comments =
    p.reviewThreads.pageInfo.hasNextPage || threads.some((t) => t.comments.pageInfo.hasNextPage)
      ? await rest.listReviewComments(ref)
      : threads
          .flatMap((t) => t.comments.nodes.flatMap((c) => (c && c.databaseId !== null ? [c] : [])))
          .map(
            (c): ReviewComment => ({
              id: c.databaseId!,
              ...(c.pullRequestReview?.databaseId ? { reviewId: c.pullRequestReview.databaseId } : {}),
              author: c.author ? restLogin(c.author) : 'ghost',
              body: c.body,
              path: c.path,
              ...(c.line !== null ? { line: c.line } : {}),
              ...(c.commit ? { commitSha: c.commit.oid } : {}),
              ...(c.replyTo?.databaseId ? { inReplyTo: c.replyTo.databaseId } : {}),
              createdAt: c.createdAt,
            }),
          )
          // REST lists review comments oldest first.
          .sort((a, b) => a.id - b.id);
  return { pull, checks, reviews, comments, conversationComments: p.comments.totalCount };
};
