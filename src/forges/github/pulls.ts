// Pull requests on GitHub: open, read (with mergeability), find by head branch, files, a diff bounded
// to a byte limit, merge guarded by the expected head sha, update branch, and the issues a PR closes.
import { z } from 'zod';
import { AppError, isAppError } from '../../errors.ts';
import type { Logger } from '../../observability/logger.ts';
import {
  type BoundedDiff,
  boundDiff,
  type IssueRef,
  type MergeMethod,
  type MergeOptions,
  type MergeResult,
  type NewPullRequest,
  type OpenedPullRequest,
  type ProgressReport,
  type PullFeedback,
  type PullRequest,
  type PullRequestFile,
  type RepoRef,
  sameIssue,
} from '../types.ts';
import { checkRunStatus, maxSummaryChars, progressCheckName } from './checks.ts';
import type { GithubClient } from './client.ts';
import { call, statusOf, toAppError } from './errors.ts';
import {
  closingIssuesQuery,
  mergePullWithCheckMutation,
  mergePullWithNewCheckMutation,
  openPullWithCheckMutation,
} from './graphql.ts';
import { parseClosingRefs, refFromLink, toPullRequest, toPullRequestFile } from './mappers.ts';
import type { NodeIds } from './node-ids.ts';
import { PullFeedbackNode, PullFields, toPullFromNode } from './pull-feedback.ts';
import { ClosingIssuesResponse, GraphqlErrors } from './schema.ts';

const at = (ref: IssueRef) => ({ owner: ref.repo.owner, repo: ref.repo.name, pull_number: ref.number });

const isProgressing = (state: ProgressReport['state']) => state === 'queued' || state === 'in_progress';

/** An error answer of GitHub's GraphQL API with the data of what did run (octokit's GraphqlResponseError). */
const GraphqlPartial = z.object({
  errors: z.array(z.object({ message: z.string() })).min(1),
  data: z.unknown(),
});

const OpenPullWithCheckResponse = z.object({
  createPullRequest: z.object({ pullRequest: PullFields.nullable() }).nullable().optional(),
  createCheckRun: z
    .object({
      checkRun: z.object({ id: z.string(), databaseId: z.number().int().nullable() }).nullable(),
    })
    .nullable()
    .optional(),
});

/** What GitHub answers a merge with the bot's report: each mutation's payload, null where it failed. */
const MergePullWithCheckResponse = z.object({
  updateCheckRun: z
    .object({ checkRun: z.object({ databaseId: z.number().int().nullable() }).nullable() })
    .nullable()
    .optional(),
  createCheckRun: z
    .object({
      checkRun: z.object({ id: z.string(), databaseId: z.number().int().nullable() }).nullable(),
    })
    .nullable()
    .optional(),
  mergePullRequest: z
    .object({
      pullRequest: z
        .object({ merged: z.boolean(), mergeCommit: z.object({ oid: z.string() }).nullable() })
        .nullable(),
    })
    .nullable()
    .optional(),
});

export interface PullOpsParts {
  /** The repository's GraphQL node id where the adapter has read it (no request); else REST. */
  repoId?: (repo: RepoRef) => string | undefined;
  /** The bot's own check run made on `sha`: its next report there updates it. */
  ownRunMade?: (repo: RepoRef, sha: string, id: number, report: ProgressReport, nodeId?: string) => void;
  /** Whether the bot's `blitz` check on that commit is known already (made or seen by this process). */
  ownRunKnown?: (repo: RepoRef, sha: string) => boolean;
  /** The GraphQL node id of the bot's check run on that commit, where this process knows it. */
  ownRunNode?: (repo: RepoRef, sha: string) => string | undefined;
  /** Whether that commit's checks were last read whole without a check run of the bot's. */
  ownRunKnownAbsent?: (repo: RepoRef, sha: string) => boolean;
  /** `report` went to the bot's check run on `sha` with a merge. */
  ownRunReported?: (repo: RepoRef, sha: string, report: ProgressReport) => void;
  /** The bot's report sent on its own (checks.ts), where a merge cannot carry it. */
  reportProgress?: (repo: RepoRef, sha: string, report: ProgressReport) => Promise<unknown>;
  /** PRs' GraphQL node ids as the adapter's reads and opens named them. */
  pullIds?: NodeIds;
  /** The feedback of a PR the open answered with whole (pull-feedback.ts `feedbackOfOpened`). */
  feedbackOfOpened?: (ref: IssueRef, node: PullFeedbackNode) => Promise<PullFeedback>;
  /** Told of a check left unfinished on a merge that went in (the merge still succeeds). */
  logger?: Pick<Logger, 'warn'>;
}

/** A refused merge as REST's 405 / 409 say it: the head moved, or GitHub will not merge the PR now. */
const refusedMerge = (ref: IssueRef, reason: 'unmergeable' | 'moved', expected?: string): AppError =>
  reason === 'moved'
    ? new AppError(
        'conflict',
        `PR #${ref.number} moved: its head is no longer ${expected?.slice(0, 7) ?? 'the expected commit'}; read it again before merging`,
      )
    : new AppError(
        'unmergeable',
        `PR #${ref.number} cannot be merged (conflicts, failing checks or already closed)`,
      );

/**
 * GitHub's 405 (GraphQL: UNPROCESSABLE) "Base branch was modified. Review and try the merge again.": a
 * push to the base raced the merge. Nothing is wrong with the PR, so it is not a refusal yet: the merge
 * is tried again once after the PR is read again. Only these words; any other 405 keeps its meaning.
 */
const baseModified = /base branch was modified/i;
const baseRaced = (ref: IssueRef, status?: number): AppError =>
  new AppError(
    'unmergeable',
    `PR #${ref.number} was not merged: a push to its base branch raced the merge (GitHub: base branch was modified)`,
    { ...(status !== undefined ? { status } : {}), baseModified: true },
  );

export const pullOps = (gh: GithubClient, more: PullOpsParts = {}) => {
  const getPullRequest = async (ref: IssueRef): Promise<PullRequest> => {
    const { data } = await call(
      { action: `read PR #${ref.number}`, repo: ref.repo, need: 'pull_requests:read' },
      () => gh.rest.pulls.get(at(ref)),
    );
    more.pullIds?.set(ref, data.node_id);
    return toPullRequest(ref.repo, data);
  };
  const findPullRequest = async (repo: RepoRef, head: string): Promise<PullRequest | undefined> => {
    const { data } = await call(
      { action: `find the PR from ${head}`, repo, need: 'pull_requests:read' },
      () =>
        gh.rest.pulls.list({
          owner: repo.owner,
          repo: repo.name,
          head: `${repo.owner}:${head}`,
          state: 'open',
          per_page: 100,
        }),
    );
    const first = data[0];
    // The list shape has no mergeability: read the PR itself.
    return first ? getPullRequest({ repo, number: first.number }) : undefined;
  };

  /** The open and the `blitz` check's create in one document; a refused open falls back as REST's 422. */
  const openWithCheck = async (
    repo: RepoRef,
    repositoryId: string,
    pr: NewPullRequest,
    progress: { sha: string; report: ProgressReport },
  ): Promise<OpenedPullRequest> => {
    const { report } = progress;
    const variables = {
      repositoryId,
      base: pr.base,
      head: pr.head,
      title: pr.title,
      body: pr.body,
      sha: progress.sha,
      name: progressCheckName,
      // The opening report is in progress on GitHub (checks.ts `checkRunStatus`).
      status: checkRunStatus(report.state).toUpperCase(),
      output: { title: report.title.slice(0, 255), summary: report.summary.slice(0, maxSummaryChars) },
      detailsUrl: report.detailsUrl ?? null,
    };
    let raw: unknown;
    let failure: unknown;
    try {
      raw = await gh.graphql(openPullWithCheckMutation, variables);
    } catch (err) {
      // A GraphQL answer with errors: the mutation that worked is in its data all the same.
      const partial = GraphqlPartial.safeParse(err);
      if (!partial.success) throw toAppError(err, { action: `open a PR from ${pr.head}`, repo });
      raw = partial.data.data;
      failure = err;
    }
    const answer = OpenPullWithCheckResponse.safeParse(raw).data;
    const run = answer?.createCheckRun?.checkRun;
    const runId = run?.databaseId ?? undefined;
    if (runId !== undefined) more.ownRunMade?.(repo, progress.sha, runId, report, run?.id);
    const node = answer?.createPullRequest?.pullRequest;
    if (node) more.pullIds?.set({ repo, number: node.number }, node.id);
    const opened = node
      ? toPullFromNode({ repo, number: node.number }, node)
      : // Refused (most often: a PR from that head is open already): that open PR is the answer.
        await findPullRequest(repo, pr.head);
    if (!opened)
      throw toAppError(failure ?? new Error('no pull request in the answer'), {
        action: `open a PR from ${pr.head}`,
        repo,
        need: 'pull_requests:write',
      });
    // The new PR as the feedback read would read it, where the answer carries it whole (no error in it:
    // a check read refused or any other failure leaves it to the feedback read).
    const whole =
      node && failure === undefined && more.feedbackOfOpened
        ? PullFeedbackNode.safeParse(
            (raw as { createPullRequest?: { pullRequest?: unknown } }).createPullRequest?.pullRequest,
          ).data
        : undefined;
    const feedback = whole && (await more.feedbackOfOpened?.(opened.ref, whole));
    return {
      ...opened,
      progressSent: runId !== undefined && opened.head.sha === progress.sha,
      ...(feedback ? { feedback } : {}),
    };
  };

  /**
   * The node ids a merge with the bot's completed report needs, when all are known (no request): the
   * check run's to update it, or none where the head is known to have none of the bot's (it is made).
   */
  const mergeWithCheckIds = (ref: IssueRef, progress: { sha: string; report: ProgressReport }) => {
    if (checkRunStatus(progress.report.state) !== 'completed') return undefined;
    const repositoryId = more.repoId?.(ref.repo);
    const checkRunId = more.ownRunNode?.(ref.repo, progress.sha);
    const pullRequestId = more.pullIds?.get(ref);
    if (!repositoryId || !pullRequestId) return undefined;
    if (checkRunId) return { repositoryId, checkRunId, pullRequestId };
    return more.ownRunKnownAbsent?.(ref.repo, progress.sha) ? { repositoryId, pullRequestId } : undefined;
  };

  /**
   * The bot's check completed and the PR merged in one GraphQL document. A refused merge throws as REST's
   * 405 / 409 do; a check GitHub would not update is sent again on its own after a merge that went in.
   */
  const mergeWithCheck = async (
    ref: IssueRef,
    opts: { method: MergeMethod; expectedHeadSha?: string; title?: string },
    progress: { sha: string; report: ProgressReport },
    ids: { repositoryId: string; checkRunId?: string; pullRequestId: string },
  ): Promise<MergeResult> => {
    const { report } = progress;
    const variables = {
      ...ids,
      ...(ids.checkRunId ? {} : { sha: progress.sha, name: progressCheckName }),
      status: 'COMPLETED',
      conclusion: report.state.toUpperCase(),
      output: { title: report.title.slice(0, 255), summary: report.summary.slice(0, maxSummaryChars) },
      detailsUrl: report.detailsUrl ?? null,
      expectedHeadOid: opts.expectedHeadSha ?? null,
      mergeMethod: opts.method.toUpperCase(),
      commitHeadline: opts.title ?? null,
    };
    let raw: unknown;
    let errors: GraphqlErrors['errors'] = [];
    try {
      raw = await gh.graphql(
        ids.checkRunId ? mergePullWithCheckMutation : mergePullWithNewCheckMutation,
        variables,
      );
    } catch (err) {
      const partial = GraphqlErrors.safeParse(err);
      if (!partial.success) throw toAppError(err, { action: `merge PR #${ref.number}`, repo: ref.repo });
      raw = partial.data.data;
      errors = partial.data.errors;
    }
    const answer = MergePullWithCheckResponse.safeParse(raw).data;
    const made = answer?.createCheckRun?.checkRun;
    if (made?.databaseId != null) more.ownRunMade?.(ref.repo, progress.sha, made.databaseId, report, made.id);
    const checkDone = answer?.updateCheckRun?.checkRun != null || made?.databaseId != null;
    if (answer?.updateCheckRun?.checkRun != null) more.ownRunReported?.(ref.repo, progress.sha, report);
    const merged = answer?.mergePullRequest?.pullRequest;
    if (merged?.merged) {
      // The merge went in but the check was not updated: sent on its own, as before this request. If
      // that fails too, the merge still stands (it is answered as done, never as a failed merge that a
      // caller would try again or bounce); the check is left as it was, and said so.
      if (!checkDone)
        await more.reportProgress?.(ref.repo, progress.sha, report).catch((err: unknown) => {
          more.logger?.warn(
            { repo: `${ref.repo.owner}/${ref.repo.name}`, pull: ref.number, sha: progress.sha, err },
            'PR merged, but its blitz check could not be completed; it stays as last reported',
          );
        });
      return { sha: merged.mergeCommit?.oid };
    }
    const refusal = errors.find((e) => e.path?.[0] === 'mergePullRequest');
    if (refusal?.type === 'UNPROCESSABLE' && baseModified.test(refusal.message)) throw baseRaced(ref);
    if (refusal?.type === 'UNPROCESSABLE')
      throw refusedMerge(
        ref,
        /head branch was modified/i.test(refusal.message) ? 'moved' : 'unmergeable',
        opts.expectedHeadSha,
      );
    throw toAppError(
      refusal ? { errors: [refusal] } : errors.length ? { errors } : new Error('no merge in the answer'),
      {
        action: `merge PR #${ref.number}`,
        repo: ref.repo,
        need: 'contents:write',
      },
    );
  };

  /** One merge request: the bot's check with it where it can, else the report, then REST's merge. */
  const mergeOnce = async (ref: IssueRef, opts: MergeOptions): Promise<MergeResult> => {
    const { progress } = opts;
    if (progress) {
      const withCheck = mergeWithCheckIds(ref, progress);
      if (withCheck) return mergeWithCheck(ref, opts, progress, withCheck);
      // Not all ids known (or a report still in progress): the report first, then the merge, as before.
      await more.reportProgress?.(ref.repo, progress.sha, progress.report);
    }
    try {
      const { data } = await call(
        { action: `merge PR #${ref.number}`, repo: ref.repo, need: 'contents:write' },
        () =>
          gh.rest.pulls.merge({
            ...at(ref),
            merge_method: opts.method,
            ...(opts.expectedHeadSha ? { sha: opts.expectedHeadSha } : {}),
            ...(opts.title ? { commit_title: opts.title } : {}),
          }),
      );
      return { sha: data.sha };
    } catch (err) {
      const status = statusOf(err);
      if (status === 405 && err instanceof Error && baseModified.test(err.message))
        throw baseRaced(ref, status);
      if (status === 405) {
        const refused = refusedMerge(ref, 'unmergeable');
        throw new AppError(refused.code, refused.message, { status });
      }
      if (status === 409) {
        const refused = refusedMerge(ref, 'moved', opts.expectedHeadSha);
        throw new AppError(refused.code, refused.message, { status });
      }
      throw err;
    }
  };

  return {
    getPullRequest,

    async openPullRequest(
      repo: RepoRef,
      pr: NewPullRequest,
      opts: { progress?: { sha: string; report: ProgressReport } } = {},
    ): Promise<OpenedPullRequest> {
      const repositoryId = more.repoId?.(repo);
      const { progress } = opts;
      // With the repository's node id known and a queued/in-progress first report: one GraphQL request.
      // Not when the check is there already (an open tried before and refused, or a PR found by its head):
      // the document would make a second `blitz` check on that commit, left in progress for good.
      if (
        repositoryId !== undefined &&
        progress &&
        isProgressing(progress.report.state) &&
        !more.ownRunKnown?.(repo, progress.sha)
      )
        return openWithCheck(repo, repositoryId, pr, progress);
      try {
        const { data } = await call(
          { action: `open a PR from ${pr.head}`, repo, need: 'pull_requests:write' },
          () => gh.rest.pulls.create({ owner: repo.owner, repo: repo.name, ...pr }),
        );
        more.pullIds?.set({ repo, number: data.number }, data.node_id);
        return toPullRequest(repo, data);
      } catch (err) {
        // 422 "A pull request already exists for owner:head": that open PR is the answer (idempotent).
        if (statusOf(err) !== 422) throw err;
        const existing = await findPullRequest(repo, pr.head);
        if (!existing) throw err;
        return existing;
      }
    },

    findPullRequest,

    async listPullRequestFiles(ref: IssueRef): Promise<PullRequestFile[]> {
      const all = await call(
        { action: `list files of PR #${ref.number}`, repo: ref.repo, need: 'pull_requests:read' },
        () => gh.paginate(gh.rest.pulls.listFiles, { ...at(ref), per_page: 100 }),
      );
      return all.map(toPullRequestFile);
    },

    async getPullRequestDiff(ref: IssueRef, maxBytes: number): Promise<BoundedDiff> {
      const { data } = await call(
        { action: `read the diff of PR #${ref.number}`, repo: ref.repo, need: 'pull_requests:read' },
        () => gh.rest.pulls.get({ ...at(ref), mediaType: { format: 'diff' } }),
      );
      if (typeof data !== 'string')
        throw new AppError('forge_error', `GitHub sent no diff for PR #${ref.number}`);
      return boundDiff(data, maxBytes);
    },

    async mergePullRequest(
      ref: IssueRef,
      // `readBack` needs nothing here: GitHub's merge answer names the merge commit.
      opts: MergeOptions,
    ): Promise<MergeResult> {
      try {
        return await mergeOnce(ref, opts);
      } catch (err) {
        if (!isAppError(err, 'unmergeable') || err.details.baseModified !== true) throw err;
        // Bounded: one more merge after the PR is read again; a second race is a refusal (bounce).
        const pr = await getPullRequest(ref);
        if (pr.merged) return { sha: pr.mergeCommitSha };
        return mergeOnce(ref, opts);
      }
    },

    async updatePullRequestBranch(ref: IssueRef): Promise<void> {
      try {
        await call(
          { action: `update the branch of PR #${ref.number}`, repo: ref.repo, need: 'contents:write' },
          () => gh.rest.pulls.updateBranch(at(ref)),
        );
      } catch (err) {
        if (statusOf(err) === 422)
          throw new AppError(
            'conflict',
            `PR #${ref.number}: its base cannot be merged into its branch (conflict or moved head)`,
          );
        throw err;
      }
    },

    async closingIssues(ref: IssueRef): Promise<IssueRef[]> {
      const pr = await getPullRequest(ref);
      const raw = await call({ action: `read the issues PR #${ref.number} closes`, repo: ref.repo }, () =>
        gh.graphql(closingIssuesQuery, {
          owner: ref.repo.owner,
          name: ref.repo.name,
          number: ref.number,
          after: null,
        }),
      );
      const linked =
        ClosingIssuesResponse.parse(raw).repository?.pullRequest?.closingIssuesReferences.nodes ?? [];
      // GitHub links closing keywords only for PRs into the default branch: the body is the fallback.
      const all = [
        ...linked.flatMap((n) => (n ? [refFromLink(n)] : [])),
        ...parseClosingRefs(ref.repo, pr.body),
      ];
      return all.filter((r, i) => all.findIndex((o) => sameIssue(o, r)) === i);
    },
  };
};
